/**
 * Content sniffing from magic bytes: what an upload really is, whatever its name or declared type says.
 */

export interface SniffedType {
  ext: string;
  mime: string;
}

function ascii(buf: Buffer, start: number, end: number): string {
  return buf.length >= end ? buf.toString('latin1', start, end) : '';
}

function startsWith(buf: Buffer, bytes: number[], offset = 0): boolean {
  if (buf.length < offset + bytes.length) return false;
  return bytes.every((b, i) => buf[offset + i] === b);
}

export function sniffImage(buf: Buffer): SniffedType | null {
  if (startsWith(buf, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { ext: 'png', mime: 'image/png' };
  if (startsWith(buf, [0xff, 0xd8, 0xff])) return { ext: 'jpeg', mime: 'image/jpeg' };
  if (ascii(buf, 0, 6) === 'GIF87a' || ascii(buf, 0, 6) === 'GIF89a') return { ext: 'gif', mime: 'image/gif' };
  if (ascii(buf, 0, 4) === 'RIFF' && ascii(buf, 8, 12) === 'WEBP') return { ext: 'webp', mime: 'image/webp' };
  return null;
}

// MPEG audio header tables (ISO 11172-3 / 13818-3), kbps; index 0 = free format, 15 = invalid.
const BITRATES: Record<string, number[]> = {
  v1l1: [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  v1l2: [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  v1l3: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2l1: [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  v2l2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** Byte length of the MPEG audio frame starting at `offset`, or 0 if there is no valid header there. */
function mpegFrameLength(buf: Buffer, offset: number): number {
  if (buf.length < offset + 4) return 0;
  const b1 = buf[offset + 1];
  const b2 = buf[offset + 2];
  if (buf[offset] !== 0xff || (b1 & 0xe0) !== 0xe0) return 0;
  const version = (b1 >> 3) & 3; // 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5, 1 reserved
  const layer = (b1 >> 1) & 3; // 3 = I, 2 = II, 1 = III, 0 reserved
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if (version === 1 || layer === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return 0;
  const v1 = version === 3;
  const table = v1 ? `v1l${4 - layer}` : layer === 3 ? 'v2l1' : 'v2l2';
  const bitrate = BITRATES[table][bitrateIndex] * 1000;
  const rate = SAMPLE_RATES[version][rateIndex];
  const padding = (b2 >> 1) & 1;
  if (layer === 3) return (Math.floor((12 * bitrate) / rate) + padding) * 4;
  const coefficient = layer === 1 && !v1 ? 72 : 144;
  return Math.floor((coefficient * bitrate) / rate) + padding;
}

/** MPEG audio: a valid frame header, and a second one right after it when the buffer is long enough. */
function isMpegAudio(buf: Buffer, offset: number): boolean {
  const length = mpegFrameLength(buf, offset);
  if (length === 0) return false;
  const layer = (buf[offset + 1] >> 1) & 3;
  if (layer !== 1) return false; // only Layer III is "mp3"
  const next = offset + length;
  return buf.length < next + 4 || mpegFrameLength(buf, next) > 0;
}

/** ID3v2 tag length (header + body + optional footer); 0 when there is no tag. */
function id3Length(buf: Buffer): number {
  if (ascii(buf, 0, 3) !== 'ID3' || buf.length < 10) return 0;
  // Syncsafe integer: 7 bits per byte.
  const size = ((buf[6] & 0x7f) << 21) | ((buf[7] & 0x7f) << 14) | ((buf[8] & 0x7f) << 7) | (buf[9] & 0x7f);
  const footer = buf[5] & 0x10 ? 10 : 0;
  return 10 + size + footer;
}

function sniffIsoBmff(buf: Buffer): SniffedType | null {
  if (ascii(buf, 4, 8) !== 'ftyp') return null;
  const boxSize = buf.readUInt32BE(0);
  const major = ascii(buf, 8, 12);
  const brands = [major];
  for (let off = 16; off + 4 <= Math.min(boxSize, buf.length); off += 4) brands.push(ascii(buf, off, off + 4));
  if (['M4A ', 'M4B ', 'M4P '].includes(major)) return { ext: 'm4a', mime: 'audio/mp4' };
  if (major === 'qt  ') return { ext: 'mov', mime: 'video/quicktime' };
  if (major.startsWith('3g')) return { ext: '3gp', mime: 'video/3gpp' };
  if (['heic', 'heix', 'mif1', 'avif'].includes(major)) return null; // still images, not audio/video
  if (brands.includes('M4A ')) return { ext: 'm4a', mime: 'audio/mp4' };
  return { ext: 'mp4', mime: 'video/mp4' };
}

function sniffEbml(buf: Buffer): SniffedType | null {
  if (!startsWith(buf, [0x1a, 0x45, 0xdf, 0xa3])) return null;
  // The DocType element (0x4282) sits in the EBML header, within the first few dozen bytes.
  const head = buf.subarray(0, 64);
  const docType = head.indexOf(Buffer.from([0x42, 0x82]));
  if (docType >= 0) {
    const text = head.toString('latin1', docType + 3, docType + 3 + (head[docType + 2] & 0x7f));
    if (text === 'webm') return { ext: 'webm', mime: 'audio/webm' };
    if (text === 'matroska') return { ext: 'mkv', mime: 'video/x-matroska' };
  }
  return null;
}

export function sniffAudio(buf: Buffer): SniffedType | null {
  const tag = id3Length(buf);
  if (tag > 0) {
    const rest = buf.subarray(tag);
    // An ID3 tag in front of FLAC is legal; otherwise it almost always fronts an MP3.
    if (ascii(rest, 0, 4) === 'fLaC') return { ext: 'flac', mime: 'audio/flac' };
    if (rest.length === 0 || isMpegAudio(rest, 0)) return { ext: 'mp3', mime: 'audio/mpeg' };
    if (rest[0] === 0xff && (rest[1] & 0xf6) === 0xf0) return { ext: 'aac', mime: 'audio/aac' };
    return null;
  }
  if (ascii(buf, 0, 4) === 'RIFF' && ascii(buf, 8, 12) === 'WAVE') return { ext: 'wav', mime: 'audio/wav' };
  if (ascii(buf, 0, 4) === 'OggS') return { ext: 'ogg', mime: 'audio/ogg' };
  if (ascii(buf, 0, 4) === 'fLaC') return { ext: 'flac', mime: 'audio/flac' };
  const iso = sniffIsoBmff(buf);
  if (iso) return iso;
  const ebml = sniffEbml(buf);
  if (ebml) return ebml;
  if (isMpegAudio(buf, 0)) return { ext: 'mp3', mime: 'audio/mpeg' };
  // ADTS AAC: sync 0xFFF, layer bits 00.
  if (buf.length >= 7 && buf[0] === 0xff && (buf[1] & 0xf6) === 0xf0) return { ext: 'aac', mime: 'audio/aac' };
  return null;
}

/** Image or audio/video, whichever matches. */
export function sniffMedia(buf: Buffer): SniffedType | null {
  return sniffImage(buf) ?? sniffAudio(buf);
}
