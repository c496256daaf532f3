import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import {
  ImageValidationError,
  InvalidSizeError,
  parseSize,
  postProcessImage,
  validateImageUpload,
  validateMask,
} from '../../src/core/media/image';
import { syntheticImage } from '../../src/sandbox/synthetic';

async function rejection(promise: Promise<unknown>): Promise<ImageValidationError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ImageValidationError);
    return err as ImageValidationError;
  }
  throw new Error('expected a rejection');
}

/** A real PNG whose IHDR is rewritten to claim width x height (CRC fixed), like a decompression bomb. */
async function pngClaiming(width: number, height: number): Promise<Buffer> {
  const png = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } })
    .png()
    .toBuffer();
  // Signature (8) + IHDR length (4) + "IHDR" (4), then width and height.
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

describe('parseSize', () => {
  it.each<[string, unknown]>([
    ['1024x1024', { width: 1024, height: 1024 }],
    ['1024x1792', { width: 1024, height: 1792 }],
    ['1344X768', { width: 1344, height: 768 }],
    ['16:9', { aspect: [16, 9] }],
    ['2:3', { aspect: [2, 3] }],
  ])('parses %s', (input, expected) => {
    expect(parseSize(input)).toEqual(expected);
  });

  it.each(['', 'big', '0x100', '1024x', '100000x10', '16:0', '1024*1024', '-1x5'])('refuses %j', (input) => {
    expect(() => parseSize(input)).toThrow(InvalidSizeError);
  });
});

describe('postProcessImage', () => {
  let square: Buffer;
  beforeAll(async () => {
    square = await syntheticImage(512, 512, 'post');
  });

  it.each<['webp' | 'png' | 'jpeg', string]>([
    ['webp', 'image/webp'],
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
  ])('encodes %s at an exact size (cover)', async (format, mime) => {
    const out = await postProcessImage(square, { format, size: '1024x1792' });
    expect(out.mime).toBe(mime);
    expect([out.width, out.height]).toEqual([1024, 1792]);
    const meta = await sharp(out.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual([format, 1024, 1792]);
  });

  it('takes explicit width/height over a size string', async () => {
    const out = await postProcessImage(square, { format: 'png', width: 300, height: 200, size: '1024x1024' });
    expect(await sharp(out.data).metadata()).toMatchObject({ width: 300, height: 200 });
  });

  it('keeps the aspect when only a width is given', async () => {
    const wide = await syntheticImage(400, 200, 'wide');
    const out = await postProcessImage(wide, { format: 'png', width: 200 });
    expect([out.width, out.height]).toEqual([200, 100]);
  });

  it.each<[number, number, string, number, number]>([
    [1024, 1024, '16:9', 1024, 576],
    [1024, 1024, '9:16', 576, 1024],
    [1200, 800, '1:1', 800, 800],
    [1920, 1080, '16:9', 1920, 1080], // already that ratio: untouched
    [1365, 768, '16:9', 1365, 768], // within a pixel of 16:9: untouched
  ])('crops %ix%i to %s without scaling', async (w, h, ratio, ew, eh) => {
    const out = await postProcessImage(await syntheticImage(w, h, 'aspect'), { format: 'webp', size: ratio });
    const meta = await sharp(out.data).metadata();
    expect([meta.width, meta.height]).toEqual([ew, eh]);
  });

  it('crops the centre', async () => {
    // Left third red, middle blue, right third red: a centred 1:1 crop of 300x100 is all blue.
    const stripes = await sharp({ create: { width: 300, height: 100, channels: 3, background: '#ff0000' } })
      .composite([{ input: { create: { width: 100, height: 100, channels: 3, background: '#0000ff' } }, left: 100, top: 0 }])
      .png()
      .toBuffer();
    const out = await postProcessImage(stripes, { format: 'png', aspect: [1, 1] });
    const { channels } = await sharp(out.data).stats();
    expect(channels[0].max).toBeLessThan(10);
    expect(channels[2].min).toBeGreaterThan(245);
  });

  it('applies EXIF orientation before sizing', async () => {
    const rotated = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#888' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const out = await postProcessImage(rotated, { format: 'png' });
    expect([out.width, out.height]).toEqual([100, 200]);
    const cropped = await postProcessImage(rotated, { format: 'png', aspect: [1, 1] });
    expect([cropped.width, cropped.height]).toEqual([100, 100]);
  });

  it('puts transparency on white for jpeg', async () => {
    const clear = await sharp({ create: { width: 8, height: 8, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    const out = await postProcessImage(clear, { format: 'jpeg' });
    const { channels } = await sharp(out.data).stats();
    expect(channels[0].min).toBeGreaterThan(245);
  });
});

describe('validateImageUpload', () => {
  const limits = { maxBytes: 5 * 1024 * 1024, maxPixels: 4096 * 4096 };

  it.each(['png', 'jpeg', 'webp', 'gif'] as const)('accepts %s with its size', async (format) => {
    const buf = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#123456' } })
      .toFormat(format)
      .toBuffer();
    expect(await validateImageUpload(buf, limits)).toEqual({ width: 30, height: 20, format });
  });

  it('refuses a file over the byte limit', async () => {
    const buf = await syntheticImage(64, 64, 'x');
    expect((await rejection(validateImageUpload(buf, { ...limits, maxBytes: 100 }))).reason).toBe('too_large');
  });

  it('refuses something that is not an image', async () => {
    expect((await rejection(validateImageUpload(Buffer.from('just text'), limits))).reason).toBe('not_an_image');
  });

  it.each<[string, () => Promise<Buffer>]>([
    [
      'tiff',
      () =>
        sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } })
          .tiff()
          .toBuffer(),
    ],
    ['svg', async () => Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>')],
  ])('refuses %s as unsupported', async (_name, make) => {
    expect((await rejection(validateImageUpload(await make(), limits))).reason).toBe('unsupported_format');
  });

  it('refuses a decompression bomb from its header alone', async () => {
    const bomb = await pngClaiming(50000, 50000);
    expect(bomb.length).toBeLessThan(200);
    expect((await rejection(validateImageUpload(bomb, limits))).reason).toBe('too_many_pixels');
  });

  it('refuses a real image over the pixel limit', async () => {
    const big = await sharp({ create: { width: 2000, height: 2000, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    expect((await rejection(validateImageUpload(big, { ...limits, maxPixels: 1_000_000 }))).reason).toBe('too_many_pixels');
  });

  it('refuses a truncated image', async () => {
    const png = await syntheticImage(256, 256, 'truncated');
    const cut = png.subarray(0, Math.floor(png.length / 2));
    expect((await rejection(validateImageUpload(cut, limits))).reason).toBe('not_an_image');
  });
});

describe('validateMask', () => {
  let image: Buffer;
  beforeAll(async () => {
    image = await syntheticImage(200, 100, 'mask');
  });

  async function greyAt(png: Buffer, x: number, y: number): Promise<number> {
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    return data[(y * info.width + x) * info.channels];
  }

  it('turns an opaque black/white mask into a single-channel PNG of the image size', async () => {
    const mask = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#000' } })
      .composite([{ input: { create: { width: 50, height: 50, channels: 3, background: '#fff' } }, left: 0, top: 0 }])
      .png()
      .toBuffer();
    const out = await validateMask(mask, image);
    const meta = await sharp(out).metadata();
    expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(['png', 200, 100, 1]);
    expect(await greyAt(out, 10, 10)).toBe(255);
    expect(await greyAt(out, 150, 80)).toBe(0);
  });

  it('reads a mask with transparency as transparent = repaint', async () => {
    // Opaque black everywhere except a fully transparent 50x50 square at (150, 50).
    const rgba = Buffer.alloc(200 * 100 * 4);
    for (let y = 0; y < 100; y++) {
      for (let x = 0; x < 200; x++) rgba[(y * 200 + x) * 4 + 3] = x >= 150 && y >= 50 ? 0 : 255;
    }
    const mask = await sharp(rgba, { raw: { width: 200, height: 100, channels: 4 } })
      .png()
      .toBuffer();
    const out = await validateMask(mask, { width: 200, height: 100 });
    expect(await greyAt(out, 170, 70)).toBe(255);
    expect(await greyAt(out, 10, 10)).toBe(0);
  });

  it('scales a mask with the same aspect ratio', async () => {
    const small = await sharp({ create: { width: 100, height: 50, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    const out = await validateMask(small, image);
    expect(await sharp(out).metadata()).toMatchObject({ width: 200, height: 100, channels: 1 });
  });

  it('refuses a mask of a different aspect ratio', async () => {
    const square = await sharp({ create: { width: 100, height: 100, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    expect((await rejection(validateMask(square, image))).reason).toBe('mask_mismatch');
  });

  it('refuses a mask that is not an image', async () => {
    expect((await rejection(validateMask(Buffer.from('nope'), image))).reason).toBe('not_an_image');
  });
});
