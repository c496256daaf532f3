import { readDocument, documentKind } from '../../src/core/documents/read';
import { makePdf } from '../support/pdf';

const caps = { maxBytes: 1_000_000, maxPages: 3, maxCharacters: 2_000 };

test('a PDF is read through its text layer, page by page', async () => {
  const pdf = makePdf([['Quarterly report', 'Revenue grew 12%'], ['Page two (with brackets)']]);
  const doc = await readDocument({ name: 'report.pdf', mime: 'application/pdf', data: pdf }, caps);
  expect(doc).toMatchObject({ kind: 'pdf', pages: 2 });
  expect(doc.text).toContain('Quarterly report');
  expect(doc.text).toContain('Revenue grew 12%');
  expect(doc.text).toContain('Page two (with brackets)');
});

test('caps: pages, characters and bytes are refused with the cap named; damaged and binary files are unreadable', async () => {
  const many = makePdf([['1'], ['2'], ['3'], ['4']]);
  await expect(readDocument({ name: 'long.pdf', data: many }, caps)).rejects.toMatchObject({
    code: 'document_too_large',
    limit: 'pages',
    max: 3,
    actual: 4,
  });
  await expect(readDocument({ name: 'big.txt', data: Buffer.from('x'.repeat(2_001)) }, caps)).rejects.toMatchObject({
    code: 'document_too_large',
    limit: 'characters',
  });
  await expect(readDocument({ name: 'big.csv', data: Buffer.alloc(1_000_001, 'a') }, caps)).rejects.toMatchObject({ limit: 'bytes' });
  const truncated = makePdf([['Hello']]).subarray(0, 60);
  await expect(readDocument({ name: 'broken.pdf', data: truncated }, caps)).rejects.toMatchObject({
    code: 'document_unreadable',
    reason: 'damaged',
  });
  await expect(readDocument({ name: 'fake.pdf', data: Buffer.from('not a pdf at all') }, caps)).rejects.toMatchObject({
    reason: 'damaged',
  });
  await expect(readDocument({ name: 'data.csv', data: Buffer.from([0x61, 0xff, 0xfe, 0x00]) }, caps)).rejects.toMatchObject({
    reason: 'binary',
  });
  await expect(readDocument({ name: 'empty.md', data: Buffer.from('  \n') }, caps)).rejects.toMatchObject({ reason: 'empty' });
  await expect(readDocument({ name: 'archive.zip', mime: 'application/zip', data: Buffer.from('PK') }, caps)).rejects.toMatchObject({
    reason: 'type',
  });
});

test('text, Markdown, code and CSV are known by type or name; a BOM and CRLF are taken out', async () => {
  expect(['notes.md', 'main.py', 'data.csv', 'App.tsx', 'Dockerfile', 'config.yaml'].map((n) => documentKind(n, undefined))).toEqual(
    Array(6).fill('text'),
  );
  expect(documentKind('x.bin', 'text/plain')).toBe('text');
  expect(documentKind('scan', 'application/pdf')).toBe('pdf');
  expect(documentKind('photo.heic', 'image/heic')).toBeUndefined();
  const doc = await readDocument({ name: 'a.csv', data: Buffer.from('\uFEFFname,qty\r\napple,3\r\n') }, caps);
  expect(doc).toEqual({ kind: 'text', name: 'a.csv', text: 'name,qty\napple,3' });
});
