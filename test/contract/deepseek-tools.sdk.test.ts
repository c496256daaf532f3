import { describeChatCompletionsTools } from './chat-completions-tools';

describeChatCompletionsTools('deepseek', '', 'deepseek-v4-flash', { vision: false });
