import { synchronousMedia } from '../openai-compatible';
import { ProviderAdapter } from '../adapter';
import { openaiFaults } from './faults';
import { openAiStyleModelList } from '../openai-compatible/model-list';
import { openAiText } from './routing';
import { generateOpenAiImage } from './images';
import { synthesizeOpenAiSpeech } from './speech';
import { transcribeWithOpenAi } from './transcriptions';
import { reportingIgnored } from '../warnings';
import { OPENAI_PRICES } from './prices';

/** OpenAI: Chat Completions and Responses, Images, Speech and Transcriptions, all answered within the request. */
export const openaiAdapter: ProviderAdapter<'openai'> = {
  name: 'openai',
  defaultBaseUrl: 'https://api.openai.com/v1',
  faults: openaiFaults,
  models: openAiStyleModelList('openai', { retrieve: true }),
  prices: OPENAI_PRICES,
  capabilities: { chat: true, media: ['image', 'tts', 'stt'], hostedTools: ['web_search'], caching: 'automatic', reasoning: true },
  chat: openAiText,
  media: reportingIgnored(
    synchronousMedia('openai', { image: generateOpenAiImage, tts: synthesizeOpenAiSpeech, stt: transcribeWithOpenAi }),
    // OpenAI's translations endpoint takes no language (it always writes English).
    (req) => (req.category === 'stt' && req.translate ? ['prompt'] : ['quality', 'style', 'speed', 'language', 'prompt']),
  ),
};
