import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { requireModel } from '../../src/core/catalog/catalog';
import { priceChatUsage } from '../../src/core/catalog/pricing';
import { GenerationEntity } from '../../src/db/entities';
import { openaiSandbox } from '../../src/sandbox/openai';
import type { SandboxHandler } from '../../src/sandbox/types';
import { ApiHarness, startApi } from '../api/harness';

// Issue 35: a documented parameter is never refused. Sampling controls on a model without them are ignored and named
// in X-Ignored-Parameters on every surface; `n` > 1 and `logprobs` work where the vendor has them (billed per
// choice) and are refused by name where it has none; `verbosity` reaches OpenAI.

const seen: Record<string, unknown>[] = [];
let api: ApiHarness;
beforeAll(async () => {
  const watched: SandboxHandler = (req, res) => {
    if (req.path.endsWith('/chat/completions')) seen.push(JSON.parse(req.body.toString('utf8')) as Record<string, unknown>);
    return openaiSandbox(req, res);
  };
  api = await startApi({}, { handlers: { openai: watched } });
});
afterAll(() => api.close());
beforeEach(() => void (seen.length = 0));

async function client(tokens = 2000) {
  const acc = await api.account('vip', { planTokens: tokens, bonusTokens: 0 });
  const key = await api.apiKey(acc);
  return {
    userId: acc.user.id,
    key,
    openai: new OpenAI({ apiKey: key, baseURL: `${api.baseUrl}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: key, baseURL: api.baseUrl, maxRetries: 0 }),
  };
}

const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Say hello twice' }];

describe('sampling controls a model does not have are ignored and named', () => {
  test.each([
    [{ temperature: 0.2 }, 'temperature'],
    [{ top_p: 0.5 }, 'top_p'],
    [{ stop: ['END'] }, 'stop'],
    [{ presence_penalty: 0.5, frequency_penalty: 0.3 }, 'presence_penalty, frequency_penalty'],
  ])('chat completions on gpt-6-luna with %j: answered, X-Ignored-Parameters %s, nothing of it sent', async (params, named) => {
    const { openai } = await client();
    const { data, response } = await openai.chat.completions.create({ model: 'gpt-6-luna', messages, ...params }).withResponse();
    expect(data.choices[0].message.content).toMatch(/Say hello twice/);
    expect(response.headers.get('x-ignored-parameters')).toBe(named);
    for (const key of Object.keys(params)) expect(seen[0]).not.toHaveProperty(key);
  });

  test('responses on gpt-5.6-terra: temperature and top_p ignored and named', async () => {
    const { openai } = await client();
    const { data, response } = await openai.responses
      .create({ model: 'gpt-5.6-terra', input: 'hi', temperature: 0.3, top_p: 0.4 })
      .withResponse();
    expect(data.status).toBe('completed');
    expect(response.headers.get('x-ignored-parameters')).toBe('temperature, top_p');
  });

  test('messages on gpt-6-luna: temperature, top_p, top_k and stop_sequences ignored and named', async () => {
    const { anthropic } = await client();
    const { data, response } = await anthropic.messages
      .create({
        model: 'gpt-6-luna',
        max_tokens: 200,
        messages: [{ role: 'user', content: 'hi' }],
        temperature: 0.2,
        top_p: 0.5,
        top_k: 5,
        stop_sequences: ['END'],
      } as Anthropic.MessageCreateParamsNonStreaming)
      .withResponse();
    expect(data.content[0]).toMatchObject({ type: 'text' });
    expect(response.headers.get('x-ignored-parameters')).toBe('temperature, stop_sequences, top_p, top_k');
  });
});

describe('n > 1', () => {
  test('on OpenAI: n choices, each its own answer; usage and the charge cover them all', async () => {
    const { openai, userId } = await client();
    const one = await openai.chat.completions.create({ model: 'gpt-6-luna', messages });
    const res = await openai.chat.completions.create({ model: 'gpt-6-luna', messages, n: 3 });
    expect(seen[1]).toMatchObject({ n: 3 });
    expect(res.choices.map((c) => c.index)).toEqual([0, 1, 2]);
    expect(new Set(res.choices.map((c) => c.message.content)).size).toBe(3);
    for (const c of res.choices) expect(c.finish_reason).toBe('stop');
    expect(res.usage!.completion_tokens).toBeGreaterThan(2 * one.usage!.completion_tokens);
    // Billed on the vendor's count, which covers every choice.
    const rows = await api.db.dataSource.getRepository(GenerationEntity).find({ where: { userId }, order: { id: 'ASC' } });
    expect(rows[1].resultMetadata).toMatchObject({ completionTokens: res.usage!.completion_tokens });
    const usage = { promptTokens: res.usage!.prompt_tokens, completionTokens: res.usage!.completion_tokens };
    expect(rows[1].tokensSpent).toBe(priceChatUsage(requireModel('gpt-6-luna'), usage));
    const b = await getBalance(api.db.dataSource, userId);
    expect(await ledgerTotals(api.db.dataSource, userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
  });

  test('streamed: each choice under its index, each finished', async () => {
    const { openai } = await client();
    const stream = await openai.chat.completions.create({ model: 'gpt-6-luna', messages, n: 2, stream: true });
    const text = ['', ''];
    const finished: (string | null)[] = [null, null];
    for await (const chunk of stream) {
      for (const c of chunk.choices) {
        text[c.index] += c.delta.content ?? '';
        if (c.finish_reason) finished[c.index] = c.finish_reason;
      }
    }
    expect(text[0]).toMatch(/^Sandbox reply from/);
    expect(text[1]).toMatch(/^Sandbox reply #2 from/);
    expect(finished).toEqual(['stop', 'stop']);
  });

  test('on a vendor without it (Claude): 400 naming n', async () => {
    const { openai } = await client();
    const err = await openai.chat.completions.create({ model: 'claude-haiku-4-5', messages, n: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ param: 'n' });
  });
});

describe('logprobs', () => {
  test('on gpt-6-luna: the answer tokens with their alternatives; reasoning is switched off for them', async () => {
    const { openai } = await client();
    const res = await openai.chat.completions.create({ model: 'gpt-6-luna', messages, logprobs: true, top_logprobs: 2 });
    expect(seen[0]).toMatchObject({ logprobs: true, top_logprobs: 2, reasoning_effort: 'none' });
    const tokens = res.choices[0].logprobs!.content!;
    expect(tokens.map((t) => t.token).join('')).toBe(res.choices[0].message.content);
    for (const t of tokens) {
      expect(t.logprob).toBeLessThan(0);
      expect(t.top_logprobs).toHaveLength(2);
    }
  });

  test('streamed: each content chunk carries its tokens', async () => {
    const { openai } = await client();
    const stream = await openai.chat.completions.create({ model: 'gpt-6-luna', messages, logprobs: true, stream: true });
    let text = '';
    let tokens = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      tokens += (chunk.choices[0]?.logprobs?.content ?? []).map((t) => t.token).join('');
    }
    expect(tokens).toBe(text);
  });

  test('a reasoning effort gives way to logprobs (named ignored); a model that always reasons refuses them by name', async () => {
    const { openai } = await client();
    const { response } = await openai.chat.completions
      .create({ model: 'gpt-6-luna', messages, logprobs: true, reasoning_effort: 'high' })
      .withResponse();
    expect(response.headers.get('x-ignored-parameters')).toBe('reasoning_effort');
    const err = await openai.chat.completions.create({ model: 'gpt-6.1-sol', messages, logprobs: true }).catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ param: 'logprobs' });
    const alone = await openai.chat.completions.create({ model: 'gpt-6-luna', messages, top_logprobs: 2 }).catch((e: unknown) => e);
    expect((alone as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ param: 'top_logprobs' });
  });

  test('on DeepSeek V4 Flash (without thinking) too', async () => {
    const { openai } = await client();
    const res = await openai.chat.completions.create({ model: 'deepseek-v4-flash', messages, logprobs: true });
    expect(res.choices[0].logprobs!.content!.length).toBeGreaterThan(0);
  });
});

test('verbosity reaches OpenAI (chat completions), and is ignored and named on Claude', async () => {
  const { openai } = await client();
  await openai.chat.completions.create({ model: 'gpt-6-luna', messages, verbosity: 'low' });
  expect(seen[0]).toMatchObject({ verbosity: 'low' });
  const { response } = await openai.chat.completions.create({ model: 'claude-haiku-4-5', messages, verbosity: 'low' }).withResponse();
  expect(response.headers.get('x-ignored-parameters')).toBe('verbosity');
});
