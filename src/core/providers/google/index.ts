import { ProviderAdapter } from '../types';
import { googleChat } from './chat';
import { googleMedia } from './media';
import { reportingIgnored } from '../warnings';

/** Gemini API (`x-goog-api-key`): Gemini text, Gemini native images, Imagen, and Veo long-running operations. */
export const googleAdapter: ProviderAdapter = {
  name: 'google',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  chat: googleChat,
  // Veo takes a negative prompt; the Gemini image models take a seed.
  media: reportingIgnored(googleMedia, (req) => (req.category === 'video' ? ['negativePrompt'] : ['seed'])),
};
