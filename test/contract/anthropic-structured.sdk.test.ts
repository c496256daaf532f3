import Anthropic from '@anthropic-ai/sdk';
import { createAnthropicSandbox } from '../../src/sandbox/anthropic';
import { useFake } from './sandbox';

// The official `@anthropic-ai/sdk` against what the Anthropic fake learned for issue 26: structured outputs
// (output_config.format), extended thinking (thinking.budget_tokens and its constraints), PDF document blocks, and
// the Messages API's refusal of fields it does not define.

const fake = useFake('anthropic', createAnthropicSandbox({ streamDelayMs: 0 }));
const client = () => new Anthropic({ apiKey: 'sk-ant-contract', baseURL: fake.mount(), maxRetries: 0 });
const base = {
  model: 'claude-haiku-4-5',
  max_tokens: 4096,
  messages: [{ role: 'user' as const, content: 'Extract the city: Paris, 2.1M' }],
};
const citySchema = {
  type: 'object',
  properties: { name: { type: 'string' }, population: { type: 'integer' } },
  required: ['name', 'population'],
  additionalProperties: false,
};
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

const refusal = async (params: Record<string, unknown>): Promise<string> => {
  const err = (await client()
    .messages.create({ ...base, ...params } as unknown as Anthropic.MessageCreateParamsNonStreaming)
    .catch((e: unknown) => e)) as InstanceType<typeof Anthropic.BadRequestError>;
  expect(err).toBeInstanceOf(Anthropic.BadRequestError);
  return (err.error as { error: { message: string } }).error.message;
};

test('output_config.format: the text block is JSON of the schema; the SDK parse helper reads it', async () => {
  const m = await client().messages.create({ ...base, output_config: { format: { type: 'json_schema', schema: citySchema } } });
  const text = m.content.find((b) => b.type === 'text');
  expect(JSON.parse(text!.type === 'text' ? text!.text : '')).toEqual({ name: expect.any(String), population: expect.any(Number) });

  const streamed = await client()
    .messages.stream({ ...base, output_config: { format: { type: 'json_schema', schema: citySchema } } })
    .finalMessage();
  const block = streamed.content.find((b) => b.type === 'text');
  expect(JSON.parse(block!.type === 'text' ? block!.text : '')).toEqual({ name: expect.any(String), population: expect.any(Number) });
});

test('output_config.format: schemas outside the structured-outputs subset are refused', async () => {
  const open = { type: 'object', properties: { name: { type: 'string' } } };
  expect(await refusal({ output_config: { format: { type: 'json_schema', schema: open } } })).toMatch(/additionalProperties/);
  const bounded = { ...citySchema, properties: { ...citySchema.properties, population: { type: 'integer', minimum: 0 } } };
  expect(await refusal({ output_config: { format: { type: 'json_schema', schema: bounded } } })).toMatch(/minimum/);
  expect(await refusal({ output_config: { format: { type: 'json_object' } } })).toMatch(/output_config\.format\.type/);
});

test('thinking: a thinking block before the answer, in the response and the stream; output tokens include it', async () => {
  const plain = await client().messages.create(base);
  const m = await client().messages.create({ ...base, thinking: { type: 'enabled', budget_tokens: 2048 } });
  expect(m.content[0].type).toBe('thinking');
  expect(m.content[1].type).toBe('text');
  expect(m.usage.output_tokens).toBeGreaterThan(plain.usage.output_tokens);

  const thoughts: string[] = [];
  const stream = client().messages.stream({ ...base, thinking: { type: 'enabled', budget_tokens: 2048 } });
  stream.on('thinking', (t) => thoughts.push(t));
  const final = await stream.finalMessage();
  expect(thoughts.join('')).toMatch(/Sandbox thinking/);
  expect(final.content.map((b) => b.type)).toEqual(['thinking', 'text']);
});

test('thinking: the documented constraints are enforced', async () => {
  const on = { thinking: { type: 'enabled', budget_tokens: 2048 } };
  expect(await refusal({ thinking: { type: 'enabled', budget_tokens: 512 } })).toMatch(/greater than or equal to 1024/);
  expect(await refusal({ ...on, max_tokens: 2048 })).toMatch(/max_tokens/);
  expect(await refusal({ ...on, temperature: 0.3 })).toMatch(/temperature/);
  expect(await refusal({ ...on, top_p: 0.5 })).toMatch(/top_p/);
  const tools = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: {} } }];
  expect(await refusal({ ...on, tools, tool_choice: { type: 'tool', name: 'get_weather' } })).toMatch(/tool_choice/);
});

test('document blocks: a base64 PDF is read; anything else is refused', async () => {
  const withDoc = (data: string, media_type = 'application/pdf') => ({
    messages: [
      {
        role: 'user' as const,
        content: [
          { type: 'document' as const, source: { type: 'base64' as const, media_type, data } },
          { type: 'text' as const, text: 'Summarise' },
        ],
      },
    ],
  });
  const m = await client().messages.create({ ...base, ...withDoc(PDF.toString('base64')) } as Anthropic.MessageCreateParamsNonStreaming);
  expect(m.content[0].type === 'text' && m.content[0].text).toMatch(/with 1 document/);
  expect(await refusal(withDoc(Buffer.from('not a pdf').toString('base64')))).toMatch(/PDF/);
  expect(await refusal(withDoc(PDF.toString('base64'), 'text/plain'))).toMatch(/application\/pdf/);
});

test('fields the Messages API does not define are refused, metadata takes only user_id', async () => {
  expect(await refusal({ seed: 7 })).toMatch(/seed: Extra inputs are not permitted/);
  expect(await refusal({ metadata: { user_id: 'u1', tag: 'x' } })).toMatch(/metadata\.tag/);
  const ok = await client().messages.create({ ...base, metadata: { user_id: 'u1' } });
  expect(ok.type).toBe('message');
});
