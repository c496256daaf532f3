// Documents join the conversation: PDFs go to models that read them, else their text; text, Markdown, code and CSV
// as text. Caps (file size, pages, text) and unreadable files get a clear answer and cost nothing.
import { getBalance } from '../../src/core/billing/ledger';
import { sandboxHandlers } from '../../src/sandbox/handlers';
import type { SandboxHandler } from '../../src/sandbox/types';
import { makePdf } from '../support/pdf';
import { accountOf, BotHarness, generationsOf, press, startBotHarness } from './harness';
import type { TestUser } from './updates';

type Part = { type: string; text?: string; file?: { file_data?: string; filename?: string } };
interface UpstreamChat {
  model: string;
  messages: { role: string; content: string | Part[] }[];
}

const upstream: UpstreamChat[] = [];
const recording =
  (vendor: 'openai' | 'deepseek'): SandboxHandler =>
  (req, res) => {
    if (req.method === 'POST' && req.path.endsWith('/chat/completions'))
      upstream.push(JSON.parse(req.body.toString('utf8')) as UpstreamChat);
    return sandboxHandlers[vendor](req, res);
  };

let h: BotHarness;

beforeAll(async () => {
  h = await startBotHarness({
    handlers: { openai: recording('openai'), deepseek: recording('deepseek') },
    bot: { settings: { streamEditIntervalMs: 40, progressIntervalMs: 3_600_000, maxDocumentPages: 3, maxDocumentCharacters: 5_000 } },
  });
});
afterAll(() => h.close());

const REPORT = makePdf([['Quarterly report', 'Revenue grew 12% to 4.2 million'], ['Outlook: steady growth in the north']]);

function sendDocument(user: TestUser, data: Buffer, mime: string, name: string, caption?: string, ext = name.split('.').pop()!) {
  const file = h.telegram.addFile(data, 'documents', ext);
  return h.send(user.document(file, mime, name, caption));
}

function lastUserParts(): Part[] {
  const content = upstream.at(-1)!.messages.at(-1)!.content;
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

async function balance(user: TestUser): Promise<number> {
  return (await getBalance(h.engine.db.dataSource, (await accountOf(h, user.id)).id)).total;
}

test('a PDF joins the conversation; a model that reads PDFs gets the file itself with every question, until /new', async () => {
  const user = h.user(4_393_001);
  await h.send(user.text('/start'));
  await sendDocument(user, REPORT, 'application/pdf', 'report.pdf');
  expect(h.telegram.sentTexts(user.id).pop()).toMatch(/^📄 report\.pdf \(2 pages\) joined the conversation\..*about \d+ tokens/);
  // Joining costs nothing: no model was called.
  expect(await generationsOf(h, user.id)).toEqual([]);
  expect(await balance(user)).toBe(50);

  const before = upstream.length;
  await h.send(user.text('What grew?'));
  expect(upstream.length).toBe(before + 1);
  expect(upstream.at(-1)!.model).toBe('gpt-6-luna');
  const parts = lastUserParts();
  const file = parts.find((p) => p.type === 'file')!;
  expect(file.file?.filename).toBe('report.pdf');
  expect(Buffer.from(file.file!.file_data!.replace(/^data:application\/pdf;base64,/, ''), 'base64').equals(REPORT)).toBe(true);
  expect(parts.at(-1)).toEqual({ type: 'text', text: 'What grew?' });

  await h.send(user.text('And the outlook?'));
  expect(lastUserParts().some((p) => p.type === 'file')).toBe(true);
  await h.send(user.text('/new'));
  await h.send(user.text('Anything else?'));
  expect(lastUserParts()).toEqual([{ type: 'text', text: 'Anything else?' }]);
});

test('a model that does not read PDFs gets the text; Markdown and CSV join as text; the caption is the question', async () => {
  const user = h.user(4_393_002);
  await h.send(user.text('/chat'));
  await press(h, user, /^chat:m:deepseek-v4-flash$/);
  await sendDocument(user, REPORT, 'application/pdf', 'report.pdf');
  const notes = '# Notes\n\n- buy **milk**\n- call Ann';
  await sendDocument(user, Buffer.from(notes), 'text/markdown', 'notes.md', 'Summarise both');
  const call = upstream.at(-1)!;
  expect(call.model).toMatch(/deepseek/);
  // DeepSeek takes text only: the parts arrive as one text, the documents first, then the question.
  expect(lastUserParts().some((p) => p.type === 'file')).toBe(false);
  const text = lastUserParts()
    .map((p) => p.text ?? '')
    .join('\n');
  expect(text).toMatch(/^<document name="report\.pdf" pages="2">\n[\s\S]*Revenue grew 12% to 4\.2 million[\s\S]*<\/document>\n/);
  expect(text).toContain(`<document name="notes.md">\n${notes}\n</document>`);
  expect(text.endsWith('Summarise both')).toBe(true);

  // Input is priced as input: the question with the documents had a larger prompt than a bare one.
  await h.send(user.text('/new'));
  await h.send(user.text('Summarise both'));
  const [withDocs, bare] = (await generationsOf(h, user.id)).map((g) =>
    Number((g.resultMetadata as { promptTokens: number }).promptTokens),
  );
  expect(withDocs - bare).toBeGreaterThanOrEqual(Math.floor((notes.length + 60) / 4));
});

test('over a cap, or unreadable: a clear answer, and nothing is charged or sent to a model', async () => {
  const user = h.user(4_393_003);
  await h.send(user.text('/start'));
  const before = upstream.length;
  const answers: string[] = [];
  const answer = async (send: Promise<void>) => {
    await send;
    answers.push(h.telegram.sentTexts(user.id).pop()!);
  };
  await answer(sendDocument(user, makePdf([['1'], ['2'], ['3'], ['4']]), 'application/pdf', 'long.pdf', 'read it'));
  await answer(sendDocument(user, Buffer.from('x'.repeat(5_001)), 'text/plain', 'big.txt', 'read it'));
  await answer(sendDocument(user, REPORT.subarray(0, 80), 'application/pdf', 'broken.pdf', 'read it'));
  await answer(sendDocument(user, Buffer.from([0x50, 0x4b, 0x03, 0x04]), 'application/zip', 'archive.zip', 'read it'));
  await answer(sendDocument(user, Buffer.from([0x61, 0x00, 0xff]), 'text/csv', 'data.csv', 'read it'));
  // Larger than the bot reads: refused from its size alone, before any download.
  const getFiles = h.telegram.callsOf('getFile').length;
  const huge = { file_id: 'BQAC-huge', file_unique_id: 'huge', file_size: 11 * 1024 * 1024 };
  await h.send(user.document(huge, 'application/pdf', 'scan.pdf'));
  answers.push(h.telegram.sentTexts(user.id).pop()!);
  expect(h.telegram.callsOf('getFile').length).toBe(getFiles);

  expect(answers).toEqual([
    '📄 The document has too many pages: I read PDFs of up to 3 pages. Nothing was charged.',
    '📄 The document holds too much text: up to 5,000 characters in one conversation. Nothing was charged.',
    '📄 This document cannot be opened: it seems damaged. Nothing was charged.',
    '📄 I read PDF, text, Markdown, code and CSV files; this kind of file I cannot read. Nothing was charged.',
    '📄 This file is not text I can read (UTF-8). Nothing was charged.',
    '📄 The document is too large: I read files of up to 10 MB. Nothing was charged.',
  ]);
  expect(upstream.length).toBe(before);
  expect(await generationsOf(h, user.id)).toEqual([]);
  expect(await balance(user)).toBe(50);
});

test('documents in one conversation share the text cap: past it the answer says so and /new makes room', async () => {
  const user = h.user(4_393_004);
  await sendDocument(user, Buffer.from('a'.repeat(3_000)), 'text/plain', 'one.txt');
  await sendDocument(user, Buffer.from('b'.repeat(3_000)), 'text/plain', 'two.txt');
  expect(h.telegram.sentTexts(user.id).pop()).toMatch(/already holds as much document text as it can \(up to 5,000 characters\)/);
  await h.send(user.text('/new'));
  await sendDocument(user, Buffer.from('b'.repeat(3_000)), 'text/plain', 'two.txt');
  expect(h.telegram.sentTexts(user.id).pop()).toMatch(/^📄 two\.txt joined the conversation/);
});
