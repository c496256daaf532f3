/** What each tag of the OpenAPI document groups; a tag used by an operation must be described here. */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Authentication: 'Sign-in (password, messenger, identity provider), registration, refresh and password recovery',
  Meta: 'This document and the settings a web client needs before sign-in',
  Payments: 'What can be bought, web checkout through the payment carrier, its notifications, and the caller’s orders',
  User: 'The caller’s own account: profile, balance, statistics, settings and generation history',
  Account: 'Password, email verification, sessions and account deletion (web sessions only, never an API key)',
  'API keys': 'Keys for server-to-server use, with optional budgets, model lists and expiry',
  Models: 'The model catalog with prices and lifecycle, average times and price quotes',
  Assistants: 'Built-in, own and published chat assistants (system prompts)',
  Schedules: 'Recurring generations: the same generate request run every interval, billed per run',
  Admin: 'The operator’s console (an admin’s web session only): users, money, catalog, broadcasts, promo codes, audit log',
  Webhooks: 'Endpoints that receive signed events (Standard Webhooks), their deliveries, and the events themselves',
  Generation: 'Image, video, speech, music and tool models, speech to text, inpainting, and streamed chat',
  'Chat completions (compatible)': 'The chat-completions surface the OpenAI SDKs and most clients speak, for every chat model',
  'Responses (compatible)': 'The OpenAI Responses API (stateless subset), as the Agents SDK and Codex speak it',
  'Messages (Anthropic-compatible)': 'The Anthropic Messages API, as the Anthropic SDKs and Claude Code speak it',
  'Audio (compatible)': 'OpenAI’s Audio API (speech, transcriptions, translations) for the catalog’s speech models',
  'Videos (compatible)': 'OpenAI’s Videos API (jobs, their files) for the catalog’s video models',
  'Images (compatible)':
    'OpenAI’s Images API (generations, edits) for the catalog’s image models, as the OpenAI SDK and the AI SDK speak it',
};
