import type { ServerResponse } from 'node:http';
import { ProviderGate, type CircuitEvent } from '../../src/core/providers/provider-gate';
import { anthropicAdapter } from '../../src/core/providers/anthropic';
import { providerAdapters } from '../../src/core/providers/registry';
import { openaiAdapter } from '../../src/core/providers/openai';
import { backoffMs, retryAfterFromBody, retryAfterFromHeaders } from '../../src/core/providers/retry';
import { ProviderError, type ProviderErrorKind, type ProviderName } from '../../src/core/providers/types';
import { createAnthropicSandbox } from '../../src/sandbox/anthropic';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { sendJson, type SandboxHandler, type SandboxRequest } from '../../src/sandbox/types';
import { failure, useVendorSandbox } from '../support/vendor-sandbox';

// Each vendor's documented errors read with its own table; transient ones retried within the attempts and the
// deadline; a quota failure pauses the provider.

/** The vendor fake, but its next `n` requests answer `status` with `body` first. */
function flaky(
  inner: SandboxHandler,
): SandboxHandler & { failNext(n: number, status: number, body: unknown, headers?: Record<string, string>): void } {
  let left = 0;
  let reply: { status: number; body: unknown; headers: Record<string, string> } = { status: 500, body: {}, headers: {} };
  const handler = ((req: SandboxRequest, res: ServerResponse) => {
    if (left > 0) {
      left -= 1;
      return sendJson(res, reply.status, reply.body, reply.headers);
    }
    return inner(req, res);
  }) as SandboxHandler & { failNext(n: number, status: number, body: unknown, headers?: Record<string, string>): void };
  handler.failNext = (n, status, body, headers = {}) => {
    left = n;
    reply = { status, body, headers };
  };
  return handler;
}

const anthropicFake = flaky(createAnthropicSandbox({ streamDelayMs: 0 }));
const anthropic = useVendorSandbox(anthropicAdapter, anthropicFake);
const openaiFake = flaky(createOpenAiSandbox({ chunkDelayMs: 0 }));
const openai = useVendorSandbox(openaiAdapter, openaiFake);

const OVERLOADED_529 = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
const OPENAI_503 = {
  error: { message: 'The engine is currently overloaded, please try again later.', type: 'server_error', param: null, code: null },
};
const ask = { upstreamModel: 'claude-haiku-4-5', messages: [{ role: 'user' as const, content: 'hi' }], maxTokens: 50 };
const image = { category: 'image' as const, slug: 'gpt-image-2.6-sunburst', upstreamModel: 'gpt-image-2.6-sunburst', prompt: 'a red fox' };

describe('transient failures are retried within the deadline', () => {
  test('two 529 overloaded_error answers, then the message: the chat succeeds on the third attempt', async () => {
    anthropicFake.failNext(2, 529, OVERLOADED_529);
    const result = await anthropicAdapter.chat!.chat(ask, anthropic.conn({ deadlineAt: Date.now() + 5000 }));
    expect(result.text.length).toBeGreaterThan(0);
    expect(anthropic.received).toHaveLength(3);
  });

  test('a 503 then the image: sync media succeeds on the second attempt', async () => {
    openaiFake.failNext(1, 503, OPENAI_503);
    const started = await openaiAdapter.media!.start(image, openai.conn({ deadlineAt: Date.now() + 5000 }));
    expect(started.state).toBe('completed');
    expect(openai.received).toHaveLength(2);
  });

  test('sync media retries at most N times: a 503 that persists fails as overloaded after maxAttempts', async () => {
    openaiFake.failNext(10, 503, OPENAI_503);
    const err = await failure(openaiAdapter.media!.start(image, openai.conn({ maxAttempts: 4 })));
    expect(err).toMatchObject({ kind: 'overloaded', upstreamStatus: 503 });
    expect(openai.received).toHaveLength(4);
    openaiFake.failNext(0, 200, {});
  });

  test('no retry that cannot finish before the deadline', async () => {
    anthropicFake.failNext(5, 529, OVERLOADED_529);
    const err = await failure(anthropicAdapter.chat!.chat(ask, anthropic.conn({ deadlineAt: Date.now() + 5 })));
    expect(err.kind).toBe('overloaded');
    expect(anthropic.received).toHaveLength(1);
    anthropicFake.failNext(0, 200, {});
  });

  test('a 429 is retried after the retry-after the vendor names; a wait longer than 30 s fails at once', async () => {
    const limited = {
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' },
    };
    anthropicFake.failNext(1, 429, limited, { 'retry-after': '0' });
    await anthropicAdapter.chat!.chat(ask, anthropic.conn());
    expect(anthropic.received).toHaveLength(2);

    anthropic.received.length = 0;
    anthropicFake.failNext(1, 429, limited, { 'retry-after': '60' });
    const err = await failure(anthropicAdapter.chat!.chat(ask, anthropic.conn()));
    expect(err).toMatchObject({ kind: 'rate_limited', retryAfterMs: 60_000 });
    expect(anthropic.received).toHaveLength(1);
  });

  test('a streamed chat is retried before its first byte, never after', async () => {
    anthropicFake.failNext(1, 529, OVERLOADED_529);
    const events = [];
    for await (const ev of anthropicAdapter.chat!.chatStream(ask, anthropic.conn())) events.push(ev);
    expect(events.at(-1)).toMatchObject({ type: 'finish' });
    expect(anthropic.received).toHaveLength(2);
  });
});

describe('quota: the account has no credit', () => {
  test('OpenAI 429 insufficient_quota is not retried (one request) and is not retryable', async () => {
    const body = {
      error: {
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'insufficient_quota',
        param: null,
        code: 'insufficient_quota',
      },
    };
    openaiFake.failNext(3, 429, body);
    const err = await failure(openaiAdapter.media!.start(image, openai.conn()));
    expect(err).toMatchObject({ kind: 'quota', upstreamStatus: 429, retryable: false });
    expect(openai.received).toHaveLength(1);
    openaiFake.failNext(0, 200, {});
  });

  test('a quota failure pauses the provider at once (admins told through the circuit event); a success lifts it', async () => {
    let now = 1_000_000;
    const gate = new ProviderGate({ concurrency: 2, failureThreshold: 5, cooldownMs: 30_000, quotaPauseMs: 600_000, now: () => now });
    const events: CircuitEvent[] = [];
    gate.onCircuitChange((e) => events.push(e));
    const quota = new ProviderError('quota', 'You exceeded your current quota', 'openai', 429);
    const openai = { provider: 'openai', index: 0 } as const;
    await expect(gate.attempt(openai, async () => Promise.reject(quota))).rejects.toBe(quota);
    expect(events).toEqual([expect.objectContaining({ provider: 'openai', connection: 0, state: 'open', cause: 'quota' })]);
    expect(() => gate.assertAvailable('openai', 'gpt-6.1-sol', [openai])).toThrow(/wait about 600 s/);
    expect(gate.isOpen({ provider: 'anthropic', index: 0 })).toBe(false);

    // Another failure meanwhile says nothing about the credit: still paused. After the pause, a trial success lifts it.
    gate.observe(openai, new ProviderError('bad_request', 'x', 'openai', 400));
    expect(gate.isOpen(openai)).toBe(true);
    now += 600_001;
    expect(gate.isOpen(openai)).toBe(false);
    await gate.attempt(openai, async () => 'ok');
    expect(events.at(-1)).toMatchObject({ state: 'closed' });
  });
});

describe('fault tables: documented error bodies → our kinds', () => {
  const cases: [ProviderName, number, unknown, ProviderErrorKind][] = [
    ['openai', 429, { error: { type: 'insufficient_quota', code: 'insufficient_quota' } }, 'quota'],
    ['openai', 429, { error: { type: 'insufficient_quota', code: 'credit_balance_exhausted' } }, 'quota'],
    ['openai', 429, { error: { type: 'requests', code: 'rate_limit_exceeded' } }, 'rate_limited'],
    ['openai', 503, { error: { type: 'server_error', code: null } }, 'overloaded'],
    ['openai', 500, { error: { type: 'server_error', code: null } }, 'upstream'],
    ['openai', 400, { error: { type: 'invalid_request_error', code: 'content_policy_violation', message: 'rejected' } }, 'content_policy'],
    ['openai', 400, { error: { type: 'image_generation_user_error', code: 'moderation_blocked' } }, 'content_policy'],
    ['openai', 401, { error: { code: 'invalid_api_key' } }, 'auth'],
    ['openai', 400, { error: { code: null, message: 'Invalid size' } }, 'bad_request'],
    ['anthropic', 529, { type: 'error', error: { type: 'overloaded_error' } }, 'overloaded'],
    ['anthropic', 429, { type: 'error', error: { type: 'rate_limit_error' } }, 'rate_limited'],
    [
      'anthropic',
      429,
      { type: 'error', error: { type: 'rate_limit_error', details: { error_code: 'enforced_spend_limit_reached' } } },
      'quota',
    ],
    ['anthropic', 402, { type: 'error', error: { type: 'billing_error' } }, 'quota'],
    ['anthropic', 500, { type: 'error', error: { type: 'api_error' } }, 'upstream'],
    ['anthropic', 504, { type: 'error', error: { type: 'timeout_error' } }, 'timeout'],
    ['anthropic', 403, { type: 'error', error: { type: 'permission_error' } }, 'auth'],
    ['google', 429, { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } }, 'rate_limited'],
    ['google', 503, { error: { code: 503, status: 'UNAVAILABLE' } }, 'overloaded'],
    [
      'google',
      400,
      { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'API key not valid. Please pass a valid API key.' } },
      'auth',
    ],
    [
      'google',
      400,
      {
        error: {
          code: 400,
          status: 'FAILED_PRECONDITION',
          message: 'Gemini API free tier is not available in your country. Please enable billing on your project in Google AI Studio.',
        },
      },
      'quota',
    ],
    ['google', 404, { error: { code: 404, status: 'NOT_FOUND', message: 'models/x is not found' } }, 'bad_request'],
    ['xai', 400, { code: 'Client specified an invalid argument', error: 'Incorrect API key provided: xa***' }, 'auth'],
    ['xai', 403, { code: 'The caller does not have permission', error: 'Your team does not have any credits yet.' }, 'quota'],
    ['deepseek', 402, { error: { message: 'Insufficient Balance', type: 'unknown_error' } }, 'quota'],
    ['deepseek', 503, { error: { message: 'Server Overloaded' } }, 'overloaded'],
    ['deepseek', 422, { error: { message: 'Invalid Parameters' } }, 'bad_request'],
    ['bfl', 402, { detail: 'Insufficient credits' }, 'quota'],
    ['bfl', 429, { detail: 'Too many active tasks' }, 'rate_limited'],
    ['replicate', 402, { title: 'Payment Required', detail: 'You have reached the free time limit.' }, 'quota'],
    [
      'replicate',
      429,
      { title: 'Request was throttled.', detail: 'Request was throttled. Expected available in 1 second.' },
      'rate_limited',
    ],
    ['replicate', 422, { title: 'Input validation failed', detail: '- input.prompt: Invalid type' }, 'bad_request'],
    ['elevenlabs', 401, { detail: { status: 'quota_exceeded', message: 'This request exceeds your quota.' } }, 'quota'],
    ['elevenlabs', 401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } }, 'auth'],
    ['elevenlabs', 429, { detail: { status: 'too_many_concurrent_requests' } }, 'rate_limited'],
    ['elevenlabs', 429, { detail: { status: 'system_busy' } }, 'overloaded'],
    ['elevenlabs', 400, { detail: { code: 'bad_prompt', message: 'The prompt violates our Terms' } }, 'content_policy'],
  ];
  test.each(cases)('%s %i %j → %s', (provider, status, body, kind) => {
    const message = JSON.stringify(body);
    expect(providerAdapters[provider].faults({ status, body, message })).toBe(kind);
  });
});

describe('retry timing inputs', () => {
  test('retry-after in seconds, as a date, and retry-after-ms; Google RetryInfo in the body', () => {
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after-ms': '250', 'retry-after': '3' }))).toBe(250);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4_000)).toBe(6_000);
    expect(retryAfterFromHeaders(new Headers())).toBeUndefined();
    const google = { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '37s' }] } };
    expect(retryAfterFromBody(google)).toBe(37_000);
  });

  test('backoff is exponential with jitter between half and one and a half steps, capped', () => {
    expect(backoffMs(1, false, () => 0)).toBe(250);
    expect(backoffMs(1, false, () => 0.999)).toBeLessThanOrEqual(750);
    expect(backoffMs(3, false, () => 0.5)).toBe(2000);
    expect(backoffMs(20, false, () => 0.5)).toBe(8000);
  });
});
