import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { localAdapter, terminateOcrWorker } from '../../src/core/providers/local';
import { MediaRequest, ProviderConnection, ToolRequest } from '../../src/core/providers/types';

const media = localAdapter.media!;

/** The OCR must never touch the network: any fetch here fails the test. */
const noNetwork: typeof fetch = async (input) => {
  throw new Error(`unexpected network call to ${String(input)}`);
};
const conn: ProviderConnection = {
  apiKey: '',
  baseUrl: localAdapter.defaultBaseUrl,
  sandbox: false,
  fetch: noNetwork,
  timeoutMs: 5000,
  faults: localAdapter.faults,
};

async function textImage(lines: string[], format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="${80 + lines.length * 90}">
    <rect width="100%" height="100%" fill="#ffffff"/>
    ${lines
      .map(
        (line, i) => `<text x="40" y="${100 + i * 90}" font-family="DejaVu Sans, sans-serif" font-size="64" fill="#000000">${line}</text>`,
      )
      .join('\n')}
  </svg>`;
  const img = sharp(Buffer.from(svg));
  return format === 'png' ? img.png().toBuffer() : img.jpeg().toBuffer();
}

const ocr = (images: ToolRequest['images']): MediaRequest => ({
  category: 'tool',
  slug: 'text-ocr',
  upstreamModel: 'tesseract-eng',
  images,
});

afterAll(() => terminateOcrWorker());

describe('local text-ocr', () => {
  it('reads the words rendered into a PNG', async () => {
    const start = await media.start(ocr([{ data: await textImage(['HELLO SANDBOX', 'quick brown fox']), mime: 'image/png' }]), conn);
    expect(start.state).toBe('completed');
    if (start.state !== 'completed') return;
    expect(start.output.files).toEqual([]);
    const text = start.output.text ?? '';
    expect(text).toMatch(/HELLO/);
    expect(text).toMatch(/SANDBOX/);
    expect(text.toLowerCase()).toMatch(/quick brown fox/);
    expect(text.split('\n')).toHaveLength(2);
  }, 60_000);

  it('reuses the worker for a second image in another format', async () => {
    const start = await media.start(ocr([{ data: await textImage(['Invoice 2024'], 'jpeg'), mime: 'image/jpeg' }]), conn);
    expect(start.state === 'completed' && start.output.text).toMatch(/Invoice 2024/);
    // The unpacked traineddata is cached in our temp dir, not in the working directory.
    expect(existsSync(path.join(os.tmpdir(), 'nebula-tesseract-cache', 'eng.traineddata'))).toBe(true);
    expect(existsSync(path.join(process.cwd(), 'eng.traineddata'))).toBe(false);
  }, 60_000);

  it('refuses a request without an image, an unreadable image and other tools', async () => {
    await expect(media.start(ocr([]), conn)).rejects.toMatchObject({ kind: 'bad_request', provider: 'local' });
    await expect(media.start(ocr([{ data: Buffer.from('not an image'), mime: 'image/png' }]), conn)).rejects.toMatchObject({
      kind: 'bad_request',
    });
    await expect(media.start({ ...ocr([]), slug: 'upscale' }, conn)).rejects.toMatchObject({ kind: 'bad_request' });
  });

  it('terminate ends the worker and the next call starts a fresh one', async () => {
    await terminateOcrWorker();
    await terminateOcrWorker(); // idempotent
    const start = await media.start(ocr([{ data: await textImage(['AGAIN']), mime: 'image/png' }]), conn);
    expect(start.state === 'completed' && start.output.text).toMatch(/AGAIN/);
  }, 60_000);
});
