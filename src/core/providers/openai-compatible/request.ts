import { ChatContentPart, ChatMessage, ChatRequest, ProviderError } from '../types';
import type { ChatCompletionsProfile } from './profile';
import type { WireContentPart, WireMessage } from './wire';

function plainText(content: string | ChatContentPart[]): string {
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

function toWireContent(profile: ChatCompletionsProfile, content: string | ChatContentPart[]): string | WireContentPart[] {
  // Plain text goes as a string: every compatible server accepts that form (DeepSeek accepts only it).
  if (typeof content === 'string' || !content.some((part) => part.type === 'image')) return plainText(content);
  if (!profile.acceptsImages) {
    throw new ProviderError('bad_request', `${profile.provider} models do not accept images`, profile.provider);
  }
  return content.map((part) =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : { type: 'image_url', image_url: { url: `data:${part.mime};base64,${part.data.toString('base64')}` } },
  );
}

function toWireMessage(profile: ChatCompletionsProfile, message: ChatMessage): WireMessage {
  if (message.role === 'tool') {
    return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: plainText(message.content) };
  }
  if (message.role === 'assistant' && message.toolCalls?.length) {
    const text = plainText(message.content);
    return {
      role: 'assistant',
      content: text === '' ? null : text,
      tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    };
  }
  return { role: message.role, content: toWireContent(profile, message.content) };
}

/** Function calling and the sampling options, in the Chat Completions names. */
function options(profile: ChatCompletionsProfile, req: ChatRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (req.tools?.length) {
    out.tools = req.tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        ...(t.parameters !== undefined ? { parameters: t.parameters } : {}),
        ...(t.strict !== undefined ? { strict: t.strict } : {}),
      },
    }));
  }
  if (req.toolChoice !== undefined) {
    out.tool_choice = typeof req.toolChoice === 'string' ? req.toolChoice : { type: 'function', function: { name: req.toolChoice.name } };
  }
  if (req.parallelToolCalls !== undefined) out.parallel_tool_calls = req.parallelToolCalls;
  const format = req.responseFormat;
  if (format?.type === 'json_object') out.response_format = { type: 'json_object' };
  else if (format?.type === 'json_schema') {
    const { type, ...jsonSchema } = format;
    out.response_format = { type, json_schema: jsonSchema };
  }
  if (req.stop?.length) out.stop = req.stop;
  if (req.topP !== undefined) out.top_p = req.topP;
  if (req.seed !== undefined) out.seed = req.seed;
  if (req.presencePenalty !== undefined) out.presence_penalty = req.presencePenalty;
  if (req.frequencyPenalty !== undefined) out.frequency_penalty = req.frequencyPenalty;
  if (req.user !== undefined && profile.supports('user', req.upstreamModel)) out.user = req.user;
  return out;
}

/** The Chat Completions request body for one of our chat requests. */
export function buildChatBody(profile: ChatCompletionsProfile, req: ChatRequest, stream: boolean): Record<string, unknown> {
  const model = req.upstreamModel;
  const ceiling = profile.maxOutputTokens?.(model);
  const limit = ceiling !== undefined ? Math.min(req.maxTokens, ceiling) : req.maxTokens;
  const body: Record<string, unknown> = {
    model,
    messages: req.messages.map((m) => toWireMessage(profile, m)),
    [profile.tokenLimitField(model)]: limit,
    ...options(profile, req),
  };
  if (req.temperature !== undefined && profile.acceptsTemperature(model)) body.temperature = req.temperature;
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}
