import { ProviderAdapter } from '../types';
import { googleChat } from './chat';
import { googleMedia } from './media';
import { reportingIgnored } from '../warnings';

/**
 * Gemini API (`x-goog-api-key`): Gemini text, Gemini native images and speech, Imagen, Gemini Omni video on the
 * Interactions API, and Veo long-running operations.
 */
export const googleAdapter: ProviderAdapter = {
  name: 'google',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  chat: googleChat,
  // Veo takes a negative prompt (Omni none); the Gemini image models take a seed; TTS takes only a voice.
  media: reportingIgnored(googleMedia, (req) => {
    if (req.category === 'video') return req.upstreamModel.startsWith('gemini-omni') ? [] : ['negativePrompt'];
    return req.category === 'image' ? ['seed'] : [];
  }),
};
