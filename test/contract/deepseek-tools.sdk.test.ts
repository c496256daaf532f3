import { describeChatCompletionsTools } from './chat-completions-tools';

describeChatCompletionsTools('deepseek', '', 'deepseek-chat', { vision: false });
