import { synchronousMedia } from '../openai-compatible';
import type { ProviderAdapter } from '../types';
import { openAiChat } from './chat';
import { generateOpenAiImage } from './images';
import { synthesizeOpenAiSpeech } from './speech';
import { transcribeWithOpenAi } from './transcriptions';
import { reportingIgnored } from '../warnings';

/** OpenAI: Chat Completions, Images, Speech and Transcriptions, all answered within the request. */
export const openaiAdapter: ProviderAdapter = {
  name: 'openai',
  defaultBaseUrl: 'https://api.openai.com/v1',
  chat: openAiChat,
  media: reportingIgnored(
    synchronousMedia('openai', { image: generateOpenAiImage, tts: synthesizeOpenAiSpeech, stt: transcribeWithOpenAi }),
    () => ['quality', 'style', 'speed', 'language'],
  ),
};
