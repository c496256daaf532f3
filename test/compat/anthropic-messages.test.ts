import Anthropic from '@anthropic-ai/sdk';
import { zodOutputFormat } from '@anthropic-ai/sdk/helpers/zod';
import { z } from 'zod';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import type { ProviderName } from '../../src/core/providers/types';
import { GenerationEntity } from '../../src/db/entities';
import { hostFile } from '../../src/sandbox/chat-completions-fake';
import { ApiHarness, avoidWindowEdge, startApi } from '../api/harness';
import { pngDataUri, textModel } from './models';

// The official `@anthropic-ai/sdk` drives POST /v1/messages unchanged, on a Claude model and on models of other
// vendors: the same accounts, keys, limits, hold and ledger as /v1/chat/completions.

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

async function client(tokens = 500, plan: 'vip' | 'basic' = 'vip'): Promise<{ anthropic: Anthropic; userId: number; key: string }> {
  const acc = await api.account(plan, { planTokens: tokens, bonusTokens: 0 });
  const key = await api.apiKey(acc);
  return { anthropic: new Anthropic({ apiKey: key, baseURL: api.baseUrl, maxRetries: 0 }), userId: acc.user.id, key };
}

async function expectChargedOnce(userId: number, before: number, spent: number) {
  const b = await getBalance(api.db.dataSource, userId);
  expect(b.total).toBe(before - spent);
  expect(await ledgerTotals(api.db.dataSource, userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
  const generations = await api.db.dataSource.getRepository(GenerationEntity).findBy({ userId });
  expect(generations.map((g) => [g.status, g.tokensSpent])).toEqual([['completed', spent]]);
}

const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

type Service = { service: { tokens_spent: number; balance: number } };

const MODELS: [string, ProviderName][] = [
  ['a Claude model', 'anthropic'],
  ['an OpenAI model', 'openai'],
];

describe.each(MODELS)('messages on %s', (_label, provider) => {
  const model = textModel(provider).slug;

  test('messages.create: text, usage, end_turn, X-Token-Balance; charged once', async () => {
    const { anthropic, userId } = await client(500);
    const { data, response } = await anthropic.messages
      .create({ model, max_tokens: 200, system: 'Be brief.', messages: [{ role: 'user', content: 'Hello from the SDK' }] })
      .withResponse();
    expect(data).toMatchObject({ type: 'message', role: 'assistant', model, stop_reason: 'end_turn', stop_sequence: null });
    expect(data.id).toMatch(/^msg_/);
    expect(data.content).toEqual([{ type: 'text', text: expect.stringMatching(/Hello from the SDK/) }]);
    expect(data.usage.input_tokens).toBeGreaterThan(0);
    expect(data.usage.output_tokens).toBeGreaterThan(0);
    const spent = (data as unknown as Service).service.tokens_spent;
    expect(spent).toBeGreaterThan(0);
    expect(Number(response.headers.get('x-token-balance'))).toBe(500 - spent);
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    await expectChargedOnce(userId, 500, spent);
  });

  test('messages.stream: the documented event sequence, the final message with usage; charged once', async () => {
    const { anthropic, userId } = await client(500);
    const stream = anthropic.messages.stream({ model, max_tokens: 200, messages: [{ role: 'user', content: 'Stream to me please' }] });
    const types: string[] = [];
    let text = '';
    stream.on('streamEvent', (ev) => types.push(ev.type));
    stream.on('text', (delta) => (text += delta));
    const final = await stream.finalMessage();
    // The SDK drops `ping` (the raw sequence is checked in the Claude Code test below).
    expect(types[0]).toBe('message_start');
    expect(types[1]).toBe('content_block_start');
    expect(types.filter((t) => t === 'content_block_delta').length).toBeGreaterThanOrEqual(1);
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text })]);
    expect(text).toMatch(/Stream to me please/);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    const [generation] = await api.db.dataSource.getRepository(GenerationEntity).findBy({ userId });
    await expectChargedOnce(userId, 500, generation.tokensSpent);
  });

  test('a tool round trip: tool_use, then the answer from the tool_result (created, then streamed)', async () => {
    const { anthropic } = await client(500);
    const question: Anthropic.MessageParam = { role: 'user', content: 'What is the weather in Paris?' };
    const first = await anthropic.messages.create({ model, max_tokens: 200, tools: [weatherTool], messages: [question] });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    expect(use).toMatchObject({ type: 'tool_use', id: expect.any(String), name: 'get_weather', input: { city: expect.any(String) } });

    const answer = anthropic.messages.stream({
      model,
      max_tokens: 200,
      tools: [weatherTool],
      messages: [
        question,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '{"temp_c": 21, "sky": "clear"}' }] },
      ],
    });
    const done = await answer.finalMessage();
    expect(done.stop_reason).toBe('end_turn');
    expect(done.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/get_weather.*temp_c/) });
  });

  test('a streamed tool call arrives as tool_use with input_json_delta fragments', async () => {
    const { anthropic } = await client(500);
    const stream = anthropic.messages.stream({
      model,
      max_tokens: 200,
      tools: [weatherTool],
      tool_choice: { type: 'tool', name: 'get_weather' },
      messages: [{ role: 'user', content: 'Weather in Oslo' }],
    });
    const deltas: string[] = [];
    stream.on('streamEvent', (ev) => {
      if (ev.type === 'content_block_delta') deltas.push(ev.delta.type);
    });
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(deltas).toContain('input_json_delta');
    const use = final.content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock;
    expect(use).toMatchObject({ name: 'get_weather', input: { city: expect.any(String) } });
  });
});

test('an image block (base64) goes to a vision model of each vendor', async () => {
  const { anthropic } = await client(500);
  const data = (await pngDataUri()).split(',')[1];
  for (const provider of ['anthropic', 'openai', 'google'] as ProviderName[]) {
    const model = textModel(provider, { vision: true }).slug;
    const res = await anthropic.messages.create({
      model,
      max_tokens: 100,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
            { type: 'text', text: 'What is in this picture?' },
          ],
        },
      ],
    });
    expect([model, res.content[0]]).toEqual([model, expect.objectContaining({ text: expect.stringMatching(/1 image/) })]);
  }
});

test('count_tokens: the prompt size, more with tools; nothing held or charged', async () => {
  const { anthropic, userId } = await client(50);
  const model = textModel('anthropic').slug;
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'How many tokens is this sentence?' }];
  const bare = await anthropic.messages.countTokens({ model, messages });
  expect(bare.input_tokens).toBeGreaterThan(0);
  const withTools = await anthropic.messages.countTokens({ model, messages, tools: [weatherTool], system: 'Be brief.' });
  expect(withTools.input_tokens).toBeGreaterThan(bare.input_tokens);
  expect((await getBalance(api.db.dataSource, userId)).total).toBe(50);
  expect(await api.db.dataSource.getRepository(GenerationEntity).countBy({ userId })).toBe(0);
  const missing = await anthropic.messages.countTokens({ model: 'no-such-model', messages }).catch((e) => e);
  expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
  expect(missing.error).toEqual({ type: 'error', error: { type: 'not_found_error', message: expect.any(String) } });
});

describe("errors in Anthropic's shape", () => {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'hi' }];

  test('402 billing_error when the balance cannot cover the hold', async () => {
    const { anthropic } = await client(0);
    const err = await anthropic.messages.create({ model: textModel('anthropic').slug, max_tokens: 100, messages }).catch((e) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err.status).toBe(402);
    expect(err.error).toEqual({ type: 'error', error: { type: 'billing_error', message: expect.any(String) } });
  });

  test('429 rate_limit_error once the hourly limit is reached', async () => {
    await avoidWindowEdge(3600, 10);
    const { anthropic } = await client(500);
    await api.db.dataSource.query(`UPDATE plans SET rate_limit_hourly = 1 WHERE slug = 'vip'`);
    api.services.plans.invalidate();
    try {
      const model = textModel('openai').slug;
      await anthropic.messages.create({ model, max_tokens: 50, messages });
      const err = await anthropic.messages.create({ model, max_tokens: 50, messages }).catch((e) => e);
      expect(err).toBeInstanceOf(Anthropic.RateLimitError);
      expect(err.error).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: expect.any(String) } });
      expect(err.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await api.db.dataSource.query(`UPDATE plans SET rate_limit_hourly = 100 WHERE slug = 'vip'`);
      api.services.plans.invalidate();
    }
  });

  test('401, 403, 404 and 400 with their Anthropic types', async () => {
    const model = textModel('anthropic').slug;
    const stranger = new Anthropic({ apiKey: 'nb_' + 'x'.repeat(45), baseURL: api.baseUrl, maxRetries: 0 });
    const unauth = await stranger.messages.create({ model, max_tokens: 10, messages }).catch((e) => e);
    expect(unauth).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(unauth.error.error.type).toBe('authentication_error');

    const { anthropic: basic } = await client(100, 'basic');
    const denied = await basic.messages.create({ model, max_tokens: 10, messages }).catch((e) => e);
    expect(denied).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(denied.error.error.type).toBe('permission_error');

    const { anthropic } = await client(100);
    const missing = await anthropic.messages.create({ model: 'no-such-model', max_tokens: 10, messages }).catch((e) => e);
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    expect(missing.error.error.type).toBe('not_found_error');

    const noMax = await anthropic.messages
      .create({ model, messages } as unknown as Anthropic.MessageCreateParamsNonStreaming)
      .catch((e) => e);
    expect(noMax).toBeInstanceOf(Anthropic.BadRequestError);
    expect(noMax.error.error).toEqual({ type: 'invalid_request_error', message: expect.stringMatching(/max_tokens/) });

    const unknownBlock = await anthropic.messages
      .create({
        model,
        max_tokens: 10,
        messages: [{ role: 'user', content: [{ type: 'hologram', data: 'x' }] }],
      } as unknown as Anthropic.MessageCreateParamsNonStreaming)
      .catch((e) => e);
    expect(unknownBlock).toBeInstanceOf(Anthropic.BadRequestError);
    expect(unknownBlock.error.error.message).toMatch(/messages\.0\.content\.0\.type.*"hologram"/);

    const extra = await anthropic.messages
      .create({ model, max_tokens: 10, messages, top_q: 5 } as unknown as Anthropic.MessageCreateParamsNonStreaming)
      .catch((e) => e);
    expect(extra.error.error.message).toMatch(/top_q/);
  });

  test('a vendor failure mid-stream is an error event; nothing is charged', async () => {
    const { anthropic, userId } = await client(100);
    const stream = anthropic.messages.stream({
      model: textModel('openai').slug,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'a long answer please [[fail:midstream]]' }],
    });
    const err = await stream.finalMessage().catch((e) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((await getBalance(api.db.dataSource, userId)).total).toBe(100);
  });
});

test("Claude Code's request: ANTHROPIC_BASE_URL, ?beta=true, beta header, cached system blocks, tools, metadata, stream", async () => {
  const { key, userId } = await client(500);
  const res = await fetch(`${api.baseUrl}/v1/messages?beta=true`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': key,
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14',
      'anthropic-dangerous-direct-browser-access': 'true',
      'x-app': 'cli',
      'user-agent': 'claude-cli/2.0.0 (external, cli)',
    },
    body: JSON.stringify({
      model: textModel('anthropic').slug,
      max_tokens: 32000,
      stream: true,
      temperature: 1,
      metadata: { user_id: 'user_abc_account__session_123' },
      thinking: { type: 'enabled', budget_tokens: 31999 },
      context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
      system: [
        { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' } },
        {
          type: 'text',
          text: 'You are an interactive CLI tool that helps users with software engineering tasks.',
          cache_control: { type: 'ephemeral' },
        },
      ],
      tools: [
        {
          name: 'Bash',
          description: 'Executes a given bash command',
          input_schema: {
            $schema: 'http://json-schema.org/draft-07/schema#',
            type: 'object',
            properties: { command: { type: 'string', description: 'The command to execute' } },
            required: ['command'],
            additionalProperties: false,
          },
        },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>As you answer, use the context.</system-reminder>' },
            { type: 'text', text: 'list the files here', cache_control: { type: 'ephemeral' } },
          ],
        },
      ],
    }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const frames = (await res.text()).split('\n\n').filter(Boolean);
  const events = frames.map((f) => {
    const [eventLine, dataLine] = f.split('\n');
    return { event: eventLine.replace('event: ', ''), data: JSON.parse(dataLine.replace('data: ', '')) };
  });
  expect(events.every((e) => e.event === e.data.type)).toBe(true);
  expect(events.slice(0, 3).map((e) => e.event)).toEqual(['message_start', 'content_block_start', 'ping']);
  expect(events.slice(-2).map((e) => e.event)).toEqual(['message_delta', 'message_stop']);
  // Between them, each content block: its start, its deltas, its stop, at its own index.
  const blocks = new Map<number, { start: any; deltas: any[]; stopped: boolean }>();
  for (const e of events.slice(1, -2).filter((x) => x.event !== 'ping')) {
    const index: number = e.data.index;
    if (e.event === 'content_block_start') {
      expect([...blocks.values()].every((b) => b.stopped)).toBe(true);
      expect(index).toBe(blocks.size);
      blocks.set(index, { start: e.data.content_block, deltas: [], stopped: false });
    } else if (e.event === 'content_block_delta') blocks.get(index)!.deltas.push(e.data.delta);
    else {
      expect(e.event).toBe('content_block_stop');
      blocks.get(index)!.stopped = true;
    }
  }
  expect([...blocks.values()].every((b) => b.stopped)).toBe(true);
  const bash = [...blocks.values()].find((b) => b.start.type === 'tool_use')!;
  expect(bash.start).toMatchObject({ type: 'tool_use', id: expect.any(String), name: 'Bash', input: {} });
  expect(bash.deltas.every((d) => d.type === 'input_json_delta')).toBe(true);
  expect(JSON.parse(bash.deltas.map((d) => d.partial_json).join(''))).toEqual({ command: expect.any(String) });
  expect(events.at(-2)!.data.delta.stop_reason).toBe('tool_use');
  const generation = await api.db.dataSource.getRepository(GenerationEntity).findOneByOrFail({ userId });
  expect(generation.params).toMatchObject({ user: 'user_abc_account__session_123', tools: ['Bash'] });
});

test('an image url is fetched through the SSRF policy; a private address is refused naming the block', async () => {
  const { anthropic } = await client(500);
  const png = Buffer.from((await pngDataUri()).split(',')[1], 'base64');
  const url = `${api.sandbox.mountUrl('openai')}/v1/sandbox-files/${hostFile(png, 'image/png')}`;
  const model = textModel('anthropic', { vision: true }).slug;
  const image = (u: string): Anthropic.MessageParam => ({
    role: 'user',
    content: [
      { type: 'text', text: 'Describe' },
      { type: 'image', source: { type: 'url', url: u } },
    ],
  });
  const res = await anthropic.messages.create({ model, max_tokens: 100, messages: [image(url)] });
  expect(res.content[0]).toMatchObject({ text: expect.stringMatching(/1 image/) });
  const refused = await anthropic.messages
    .create({ model, max_tokens: 100, system: 'x', messages: [image('http://169.254.169.254/latest/meta-data/x.png')] })
    .catch((e) => e);
  expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
  expect(refused.error.error).toEqual({
    type: 'invalid_request_error',
    message: expect.stringContaining('messages.0.content.1.source.url'),
  });
});

test('output_config.format: messages.parse with a zod schema returns the parsed object', async () => {
  const { anthropic } = await client(500);
  const City = z.object({ name: z.string(), population: z.number().int() });
  for (const model of [textModel('openai').slug]) {
    const res = await anthropic.messages.parse({
      model,
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Give me a city' }],
      output_config: { format: zodOutputFormat(City) },
    });
    expect([model, res.parsed_output]).toEqual([model, { name: expect.any(String), population: expect.any(Number) }]);
  }
});

test('a refused parameter is named as the Messages API calls it', async () => {
  const { anthropic } = await client(500);
  // DeepSeek writes JSON but takes no schema for it.
  const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
  const err = await anthropic.messages
    .create({
      model: 'deepseek-v4-flash',
      max_tokens: 50,
      output_config: { format: { type: 'json_schema', schema } },
      messages: [{ role: 'user', content: 'hi' }],
    })
    .catch((e) => e);
  expect(err).toBeInstanceOf(Anthropic.BadRequestError);
  expect(err.error.error.message).toMatch(/^output_config\.format /);
});
