export { createChatCompletionsChat } from './chat';
export { generateImages } from './images';
export type { ChatCompletionsProfile } from './profile';
export { buildChatBody } from './request';
export { bearerPost, readJsonBody } from './transport';
export { synchronousMedia } from './media';
export type { MediaRunner } from './media';
