import { ChatContentPart, ChatMessage, ChatRequest, ProviderError } from '../types';
import { documentText } from '../documents';
import type { ChatCompletionsProfile } from './profile';
import type { WireContentPart, WireMessage } from './wire';

function plainText(content: string | ChatContentPart[]): string {
  if (typeof content === 'string') return content;
  return content
    .map((p) => (p.type === 'text' ? p.text : p.type === 'document' || p.type === 'search_result' ? documentText(p) : ''))
    .join('\n');
}

function toWirePart(part: ChatContentPart): WireContentPart {
  const dataUri = (mime: string, data: Buffer) => `data:${mime};base64,${data.toString('base64')}`;
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return { type: 'image_url', image_url: { url: dataUri(part.mime, part.data) } };
    case 'file':
      return { type: 'file', file: { file_data: dataUri(part.mime, part.data), filename: part.filename ?? 'document.pdf' } };
    case 'document':
    case 'search_result':
      return { type: 'text', text: documentText(part) };
  }
}

function toWireContent(profile: ChatCompletionsProfile, content: string | ChatContentPart[]): string | WireContentPart[] {
  // Plain text goes as a string: every compatible server accepts that form (DeepSeek accepts only it).
  const textual = (part: ChatContentPart) => part.type === 'text' || part.type === 'document' || part.type === 'search_result';
  if (typeof content === 'string' || content.every(textual)) return plainText(content);
  if (!profile.acceptsImages) {
    throw new ProviderError('bad_request', `${profile.provider} models do not accept images or documents`, profile.provider);
  }
  return content.map(toWirePart);
}

/** An assistant turn's own reasoning text, as the vendor wants it back. */
function reasoningContentOf(profile: ChatCompletionsProfile, message: ChatMessage): string | undefined {
  const own = (message.reasoning ?? []).flatMap((r) => (r.provider === profile.provider && r.type === 'text' ? [r.text] : []));
  return message.role === 'assistant' && own.length > 0 ? own.join('') : undefined;
}

function toWireMessage(profile: ChatCompletionsProfile, message: ChatMessage): WireMessage {
  if (message.role === 'tool') {
    return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: plainText(message.content) };
  }
  const reasoning = profile.replaysReasoningContent ? reasoningContentOf(profile, message) : undefined;
  const thought = reasoning !== undefined ? { reasoning_content: reasoning } : {};
  if (message.role === 'assistant' && message.toolCalls?.length) {
    const text = plainText(message.content);
    return {
      role: 'assistant',
      content: text === '' ? null : text,
      ...thought,
      tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    };
  }
  if (message.role === 'assistant') return { role: 'assistant', content: toWireContent(profile, message.content), ...thought };
  return { role: message.role, content: toWireContent(profile, message.content) } as WireMessage;
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
  // Labels reach this point only where the vendor takes them (the core drops the others).
  if (req.user !== undefined) out.user = req.user;
  if (req.metadata !== undefined) out.metadata = req.metadata;
  if (req.serviceTier !== undefined) out.service_tier = req.serviceTier;
  if (req.store !== undefined) out.store = req.store;
  if (req.promptCacheKey !== undefined) out.prompt_cache_key = req.promptCacheKey;
  if (req.safetyIdentifier !== undefined) out.safety_identifier = req.safetyIdentifier;
  if (req.choices !== undefined && req.choices > 1) out.n = req.choices;
  if (req.logprobs !== undefined) {
    out.logprobs = true;
    if (req.logprobs.top > 0) out.top_logprobs = req.logprobs.top;
  }
  if (req.verbosity !== undefined) out.verbosity = req.verbosity;
  if (req.reasoningEffort !== undefined) {
    Object.assign(out, profile.reasoningFields?.(req.reasoningEffort, req.upstreamModel) ?? { reasoning_effort: req.reasoningEffort });
  }
  Object.assign(out, profile.requiredFields?.(req.upstreamModel, req));
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
