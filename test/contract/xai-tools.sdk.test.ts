import { describeChatCompletionsTools } from './chat-completions-tools';

describeChatCompletionsTools('xai', '/v1', 'grok-4', { vision: true });
