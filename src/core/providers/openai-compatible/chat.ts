import { discardBody, hasBody, readSseResponse } from '../http';
import {
  ChatCapability,
  ChatChoice,
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
import { mapFinishReason, mapLogprobs, mapUsage } from './response';
import { bearerPost, bodyReadFailure, inBodyError, readJsonBody } from './transport';
import { chunkSchema, completionSchema, WireChunk, WireCompletion } from './wire';

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
  const choices = parsed.success ? [...parsed.data.choices].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)) : [];
  if (!parsed.success || choices.length === 0) {
    throw new ProviderError('upstream', `${profile.provider} answered without a completion choice`, profile.provider);
  }
  const [first, ...more] = choices.map((c) => choiceOf(profile, c));
  // A refusal or a filtered answer with nothing to show is a content-policy failure, not an empty reply.
  if (!first.text && !first.toolCalls && (choices[0].message.refusal || first.finishReason === 'content_filter')) {
    throw refused(profile, choices[0].message.refusal);
  }
  const usage = parsed.data.usage ? mapUsage(profile, parsed.data.usage) : { promptTokens: 0, completionTokens: 0 };
  return { ...first, usage, ...(more.length > 0 ? { moreChoices: more } : {}) };
}

/** One choice of a completion as the core's answer (without usage, which covers them all). */
function choiceOf(profile: ChatCompletionsProfile, choice: WireCompletion['choices'][number]): ChatChoice {
  const toolCalls = (choice.message.tool_calls ?? []).map((c) => ({
    id: c.id,
    name: c.function.name,
    arguments: c.function.arguments ?? '',
  }));
  const logprobs = mapLogprobs(choice.logprobs);
  // DeepSeek's and xAI's chain of thought: never answer text, kept as the turn's reasoning.
  const thought = choice.message.reasoning_content;
  return {
    text: choice.message.content ?? '',
    finishReason: mapFinishReason(choice.finish_reason),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(logprobs ? { logprobs } : {}),
    ...(thought ? { reasoning: [{ type: 'text' as const, provider: profile.provider, text: thought }] } : {}),
  };
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
  const finishes = new Map<number, FinishReason>();
  let usage: ChatUsage | undefined;
  let done = false;
  let answered = false;
  let refusal = '';
  // The first choice's chain of thought streamed so far: a block of reasoning, complete when its answer (or the end)
  // comes.
  let thought = '';
  const thoughtDone = (): ChatStreamEvent | undefined => {
    if (thought === '') return undefined;
    const reasoning = { type: 'text' as const, provider: profile.provider, text: thought };
    thought = '';
    return { type: 'reasoning', reasoning };
  };
  try {
    for await (const event of readSseResponse(res)) {
      if (event.data === '[DONE]') {
        done = true;
        break;
      }
      const chunk = parseChunk(profile, event.data);
      if (chunk.usage) usage = mapUsage(profile, chunk.usage);
      // `reasoning_content` deltas are chain of thought, never answer text. Choices after the first (`n` > 1) carry
      // their index.
      for (const choice of chunk.choices ?? []) {
        const index = choice.index ?? 0;
        const tag = index > 0 ? { choice: index } : {};
        if (index === 0 && choice.delta?.refusal) refusal += choice.delta.refusal;
        const reasoningText = index === 0 ? choice.delta?.reasoning_content : undefined;
        if (reasoningText) {
          thought += reasoningText;
          yield { type: 'reasoning_delta', text: reasoningText };
        }
        const text = choice.delta?.content;
        if (index === 0 && (text || choice.delta?.tool_calls?.length)) {
          const closed = thoughtDone();
          if (closed) yield closed;
        }
        if (text) {
          answered = true;
          yield { type: 'delta', text, ...tag };
        }
        const logprobs = mapLogprobs(choice.logprobs);
        if (logprobs?.length) yield { type: 'logprobs', content: logprobs, ...tag };
        for (const call of choice.delta?.tool_calls ?? []) {
          answered = true;
          yield {
            type: 'tool_call',
            ...tag,
            index: call.index ?? 0,
            ...(call.id ? { id: call.id } : {}),
            ...(call.function?.name ? { name: call.function.name } : {}),
            arguments: call.function?.arguments ?? '',
          };
        }
        if (choice.finish_reason) finishes.set(index, mapFinishReason(choice.finish_reason));
      }
    }
  } catch (err) {
    throw bodyReadFailure(profile.provider, err, signal);
  } finally {
    await discardBody(res);
  }
  const finish = finishes.get(0);
  if (!done && !finish) {
    throw new ProviderError('upstream', `${profile.provider} ended the stream before the answer was complete`, profile.provider);
  }
  if (!answered && (refusal || finish === 'content_filter')) throw refused(profile, refusal);
  const closed = thoughtDone();
  if (closed) yield closed;
  if (usage) yield { type: 'usage', usage };
  for (const [choice, reason] of [...finishes].sort(([a], [b]) => a - b)) {
    if (choice > 0) yield { type: 'finish', finishReason: reason, choice };
  }
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
