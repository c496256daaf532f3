import { discardBody, hasBody, readSseResponse } from '../http';
import {
  ChatCapability,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
  ChatUsage,
  FinishReason,
  ProviderConnection,
  ProviderError,
} from '../types';
import type { ChatCompletionsProfile } from './profile';
import { buildChatBody } from './request';
import { mapFinishReason, mapUsage } from './response';
import { bearerPost, bodyReadFailure, inBodyError, readJsonBody } from './transport';
import { chunkSchema, completionSchema, WireChunk } from './wire';

function refused(profile: ChatCompletionsProfile, detail?: string | null): ProviderError {
  const reason = detail ? `: ${detail}` : '';
  return new ProviderError('content_policy', `${profile.provider} refused to answer${reason}`, profile.provider);
}

function send(profile: ChatCompletionsProfile, conn: ProviderConnection, req: ChatRequest, stream: boolean, signal?: AbortSignal) {
  return bearerPost(conn, {
    provider: profile.provider,
    path: profile.path,
    body: buildChatBody(profile, req, stream),
    signal,
    refineError: profile.refineError,
  });
}

async function chat(
  profile: ChatCompletionsProfile,
  req: ChatRequest,
  conn: ProviderConnection,
  signal?: AbortSignal,
): Promise<ChatResult> {
  const res = await send(profile, conn, req, false, signal);
  const json = await readJsonBody(profile.provider, res, signal);
  const parsed = completionSchema.safeParse(json);
  const choice = parsed.success ? parsed.data.choices[0] : undefined;
  if (!parsed.success || !choice) {
    throw new ProviderError('upstream', `${profile.provider} answered without a completion choice`, profile.provider);
  }
  const text = choice.message.content ?? '';
  const toolCalls = (choice.message.tool_calls ?? []).map((c) => ({
    id: c.id,
    name: c.function.name,
    arguments: c.function.arguments ?? '',
  }));
  const finishReason = mapFinishReason(choice.finish_reason);
  // A refusal or a filtered answer with nothing to show is a content-policy failure, not an empty reply.
  if (!text && toolCalls.length === 0 && (choice.message.refusal || finishReason === 'content_filter')) {
    throw refused(profile, choice.message.refusal);
  }
  const usage = parsed.data.usage ? mapUsage(profile, parsed.data.usage) : { promptTokens: 0, completionTokens: 0 };
  return { text, usage, finishReason, ...(toolCalls.length > 0 ? { toolCalls } : {}) };
}

function parseChunk(profile: ChatCompletionsProfile, data: string): WireChunk {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new ProviderError('upstream', `${profile.provider} sent a stream event that is not JSON`, profile.provider);
  }
  const parsed = chunkSchema.safeParse(json);
  if (!parsed.success) {
    throw new ProviderError('upstream', `${profile.provider} sent a malformed stream chunk`, profile.provider);
  }
  if (parsed.data.error !== undefined && parsed.data.error !== null) throw inBodyError(profile.provider, parsed.data.error);
  return parsed.data;
}

async function* chatStream(
  profile: ChatCompletionsProfile,
  req: ChatRequest,
  conn: ProviderConnection,
  signal?: AbortSignal,
): AsyncGenerator<ChatStreamEvent> {
  const res = await send(profile, conn, req, true, signal);
  if (!hasBody(res)) throw new ProviderError('upstream', `${profile.provider} answered a stream request without a body`, profile.provider);
  let finish: FinishReason | undefined;
  let usage: ChatUsage | undefined;
  let done = false;
  let answered = false;
  let refusal = '';
  try {
    for await (const event of readSseResponse(res)) {
      if (event.data === '[DONE]') {
        done = true;
        break;
      }
      const chunk = parseChunk(profile, event.data);
      if (chunk.usage) usage = mapUsage(profile, chunk.usage);
      // We ask for one choice; `reasoning_content` deltas are chain of thought, never answer text.
      const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
      if (!choice) continue;
      if (choice.delta?.refusal) refusal += choice.delta.refusal;
      const text = choice.delta?.content;
      if (text) {
        answered = true;
        yield { type: 'delta', text };
      }
      for (const call of choice.delta?.tool_calls ?? []) {
        answered = true;
        yield {
          type: 'tool_call',
          index: call.index ?? 0,
          ...(call.id ? { id: call.id } : {}),
          ...(call.function?.name ? { name: call.function.name } : {}),
          arguments: call.function?.arguments ?? '',
        };
      }
      if (choice.finish_reason) finish = mapFinishReason(choice.finish_reason);
    }
  } catch (err) {
    throw bodyReadFailure(profile.provider, err, signal);
  } finally {
    await discardBody(res);
  }
  if (!done && !finish) {
    throw new ProviderError('upstream', `${profile.provider} ended the stream before the answer was complete`, profile.provider);
  }
  if (!answered && (refusal || finish === 'content_filter')) throw refused(profile, refusal);
  if (usage) yield { type: 'usage', usage };
  yield { type: 'finish', finishReason: finish ?? 'stop' };
}

/** One Chat Completions client; each vendor passes its profile. */
export function createChatCompletionsChat(profile: ChatCompletionsProfile): ChatCapability {
  return {
    chat: (req, conn, signal) => chat(profile, req, conn, signal),
    chatStream: (req, conn, signal) => chatStream(profile, req, conn, signal),
    supports: (option, model, traits) =>
      option === 'temperature' ? profile.acceptsTemperature(model) : profile.supports(option, model, traits),
  };
}
