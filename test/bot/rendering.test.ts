import { renderAnswer } from '../../src/bot/render';
import { DEFAULT_BOT_SETTINGS } from '../../src/bot/context';
import { BotHarness, startBotHarness, TEST_SETTINGS } from './harness';
import { ScriptedChat, scriptPrompt } from './scripted-chat';
import { parseTelegramHtml, type ParsedEntity } from './telegram-html';

const ANSWER = [
  '## Sorting in TypeScript',
  '',
  'Use **`Array.prototype.sort`** with a *comparator*; ~~never~~ rarely rely on the default.',
  '',
  '1. Copy the array',
  '2. Sort the copy:',
  '   - numbers: `a - b`',
  '   - strings: `localeCompare`',
  '',
  '> Sorting is stable since ES2019.',
  '',
  '| Input | Result |',
  '|---|--:|',
  '| [3, 1, 2] | [1, 2, 3] |',
  '',
  'See [MDN](https://developer.mozilla.org/) for more.',
  '',
  '```ts',
  'const sorted = [...xs].sort((a, b) => a - b);',
  'if (sorted.length < 2 && ok) {}',
  '```',
].join('\n');

function only(entities: ParsedEntity[], type: string, text: string): string[] {
  return entities.filter((e) => e.type === type).map((e) => text.slice(e.offset, e.offset + e.length));
}

describe('Markdown to Telegram HTML', () => {
  test('bold, italic, strikethrough, code, lists, quotes, tables, links and a fenced block render as Telegram formatting', () => {
    const pieces = renderAnswer(ANSWER, { maxLength: 4096 });
    expect(pieces).toHaveLength(1);
    const { text, entities } = parseTelegramHtml(pieces[0].html);
    expect(text).toBe(
      [
        'Sorting in TypeScript',
        '',
        'Use Array.prototype.sort with a comparator; never rarely rely on the default.',
        '',
        '1. Copy the array',
        '2. Sort the copy:',
        '   ◦ numbers: a - b',
        '   ◦ strings: localeCompare',
        '',
        'Sorting is stable since ES2019.',
        '',
        'Input     |    Result',
        '----------+----------',
        '[3, 1, 2] | [1, 2, 3]',
        '',
        'See MDN for more.',
        '',
        'const sorted = [...xs].sort((a, b) => a - b);',
        'if (sorted.length < 2 && ok) {}',
      ].join('\n'),
    );
    expect(only(entities, 'bold', text)).toEqual(['Sorting in TypeScript', 'Array.prototype.sort']);
    expect(only(entities, 'italic', text)).toEqual(['comparator']);
    expect(only(entities, 'strikethrough', text)).toEqual(['never']);
    expect(only(entities, 'code', text)).toEqual(['Array.prototype.sort', 'a - b', 'localeCompare']);
    expect(only(entities, 'blockquote', text)).toEqual(['Sorting is stable since ES2019.']);
    expect(entities.find((e) => e.type === 'text_link')).toMatchObject({ url: 'https://developer.mozilla.org/' });
    const pres = entities.filter((e) => e.type === 'pre');
    expect(pres.map((e) => e.language)).toEqual([undefined, 'ts']);
    expect(text.slice(pres[1].offset, pres[1].offset + pres[1].length)).toContain('sorted.length < 2 && ok');
    // `<` and `&` travel escaped; the plain version has the link's address.
    expect(pieces[0].html).toContain('sorted.length &lt; 2 &amp;&amp; ok');
    expect(pieces[0].plain).toContain('See MDN (https://developer.mozilla.org/) for more.');
  });

  test('raw HTML, entities and angle brackets in an answer are shown exactly as the model wrote them', () => {
    const source = 'Use <b>tags</b> & friends literally: a<b, c>d, <script>alert(1)</script>';
    const [piece] = renderAnswer(source, { maxLength: 4096 });
    const parsed = parseTelegramHtml(piece.html);
    expect(parsed.text).toBe(source);
    expect(parsed.entities).toEqual([]);
    // Character references mean their character in Markdown, as in any Markdown viewer.
    expect(parseTelegramHtml(renderAnswer('AT&amp;T &lt;3', { maxLength: 4096 })[0].html).text).toBe('AT&T <3');
  });

  test('every prefix of a streaming answer renders to HTML Telegram accepts (unclosed fences, emphasis, links, tables)', () => {
    const tricky = `${ANSWER}\n\n**bold _nested_ and \`code\`** [link](https://a.example/?q=1&r=<2>)\n\n> quote with **bold\n\n\`\`\`python\nprint("<&>")\n`;
    for (let end = 1; end <= tricky.length; end++) {
      for (const piece of renderAnswer(tricky.slice(0, end), { footer: '— footer & <model>', maxLength: 4096 })) {
        expect(() => parseTelegramHtml(piece.html)).not.toThrow();
      }
    }
    // An unclosed fence runs to the end: the code so far is a code block of its language.
    const open = parseTelegramHtml(renderAnswer('Here:\n\n```python\nprint("<&>")\nx = 1', { maxLength: 4096 })[0].html);
    expect(open.text).toBe('Here:\n\nprint("<&>")\nx = 1');
    expect(open.entities).toEqual([{ type: 'pre', offset: 7, length: 18, language: 'python' }]);
  });

  test('a long code block is split into messages of at most 4096 characters, each a closed code block of the same language', () => {
    const lines = Array.from({ length: 400 }, (_, i) => `    value_${i} = compute(${i}) if ${i} < limit and flag & mask else None`);
    const source = `Here is the script:\n\n\`\`\`python\n${lines.join('\n')}\n\`\`\`\n\nDone **now**.`;
    const pieces = renderAnswer(source, { footer: '— GPT-6 Luna', maxLength: 4096 });
    expect(pieces.length).toBeGreaterThanOrEqual(5);
    const parsed = pieces.map((p) => parseTelegramHtml(p.html));
    for (const p of parsed) expect(p.text.length).toBeLessThanOrEqual(4096);
    // Every piece but the first starts inside the block, every piece but the last ends inside it.
    for (const [i, p] of parsed.entries()) {
      const pre = p.entities.find((e) => e.type === 'pre');
      expect(pre).toMatchObject({ language: 'python' });
      if (i > 0) expect(pre!.offset).toBe(0);
      if (i < parsed.length - 1) expect(pre!.offset + pre!.length).toBe(p.text.length);
      expect(pieces[i].html.match(/<pre>|<pre><code/g)?.length).toBe(pieces[i].html.match(/<\/pre>/g)?.length);
    }
    const code = parsed.map((p) => p.text.slice(p.entities.find((e) => e.type === 'pre')!.offset));
    code[code.length - 1] = code[code.length - 1].split('\n\nDone now.')[0];
    // Indentation survives the cut: Telegram keeps leading spaces of a message that starts with a code block.
    expect(code.join('\n')).toBe(lines.join('\n'));
    expect(parsed[parsed.length - 1].text.endsWith('Done now.\n\n— GPT-6 Luna')).toBe(true);
  });

  test('pieces already complete stay the same while the answer grows', () => {
    const long = Array.from({ length: 300 }, (_, i) => `${i}. **item** number ${i} with \`code ${i}\``).join('\n');
    const full = renderAnswer(long, { maxLength: 4096 });
    expect(full.length).toBeGreaterThan(2);
    for (const end of [long.length - 1, long.length - 50, Math.floor(long.length * 0.8)]) {
      const partial = renderAnswer(long.slice(0, end), { maxLength: 4096 });
      expect(partial[0]).toEqual(full[0]);
    }
  });
});

describe('answers through the bot', () => {
  let h: BotHarness;
  const upstream = new ScriptedChat({
    formatted: ANSWER,
    unclosed: 'Compare `a < b` & `c > d`:\n\n```js\nif (a < b && c > d) {\n  return "<ok>";',
    short: 'Yes — **42**.',
  });

  beforeAll(async () => {
    // The production pace of edits, so a reply that waited for the next edit slot would be seen.
    h = await startBotHarness({
      handlers: { openai: upstream.handler },
      bot: { settings: { ...TEST_SETTINGS, streamEditIntervalMs: DEFAULT_BOT_SETTINGS.streamEditIntervalMs } },
    });
  });
  afterAll(() => h.close());

  function replyOf(userId: number, mark: number) {
    const calls = h.telegram.calls.slice(mark).filter((c) => Number(c.payload.chat_id) === userId);
    // A private chat: drafts while the model streams (the first is the empty "Thinking…" one), then the message.
    const placeholder = calls.find((c) => c.method === 'sendMessageDraft')!;
    const final = calls.filter((c) => c.method === 'sendMessage').pop()!;
    const id = (final.result as { message_id: number }).message_id;
    const writes = calls.filter((c) => (c.method === 'sendMessageDraft' && c.payload.text !== '') || c === final);
    return { calls, placeholder, id, writes };
  }

  test('a Markdown answer arrives formatted (HTML parse mode), with "typing…" shown while the model works', async () => {
    const user = h.user(4_600_001, { languageCode: 'en' });
    const mark = h.telegram.calls.length;
    await h.send(user.text(scriptPrompt('formatted')));
    const { calls, placeholder, id, writes } = replyOf(user.id, mark);
    const typing = calls.filter((c) => c.method === 'sendChatAction');
    expect(typing.length).toBeGreaterThanOrEqual(1);
    expect(typing[0].payload.action).toBe('typing');
    expect(typing[0].at).toBeLessThanOrEqual(placeholder.at);
    for (const w of writes) expect(w.payload.parse_mode).toBe('HTML');
    // Every write was accepted: no formatting error on the way.
    expect(writes.every((w) => w.result !== undefined)).toBe(true);
    const text = h.telegram.textOf(user.id, id)!;
    expect(text.startsWith('Sorting in TypeScript\n\nUse Array.prototype.sort with a comparator')).toBe(true);
    expect(text).toMatch(/— GPT-6 Luna · \d+ tkn · balance \d+$/);
    const entities = h.telegram.entitiesOf(user.id, id);
    expect(entities.filter((e) => e.type === 'pre').map((e) => e.language)).toEqual([undefined, 'ts']);
    expect(entities.some((e) => e.type === 'bold')).toBe(true);
    expect(entities.some((e) => e.type === 'blockquote')).toBe(true);
  });

  test('an answer with < and & ending inside an unclosed fence arrives whole', async () => {
    const user = h.user(4_600_002, { languageCode: 'en' });
    const mark = h.telegram.calls.length;
    await h.send(user.text(scriptPrompt('unclosed')));
    const { id } = replyOf(user.id, mark);
    const text = h.telegram.textOf(user.id, id)!;
    expect(text).toContain('Compare a < b & c > d:\n\nif (a < b && c > d) {\n  return "<ok>";');
    expect(h.telegram.entitiesOf(user.id, id)).toContainEqual(expect.objectContaining({ type: 'pre', language: 'js' }));
  });

  test('a short reply is complete within 1.5 s of the upstream finishing, without waiting for the next edit slot', async () => {
    const user = h.user(4_600_003, { languageCode: 'en' });
    const mark = h.telegram.calls.length;
    const finishes = upstream.finishedAt.length;
    await h.send(user.text(scriptPrompt('short')));
    const upstreamDone = upstream.finishedAt[finishes];
    const { placeholder, id, writes } = replyOf(user.id, mark);
    const final = writes[writes.length - 1];
    expect(h.telegram.textOf(user.id, id)).toMatch(/^Yes — 42\.\n\n— GPT-6 Luna/);
    expect(final.at - upstreamDone).toBeLessThan(1_500);
    // The final text did not wait for the 1 s pace of streaming edits.
    expect(final.at - placeholder.at).toBeLessThan(DEFAULT_BOT_SETTINGS.streamEditIntervalMs);
  });
});
