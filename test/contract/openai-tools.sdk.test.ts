import { describeChatCompletionsTools } from './chat-completions-tools';

// gpt-5.6-luna takes function tools at any reasoning effort (gpt-6-luna only with reasoning_effort "none").
describeChatCompletionsTools('openai', '/v1', 'gpt-5.6-luna', { vision: true });
