import Anthropic from '@anthropic-ai/sdk';
import { anthropicSandbox } from '../../src/sandbox/anthropic';
import { googleSandbox } from '../../src/sandbox/google';
import type { SandboxHandler } from '../../src/sandbox/types';
import { ApiHarness, startApi } from '../api/harness';

// Issue 35: Anthropic's `top_k`, `document` and `search_result` blocks reach Claude models as they were sent, through
// /v1/messages with the official SDK; other vendors get the documents' text (a PDF as a document part) and the
// top_k their API has (Gemini), or ignore it by name.

const seen: { vendor: string; body: Record<string, unknown> }[] = [];
const watch =
  (vendor: string, handler: SandboxHandler): SandboxHandler =>
  (req, res) => {
    if (req.method === 'POST') seen.push({ vendor, body: JSON.parse(req.body.toString('utf8')) as Record<string, unknown> });
    return handler(req, res);
  };

let api: ApiHarness;
let anthropic: Anthropic;
beforeAll(async () => {
  api = await startApi({}, { handlers: { anthropic: watch('anthropic', anthropicSandbox), google: watch('google', googleSandbox) } });
  const key = await api.apiKey(await api.account('vip', { planTokens: 5000 }));
  anthropic = new Anthropic({ apiKey: key, baseURL: api.baseUrl, maxRetries: 0 });
});
afterAll(() => api.close());
beforeEach(() => void (seen.length = 0));

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const text = (m: Anthropic.Message) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
const result: Anthropic.SearchResultBlockParam = {
  type: 'search_result',
  source: 'https://example.com/otters',
  title: 'Otters',
  content: [{ type: 'text', text: 'Otters hold hands while sleeping.' }],
  citations: { enabled: true },
};
const documents: Anthropic.DocumentBlockParam[] = [
  { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') }, title: 'Report' },
  { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'The grass is green.' }, context: 'Botany notes' },
];

test('documents, a search result and top_k reach Claude unchanged', async () => {
  const m = await anthropic.messages.create({
    model: 'claude-haiku-4-5',
    max_tokens: 500,
    top_k: 3,
    messages: [{ role: 'user', content: [...documents, result, { type: 'text', text: 'Summarise' }] }],
  } as Anthropic.MessageCreateParamsNonStreaming);
  expect(text(m)).toMatch(/with 2 documents and 1 search result/);
  const sent = seen[0].body as { top_k: number; messages: { content: unknown[] }[] };
  expect(sent.top_k).toBe(3);
  expect(sent.messages[0].content.slice(0, 3)).toEqual([
    { type: 'document', source: documents[0].source, title: 'Report' },
    { type: 'document', source: documents[1].source, context: 'Botany notes' },
    result,
  ]);
});

test('a search result a tool answered with reaches Claude inside the tool result', async () => {
  const m = await anthropic.messages.create({
    model: 'claude-haiku-4-5',
    max_tokens: 500,
    tools: [{ name: 'search', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }],
    messages: [
      { role: 'user', content: 'Search otters' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'otters' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [result] }] },
    ],
  });
  expect(text(m)).toMatch(/search result: Otters/);
  const sent = seen[0].body as { messages: { content: { type: string; content?: unknown }[] }[] };
  expect(sent.messages[2].content[0]).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: [result] });
});

test('on Gemini: the text document and the search result as text, the PDF as a document part, top_k as topK', async () => {
  const m = await anthropic.messages.create({
    model: 'gemini-3.5-flash',
    max_tokens: 500,
    top_k: 3,
    messages: [{ role: 'user', content: [...documents, result, { type: 'text', text: 'Summarise' }] }],
  } as Anthropic.MessageCreateParamsNonStreaming);
  expect(text(m).length).toBeGreaterThan(0);
  const sent = seen[0].body as { contents: { parts: Record<string, unknown>[] }[]; generationConfig: Record<string, unknown> };
  expect(sent.generationConfig.topK).toBe(3);
  const parts = sent.contents[0].parts;
  expect(parts[0]).toEqual({ inline_data: { mime_type: 'application/pdf', data: PDF.toString('base64') } });
  expect(parts[1]).toEqual({ text: 'Document:\nBotany notes\nThe grass is green.' });
  expect(parts[2]).toEqual({ text: 'Search result: Otters (https://example.com/otters)\nOtters hold hands while sleeping.' });
});

test('a document by URL: fetched by Claude; refused by name on a model that cannot read it', async () => {
  const byUrl: Anthropic.DocumentBlockParam = { type: 'document', source: { type: 'url', url: 'https://example.com/paper.pdf' } };
  const ok = await anthropic.messages.create({
    model: 'claude-haiku-4-5',
    max_tokens: 500,
    messages: [{ role: 'user', content: [byUrl, { type: 'text', text: 'Summarise' }] }],
  });
  expect(text(ok)).toMatch(/with 1 document/);
  const err = await anthropic.messages
    .create({ model: 'gemini-3.5-flash', max_tokens: 500, messages: [{ role: 'user', content: [byUrl, { type: 'text', text: 'x' }] }] })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(Anthropic.BadRequestError);
  expect((err as InstanceType<typeof Anthropic.BadRequestError>).message).toMatch(/messages\.0\.content\.0.*URL/);
});

test('top_k on OpenAI, which has none: ignored and named', async () => {
  const { response } = await anthropic.messages
    .create({
      model: 'gpt-6-luna',
      max_tokens: 200,
      top_k: 3,
      messages: [{ role: 'user', content: 'hi' }],
    } as Anthropic.MessageCreateParamsNonStreaming)
    .withResponse();
  expect(response.headers.get('x-ignored-parameters')).toBe('top_k');
});
