import { sharp, type SharpMetadata } from './sharp-lib';
import { DomainError } from '../errors';
import { sniffImage } from './sniff';

export type OutputFormat = 'webp' | 'png' | 'jpeg';

export type ParsedSize = { width: number; height: number } | { aspect: [number, number] };

export class InvalidSizeError extends DomainError {
  readonly code = 'invalid_size';
}

export type ImageRejection = 'too_large' | 'not_an_image' | 'unsupported_format' | 'too_many_pixels' | 'mask_mismatch';

export class ImageValidationError extends DomainError {
  readonly code = 'image_rejected';
  constructor(
    readonly reason: ImageRejection,
    message: string,
  ) {
    super(message, { reason });
  }
}

const MIME: Record<OutputFormat, string> = { webp: 'image/webp', png: 'image/png', jpeg: 'image/jpeg' };
const UPLOAD_FORMATS = new Set(['png', 'jpeg', 'webp', 'gif']);
/** Cap for decoding vendor results, which we trust more than uploads but not unboundedly. */
const VENDOR_MAX_PIXELS = 100_000_000;
const MAX_DIMENSION = 16384;

/** `1024x1792` gives exact pixels; `16:9` gives an aspect ratio. */
export function parseSize(size: string): ParsedSize {
  const trimmed = size.trim();
  const pixels = /^(\d{1,5})\s*[xX×]\s*(\d{1,5})$/.exec(trimmed);
  if (pixels) {
    const width = Number(pixels[1]);
    const height = Number(pixels[2]);
    if (width < 1 || height < 1 || width > MAX_DIMENSION || height > MAX_DIMENSION) {
      throw new InvalidSizeError(`size out of range: ${size}`);
    }
    return { width, height };
  }
  const ratio = /^(\d{1,3})\s*:\s*(\d{1,3})$/.exec(trimmed);
  if (ratio) {
    const w = Number(ratio[1]);
    const h = Number(ratio[2]);
    if (w < 1 || h < 1) throw new InvalidSizeError(`aspect ratio out of range: ${size}`);
    return { aspect: [w, h] };
  }
  throw new InvalidSizeError(`not a size (WxH) or aspect ratio (W:H): ${size}`);
}

export interface PostProcessOptions {
  format: OutputFormat;
  width?: number;
  height?: number;
  /** Crop (centred) to this ratio without scaling; ignored when both width and height are given. */
  aspect?: [number, number];
  /** A size string from the request (`1024x1792` or `16:9`); fills width/height or aspect. */
  size?: string;
}

export interface ProcessedImage {
  data: Buffer;
  mime: string;
  width: number;
  height: number;
}

/** Centred region of `width`x`height` with ratio `aw:ah`, or null when the image already has that ratio. */
function aspectCrop(width: number, height: number, [aw, ah]: [number, number]) {
  const target = aw / ah;
  // Within one pixel of the ratio counts as matching (1024x576 is 16:9, 1365x768 too).
  if (Math.abs(width - height * target) < 1 || Math.abs(height - width / target) < 1) return null;
  if (width / height > target) {
    const w = Math.round(height * target);
    return { left: Math.floor((width - w) / 2), top: 0, width: w, height };
  }
  const h = Math.round(width / target);
  return { left: 0, top: Math.floor((height - h) / 2), width, height: h };
}

/**
 * Normalises a vendor's image result: applies EXIF orientation, then resizes (cover) to an exact size or crops
 * to an aspect ratio, then encodes in the requested format. Metadata is not carried over.
 */
export async function postProcessImage(input: Buffer, options: PostProcessOptions): Promise<ProcessedImage> {
  let { width, height, aspect } = options;
  if (options.size) {
    const parsed = parseSize(options.size);
    if ('aspect' in parsed) aspect = aspect ?? parsed.aspect;
    else {
      width = width ?? parsed.width;
      height = height ?? parsed.height;
    }
  }
  const source = sharp(input, { limitInputPixels: VENDOR_MAX_PIXELS });
  const upright = orientedSize(await source.metadata());
  // rotate() with no angle applies EXIF orientation; sharp runs it before a pre-resize extract.
  let pipeline = source.rotate();
  if (width || height) {
    pipeline = pipeline.resize({ width, height, fit: 'cover', position: 'centre' });
  } else if (aspect) {
    const region = aspectCrop(upright.width, upright.height, aspect);
    if (region) pipeline = pipeline.extract(region);
  }
  switch (options.format) {
    case 'webp':
      pipeline = pipeline.webp({ quality: 90 });
      break;
    case 'png':
      pipeline = pipeline.png({ compressionLevel: 9 });
      break;
    case 'jpeg':
      // JPEG has no alpha: put transparent areas (e.g. remove-bg results) on white rather than black.
      pipeline = pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: 90, mozjpeg: true });
      break;
  }
  const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
  return { data, mime: MIME[options.format], width: info.width, height: info.height };
}

export interface UploadLimits {
  maxBytes: number;
  maxPixels: number;
}

export interface ValidatedImage {
  width: number;
  height: number;
  format: 'png' | 'jpeg' | 'webp' | 'gif';
}

/**
 * Checks an uploaded (or fetched) image before anything else touches it: byte size, real format from its magic
 * bytes (png/jpeg/webp/gif only: no SVG, TIFF, HEIF...), declared pixel count, and a full decode under the pixel
 * limit so truncated files and decompression bombs are refused.
 */
export async function validateImageUpload(buf: Buffer, limits: UploadLimits): Promise<ValidatedImage> {
  if (buf.length > limits.maxBytes) {
    throw new ImageValidationError('too_large', `image is ${buf.length} bytes, the limit is ${limits.maxBytes}`);
  }
  const sniffed = sniffImage(buf);
  if (!sniffed) {
    // Other image formats are named from their magic bytes only; they are never handed to a decoder.
    const other = otherImageFormat(buf);
    if (other) throw new ImageValidationError('unsupported_format', `unsupported image format: ${other}`);
    throw new ImageValidationError('not_an_image', 'not a PNG, JPEG, WebP or GIF image');
  }
  let meta: SharpMetadata;
  try {
    meta = await sharp(buf, { limitInputPixels: limits.maxPixels }).metadata();
  } catch (err) {
    // sharp checks the declared dimensions against the pixel limit while reading the header.
    if (/pixel limit/i.test((err as Error).message)) {
      throw new ImageValidationError('too_many_pixels', `the image exceeds ${limits.maxPixels} pixels`);
    }
    throw new ImageValidationError('not_an_image', 'the image cannot be read');
  }
  const format = meta.format ?? '';
  if (!UPLOAD_FORMATS.has(format) || format !== sniffed.ext) {
    throw new ImageValidationError('unsupported_format', `unsupported image format: ${format || 'unknown'}`);
  }
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (!width || !height) throw new ImageValidationError('not_an_image', 'the image has no dimensions');
  // Declared size first: a bomb is refused from its header, before any decoding.
  if (width * height > limits.maxPixels) {
    throw new ImageValidationError('too_many_pixels', `${width}x${height} exceeds ${limits.maxPixels} pixels`);
  }
  try {
    // A cheap full decode (shrink-on-load where the codec allows) that fails on truncated or corrupt data.
    await sharp(buf, { limitInputPixels: limits.maxPixels, failOn: 'error' }).resize(8, 8, { fit: 'fill' }).raw().toBuffer();
  } catch (err) {
    const message = (err as Error).message;
    if (/pixel limit/i.test(message)) throw new ImageValidationError('too_many_pixels', message);
    throw new ImageValidationError('not_an_image', `the image cannot be decoded: ${message}`);
  }
  return { width, height, format: format as ValidatedImage['format'] };
}

function otherImageFormat(buf: Buffer): string | null {
  const head = buf.subarray(0, 256).toString('latin1');
  if (head.startsWith('II*\0') || head.startsWith('MM\0*')) return 'tiff';
  if (head.startsWith('BM')) return 'bmp';
  if (/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(head)) return 'svg';
  if (head.slice(4, 8) === 'ftyp' && /^(avif|avis|heic|heix|mif1|msf1)$/.test(head.slice(8, 12))) return 'heif/avif';
  if (head.startsWith('\0\0\x01\0')) return 'ico';
  return null;
}

function sameRatio(a: { width: number; height: number }, b: { width: number; height: number }): boolean {
  return Math.abs(a.width / a.height - b.width / b.height) <= 0.01 * (b.width / b.height);
}

/**
 * Turns an inpainting mask into a single-channel PNG of the image's size where white means "repaint".
 * A mask with transparency follows the transparent-means-edit convention (its inverted alpha is used);
 * an opaque mask is read as grey levels (white = edit). A mask of another size is scaled if it has the
 * image's aspect ratio (with `sameSize`: only of its very size), otherwise refused.
 */
export async function validateMask(
  mask: Buffer,
  image: Buffer | { width: number; height: number },
  options: { sameSize?: boolean } = {},
): Promise<Buffer> {
  const target = Buffer.isBuffer(image) ? await sharp(image).metadata().then(orientedSize) : image;
  if (!sniffImage(mask)) throw new ImageValidationError('not_an_image', 'the mask is not a PNG, JPEG, WebP or GIF image');
  let meta: SharpMetadata;
  try {
    meta = await sharp(mask).metadata();
  } catch {
    throw new ImageValidationError('not_an_image', 'the mask cannot be read');
  }
  const size = orientedSize(meta);
  const fits = options.sameSize ? size.width === target.width && size.height === target.height : sameRatio(size, target);
  if (!fits) {
    throw new ImageValidationError('mask_mismatch', `mask is ${size.width}x${size.height}, image is ${target.width}x${target.height}`);
  }
  // stats() describes the input itself; isOpaque is false when any alpha value is below the maximum.
  const usesAlpha = meta.hasAlpha === true && !(await sharp(mask).stats()).isOpaque;
  let pipeline = sharp(mask).rotate();
  pipeline = usesAlpha ? pipeline.extractChannel('alpha').negate() : pipeline.flatten({ background: '#000000' }).greyscale();
  const data = await pipeline.resize(target.width, target.height, { fit: 'fill' }).toColourspace('b-w').png().toBuffer();
  return data;
}

/** Whether an image has pixels that are not fully opaque (an alpha channel that is used). */
export async function hasTransparency(image: Buffer): Promise<boolean> {
  const meta = await sharp(image).metadata();
  // stats() describes the input itself; isOpaque is false when any alpha value is below the maximum.
  return meta.hasAlpha === true && !(await sharp(image).stats()).isOpaque;
}

/**
 * The inpainting mask an image carries in its alpha channel: a single-channel PNG of the image's size where the
 * transparent area is white (repaint) and the opaque area black (keep); partly transparent pixels are grey. Null
 * when the image has no transparent pixel.
 */
export async function maskFromTransparency(image: Buffer): Promise<Buffer | null> {
  if (!(await hasTransparency(image))) return null;
  return sharp(image).rotate().extractChannel('alpha').negate().toColourspace('b-w').png().toBuffer();
}

function orientedSize(meta: SharpMetadata): { width: number; height: number } {
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  // EXIF orientations 5-8 swap the axes.
  return (meta.orientation ?? 1) >= 5 ? { width: height, height: width } : { width, height };
}
