import OpenAI from 'openai';
import { createOpenAiSandbox } from '../../src/sandbox/openai';
import { useFake } from './sandbox';

// The official `openai` SDK as the client of the OpenAI fake, for what wave 3 taught it (issue 26):
// reasoning_effort per model, the labels and their documented limits, and PDF documents as `file` parts.

// gpt-4o (the one model here without reasoning) answers until its shutdown, 2027-01-14: the fake is pinned to the day
// of the catalog refresh.
const fake = useFake('openai', createOpenAiSandbox({ chunkDelayMs: 0, now: () => new Date('2026-11-27T12:00:00Z') }));
const client = () => new OpenAI({ apiKey: 'sk-contract', baseURL: `${fake.mount()}/v1`, maxRetries: 0 });
const ask = (extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> & { model: string }) =>
  client().chat.completions.create({ messages: [{ role: 'user', content: 'Why is the sky blue?' }], ...extra });

async function refusal(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const err = await promise.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  return err as InstanceType<typeof OpenAI.APIError>;
}

test('reasoning_effort: more effort, more reasoning tokens in completion_tokens_details; none on gpt-5.6-luna thinks not at all', async () => {
  const tokens = async (model: string, effort: string) =>
    (await ask({ model, reasoning_effort: effort as OpenAI.ReasoningEffort })).usage!.completion_tokens_details!.reasoning_tokens!;
  const [none, low, high] = [
    await tokens('gpt-5.6-luna', 'none'),
    await tokens('gpt-5.6-luna', 'low'),
    await tokens('gpt-5.6-luna', 'high'),
  ];
  expect(none).toBe(0);
  expect(low).toBeGreaterThan(0);
  expect(high).toBeGreaterThan(low);
  expect(await tokens('gpt-6.1-sol', 'high')).toBeGreaterThan(await tokens('gpt-6.1-sol', 'low'));
});

test('reasoning_effort: a value the model lacks and a model without reasoning are refused as the API refuses them', async () => {
  const none = await refusal(ask({ model: 'gpt-6.1-sol', reasoning_effort: 'none' as OpenAI.ReasoningEffort }));
  expect([none.param, none.code]).toEqual(['reasoning_effort', 'unsupported_value']);
  expect(none.message).toMatch(/Supported values are: 'low', 'medium', 'high', 'xhigh', 'max'/);
  const plain = await refusal(ask({ model: 'gpt-4o', reasoning_effort: 'low' }));
  expect([plain.param, plain.code]).toEqual(['reasoning_effort', 'unsupported_parameter']);
});

test('labels: metadata, service_tier, store, user, prompt_cache_key and safety_identifier are taken', async () => {
  const res = await ask({
    model: 'gpt-6-luna',
    metadata: { team: 'search', run: '7' },
    service_tier: 'auto',
    store: false,
    user: 'end-user-7',
    prompt_cache_key: 'k1',
    safety_identifier: 'sid-7',
  });
  expect(res.choices[0].message.content!.length).toBeGreaterThan(0);
});

test('labels: the documented limits are enforced (16 metadata pairs of strings, the service tiers, string labels)', async () => {
  const pairs = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
  const tooMany = await refusal(ask({ model: 'gpt-6-luna', metadata: pairs }));
  expect([tooMany.param, tooMany.code]).toEqual(['metadata', 'invalid_value']);
  const notString = await refusal(ask({ model: 'gpt-6-luna', metadata: { n: 1 } as unknown as Record<string, string> }));
  expect(notString.param).toBe('metadata');
  const tier = await refusal(ask({ model: 'gpt-6-luna', service_tier: 'gold' as OpenAI.ChatCompletionCreateParams['service_tier'] }));
  expect([tier.param, tier.code]).toEqual(['service_tier', 'invalid_value']);
  expect(tier.message).toMatch(/Supported values are: 'auto', 'default', 'flex', 'scale', 'priority'/);
  const user = await refusal(ask({ model: 'gpt-6-luna', user: 7 as unknown as string }));
  expect([user.param, user.code]).toEqual(['user', 'invalid_type']);
});

test('file parts: a base64 PDF is read; other bytes, a file_id and a missing filename are refused', async () => {
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n').toString('base64');
  const withFile = (file: OpenAI.ChatCompletionContentPart.File.File) =>
    client().chat.completions.create({
      model: 'gpt-6-luna',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'file', file },
            { type: 'text', text: 'Summarise' },
          ],
        },
      ],
    });
  const read = await withFile({ file_data: `data:application/pdf;base64,${pdf}`, filename: 'report.pdf' });
  expect(read.choices[0].message.content).toMatch(/1 document/);
  const text = await refusal(withFile({ file_data: 'data:text/plain;base64,aGVsbG8=', filename: 'a.txt' }));
  expect(text.message).toMatch(/Expected a base64-encoded PDF data URL/);
  expect((await refusal(withFile({ file_id: 'file-abc' }))).message).toMatch(/file_id/);
  expect((await refusal(withFile({ file_data: `data:application/pdf;base64,${pdf}` }))).message).toMatch(/filename/);
});
