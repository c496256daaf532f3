import { describeChatCompletionsTools } from './chat-completions-tools';

describeChatCompletionsTools('openai', '/v1', 'gpt-4o-mini', { vision: true });
