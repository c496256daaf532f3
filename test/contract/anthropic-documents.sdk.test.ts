import Anthropic from '@anthropic-ai/sdk';
import { createAnthropicSandbox } from '../../src/sandbox/anthropic';
import { useFake } from './sandbox';

// The official `@anthropic-ai/sdk` against the Anthropic fake's sampling and grounding inputs (issue 35): `top_k`,
// `document` blocks in each documented source (base64 PDF, plain text, content blocks, URL) and `search_result`
// blocks, in a message and in a tool result, each checked the way the Messages API checks it.

const fake = useFake('anthropic', createAnthropicSandbox({ streamDelayMs: 0 }));
const client = () => new Anthropic({ apiKey: 'sk-ant-contract', baseURL: fake.mount(), maxRetries: 0 });
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const base = { model: 'claude-haiku-4-5', max_tokens: 2048 };

const refusal = async (params: Record<string, unknown>): Promise<string> => {
  const err = (await client()
    .messages.create({ ...base, ...params } as unknown as Anthropic.MessageCreateParamsNonStreaming)
    .catch((e: unknown) => e)) as InstanceType<typeof Anthropic.BadRequestError>;
  expect(err).toBeInstanceOf(Anthropic.BadRequestError);
  return (err.error as { error: { message: string } }).error.message;
};

const text = (m: Anthropic.Message) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');

test('top_k is taken; a negative one and top_k with extended thinking are refused', async () => {
  // The SDK's types no longer list top_k; the API still documents and takes it.
  const params = { ...base, top_k: 5, messages: [{ role: 'user', content: 'hi' }] } as Anthropic.MessageCreateParamsNonStreaming;
  const m = await client().messages.create(params);
  expect(text(m)).toMatch(/hi/);
  expect(await refusal({ top_k: -1, messages: [{ role: 'user', content: 'hi' }] })).toMatch(/top_k/);
  expect(
    await refusal({ top_k: 5, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'hi' }] }),
  ).toMatch(/top_k/);
});

test('document blocks in every documented source are read', async () => {
  const documents: Anthropic.DocumentBlockParam[] = [
    { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') }, title: 'Report' },
    { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'The grass is green.' }, citations: { enabled: true } },
    { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'Chunk one.' }] }, context: 'A handbook' },
    { type: 'document', source: { type: 'url', url: 'https://example.com/paper.pdf' } },
  ];
  const m = await client().messages.create({
    ...base,
    messages: [{ role: 'user', content: [...documents, { type: 'text', text: 'Summarise these' }] }],
  });
  expect(text(m)).toMatch(/with 4 documents/);
});

test('search_result blocks in a message and in a tool result are read', async () => {
  const result: Anthropic.SearchResultBlockParam = {
    type: 'search_result',
    source: 'https://example.com/otters',
    title: 'Otters',
    content: [{ type: 'text', text: 'Otters hold hands while sleeping.' }],
    citations: { enabled: true },
  };
  const inMessage = await client().messages.create({
    ...base,
    messages: [{ role: 'user', content: [result, { type: 'text', text: 'What do otters do?' }] }],
  });
  expect(text(inMessage)).toMatch(/with 1 search result/);

  const tools: Anthropic.Tool[] = [{ name: 'search', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }];
  const inToolResult = await client().messages.create({
    ...base,
    tools,
    messages: [
      { role: 'user', content: 'Search otters' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'otters' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [result] }] },
    ],
  });
  expect(text(inToolResult)).toMatch(/search result: Otters/);
});

test('malformed documents and search results are refused as the API refuses them', async () => {
  const one = (block: Record<string, unknown>) => ({ messages: [{ role: 'user', content: [block, { type: 'text', text: 'x' }] }] });
  expect(await refusal(one({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'bm90IGEgcGRm' } }))).toMatch(
    /PDF specified was not valid/,
  );
  expect(await refusal(one({ type: 'document', source: { type: 'text', media_type: 'text/markdown', data: '# x' } }))).toMatch(
    /media_type/,
  );
  expect(await refusal(one({ type: 'document', source: { type: 'url', url: 'not a url' } }))).toMatch(/valid URL/);
  expect(await refusal(one({ type: 'search_result', source: 'https://example.com', content: [] }))).toMatch(/title/);
  expect(await refusal(one({ type: 'search_result', source: 'x', title: 't', content: [{ type: 'image' }] }))).toMatch(/text block/);
});
