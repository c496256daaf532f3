import type { ChatCapability, ChatOption, ChatRequest, ChatRequestTraits } from '../types';
import { openAiChat, openAiChatProfile } from './chat';
import { openAiFamily } from './families';
import { responsesChat, responsesChatStream } from './responses-api';

// Which OpenAI API answers a chat request. Chat Completions, unless the request needs what only the Responses API
// has: tools on a model that takes them only there (the issue names gpt-6.1-terra and gpt-6.1-sol), custom and
// namespace tools, the hosted web search, OpenAI's encrypted reasoning to restore from an earlier turn, or a reasoning
// model's answer whose reasoning the client keeps (only the Responses API hands it out).

function needsResponses(req: ChatRequest): boolean {
  if ((req.tools?.length ?? 0) > 0 && openAiFamily(req.upstreamModel)?.tools === 'responses-only') return true;
  if (req.tools?.some((t) => t.kind === 'custom' || t.namespace !== undefined)) return true;
  if ((req.hostedTools?.length ?? 0) > 0) return true;
  if (req.keepReasoning && openAiFamily(req.upstreamModel) !== undefined && req.reasoningEffort !== 'none') return true;
  return req.messages.some(
    (m) =>
      m.toolCalls?.some((c) => c.kind === 'custom' || c.namespace !== undefined) ||
      m.reasoning?.some((r) => r.provider === 'openai' && r.type === 'encrypted'),
  );
}

/** Chat Completions alone has `n` and token log probabilities: not with tools where only the Responses API takes them. */
function supports(option: ChatOption, model: string, traits?: ChatRequestTraits): boolean {
  const responsesOnly = openAiFamily(model)?.tools === 'responses-only';
  if (option === 'tools' || option === 'parallel_tool_calls' || option === 'tool_shapes' || option === 'web_search') return true;
  if ((option === 'n' || option === 'logprobs') && responsesOnly && traits?.options.has('tools')) return false;
  return openAiChat.supports(option, model, traits);
}

export const openAiText: ChatCapability = {
  chat: (req, conn, signal) =>
    needsResponses(req)
      ? responsesChat(req, conn, openAiChatProfile.maxOutputTokens?.(req.upstreamModel), signal)
      : openAiChat.chat(req, conn, signal),
  chatStream: (req, conn, signal) =>
    needsResponses(req)
      ? responsesChatStream(req, conn, openAiChatProfile.maxOutputTokens?.(req.upstreamModel), signal)
      : openAiChat.chatStream(req, conn, signal),
  supports,
};
