import { ProviderAdapter } from '../adapter';
import { googleFaults } from './faults';
import { geminiModelList } from './model-list';
import { googleChat } from './chat';
import { googleMedia } from './media';
import { reportingIgnored } from '../warnings';
import { GOOGLE_PRICES } from './prices';

/**
 * Gemini API (`x-goog-api-key`): Gemini text, Gemini native images and speech, and Gemini Omni video on the
 * Interactions API. (Imagen 4 and the Veo models it served on the Gemini API are shut down.)
 */
export const googleAdapter: ProviderAdapter<'google'> = {
  name: 'google',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  faults: googleFaults,
  models: geminiModelList,
  prices: GOOGLE_PRICES,
  capabilities: { chat: true, media: ['image', 'video', 'tts'], hostedTools: [], caching: 'automatic', reasoning: true },
  chat: googleChat,
  // The Gemini image models take a seed; Omni takes no negative prompt, TTS only a voice.
  media: reportingIgnored(googleMedia, (req) => (req.category === 'image' ? ['seed'] : [])),
};
