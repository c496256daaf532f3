import { readSse, upstreamFetch, upstreamJson } from '../http';
import { ChatCapability, ChatRequest, ChatResult, ChatStreamEvent, ChatUsage, ProviderConnection, ProviderError } from '../types';
import { googleHeaders, modelPath } from './auth';
import { geminiSupports, toGeminiChatBody } from './contents';
import { blockedError, mapFinishReason, statusError } from './errors';
import { PartStream, readParts } from './thoughts';
import { GenerateContentResponse, generateContentResponse } from './wire';

function parseResponse(raw: unknown): GenerateContentResponse {
  const parsed = generateContentResponse.safeParse(raw);
  if (!parsed.success) throw new ProviderError('upstream', 'google answered with an unexpected response shape', 'google');
  return parsed.data;
}

/** Thinking tokens are billed as output, so they count as completion tokens; the prompt count includes the cached part. */
function usageOf(res: GenerateContentResponse): ChatUsage | undefined {
  const u = res.usageMetadata;
  if (!u) return undefined;
  const thoughts = u.thoughtsTokenCount ?? 0;
  const cached = u.cachedContentTokenCount ?? 0;
  return {
    promptTokens: u.promptTokenCount ?? 0,
    completionTokens: (u.candidatesTokenCount ?? 0) + thoughts,
    ...(cached > 0 ? { cachedTokens: cached } : {}),
    ...(thoughts > 0 ? { reasoningTokens: thoughts } : {}),
  };
}

function blockReason(res: GenerateContentResponse): string | undefined {
  return (res.candidates?.length ?? 0) === 0 ? res.promptFeedback?.blockReason : undefined;
}

async function chat(req: ChatRequest, conn: ProviderConnection, signal?: AbortSignal): Promise<ChatResult> {
  const raw = await upstreamJson<unknown>('google', conn, {
    path: `${modelPath(req.upstreamModel)}:generateContent`,
    headers: googleHeaders(conn),
    body: toGeminiChatBody(req),
    signal,
  });
  const res = parseResponse(raw);
  const blocked = blockReason(res);
  if (blocked) throw blockedError(blocked);
  const candidate = res.candidates?.[0];
  if (!candidate) throw new ProviderError('upstream', 'google answered without candidates', 'google');
  const { text, toolCalls, reasoning } = readParts(candidate.content?.parts ?? []);
  const finishReason = mapFinishReason(candidate.finishReason);
  if (finishReason === 'content_filter' && text === '') throw blockedError(candidate.finishReason ?? 'SAFETY');
  const usage = usageOf(res) ?? { promptTokens: 0, completionTokens: 0 };
  const thought = reasoning.length > 0 ? { reasoning } : {};
  // Gemini finishes a function-calling turn with STOP; chat-completions clients look for tool_calls.
  if (toolCalls.length > 0)
    return { text, finishReason: finishReason === 'stop' ? 'tool_calls' : finishReason, usage, toolCalls, ...thought };
  return { text, finishReason, usage, ...thought };
}

function streamFailure(err: unknown, signal?: AbortSignal): unknown {
  if (err instanceof ProviderError || signal?.aborted) return err;
  const e = err as Error;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') {
    return new ProviderError('timeout', 'google stream stalled past the timeout', 'google');
  }
  return new ProviderError('upstream', `google stream broke off: ${e?.message ?? String(err)}`, 'google');
}

async function* chatStream(req: ChatRequest, conn: ProviderConnection, signal?: AbortSignal): AsyncGenerator<ChatStreamEvent> {
  const res = await upstreamFetch('google', conn, {
    path: `${modelPath(req.upstreamModel)}:streamGenerateContent?alt=sse`,
    headers: { ...googleHeaders(conn), accept: 'text/event-stream' },
    body: toGeminiChatBody(req),
    signal,
  });
  if (!res.body) throw new ProviderError('upstream', 'google answered a stream request without a body', 'google');

  let usage: ChatUsage | undefined;
  let finish: string | undefined;
  let sawText = false;
  const parts = new PartStream();
  try {
    for await (const sse of readSse(res.body)) {
      let json: unknown;
      try {
        json = JSON.parse(sse.data);
      } catch {
        throw new ProviderError('upstream', 'google sent a stream chunk that is not JSON', 'google');
      }
      const chunk = parseResponse(json);
      if (chunk.error) throw statusError(chunk.error);
      const blocked = blockReason(chunk);
      if (blocked) throw blockedError(blocked);
      for (const ev of parts.accept(chunk.candidates?.[0]?.content?.parts ?? [])) {
        if (ev.type === 'delta') sawText = true;
        yield ev;
      }
      // usageMetadata is cumulative: the last one seen is the total.
      usage = usageOf(chunk) ?? usage;
      finish = chunk.candidates?.[0]?.finishReason ?? finish;
    }
  } catch (err) {
    throw streamFailure(err, signal);
  } finally {
    await res.body.cancel().catch(() => undefined);
  }
  // Gemini has no end-of-stream sentinel: the final chunk is the one carrying finishReason.
  if (!finish) throw new ProviderError('upstream', 'google stream ended without a finish reason', 'google');
  const mapped = mapFinishReason(finish);
  if (mapped === 'content_filter' && !sawText) throw blockedError(finish);
  yield* parts.end();
  if (usage) yield { type: 'usage', usage };
  yield { type: 'finish', finishReason: parts.toolCalls > 0 && mapped === 'stop' ? 'tool_calls' : mapped };
}

export const googleChat: ChatCapability = { chat, chatStream, supports: (option) => geminiSupports(option) };
