import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sharp } from '../core/media/sharp-lib';

/**
 * Synthetic media for the sandbox upstreams: real, decodable files built locally so an offline run
 * produces results that visibly (or audibly) say they came from the sandbox.
 */

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c);
}

/** A PNG of exactly width x height: a diagonal gradient, a light grid, "SANDBOX" and the label. */
export async function syntheticImage(width: number, height: number, label: string): Promise<Buffer> {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`syntheticImage: bad size ${width}x${height}`);
  }
  const short = Math.min(width, height);
  const titleSize = Math.max(8, Math.round(short / 7));
  const labelSize = Math.max(6, Math.round(short / 18));
  const cell = Math.max(8, Math.round(short / 12));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#3a1c71"/>
      <stop offset="0.5" stop-color="#d76d77"/>
      <stop offset="1" stop-color="#ffaf7b"/>
    </linearGradient>
    <pattern id="grid" width="${cell}" height="${cell}" patternUnits="userSpaceOnUse">
      <path d="M ${cell} 0 L 0 0 0 ${cell}" fill="none" stroke="#ffffff" stroke-opacity="0.18" stroke-width="1"/>
    </pattern>
  </defs>
  <rect width="100%" height="100%" fill="url(#bg)"/>
  <rect width="100%" height="100%" fill="url(#grid)"/>
  <text x="50%" y="45%" text-anchor="middle" font-family="DejaVu Sans, sans-serif" font-weight="bold"
    font-size="${titleSize}" fill="#ffffff" fill-opacity="0.92">SANDBOX</text>
  <text x="50%" y="${Math.round(height * 0.45 + titleSize * 0.9)}" text-anchor="middle"
    font-family="DejaVu Sans, sans-serif" font-size="${labelSize}" fill="#ffffff">${escapeXml(label)}</text>
</svg>`;
  return sharp(Buffer.from(svg)).resize(width, height, { fit: 'fill' }).png().toBuffer();
}

// MPEG-1 Layer III, 128 kbps, 44.1 kHz, mono, no CRC. Each frame carries 1152 samples.
const MP3_SAMPLE_RATE = 44100;
const MP3_BITRATE = 128000;
const MP3_SAMPLES_PER_FRAME = 1152;

/**
 * A CBR MP3 of silent frames. Byte 1-2 `FF FB`: sync, MPEG-1, Layer III, no CRC. Byte 3: bitrate index 9
 * (128 kbps), sample-rate index 0 (44.1 kHz), padding bit. Byte 4 `C4`: mono, original.
 * All-zero side info means part2_3_length = 0 and main_data_begin = 0: every granule decodes to silence.
 * The padding bit is set on the frames that keep the average at exactly 128 kbps (417.96 bytes a frame).
 */
export function syntheticMp3(seconds: number): Buffer {
  if (!(seconds > 0)) throw new RangeError(`syntheticMp3: bad duration ${seconds}`);
  const frameCount = Math.ceil((seconds * MP3_SAMPLE_RATE) / MP3_SAMPLES_PER_FRAME);
  const slotBytes = (MP3_SAMPLES_PER_FRAME / 8) * MP3_BITRATE; // 144 * bitrate
  const baseSize = Math.floor(slotBytes / MP3_SAMPLE_RATE);
  const remainder = slotBytes % MP3_SAMPLE_RATE;
  const frames: Buffer[] = [];
  let carry = 0;
  for (let i = 0; i < frameCount; i++) {
    carry += remainder;
    const padded = carry >= MP3_SAMPLE_RATE;
    if (padded) carry -= MP3_SAMPLE_RATE;
    const frame = Buffer.alloc(baseSize + (padded ? 1 : 0));
    frame[0] = 0xff;
    frame[1] = 0xfb;
    frame[2] = (0b1001 << 4) | (0b00 << 2) | ((padded ? 1 : 0) << 1);
    frame[3] = 0xc4;
    // Side info (17 bytes for mono) and main data stay zero.
    frames.push(frame);
  }
  return Buffer.concat(frames);
}

/** 16-bit PCM mono WAV (16 kHz unless asked): a quiet 440 Hz tone with short fades so it does not click. */
export function syntheticWav(seconds: number, sampleRate = 16000): Buffer {
  if (!(seconds > 0)) throw new RangeError(`syntheticWav: bad duration ${seconds}`);
  const samples = Math.round(seconds * sampleRate);
  const dataBytes = samples * 2;
  const buf = Buffer.alloc(44 + dataBytes);
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + dataBytes, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(16, 16); // fmt chunk size
  buf.writeUInt16LE(1, 20); // PCM
  buf.writeUInt16LE(1, 22); // mono
  buf.writeUInt32LE(sampleRate, 24);
  buf.writeUInt32LE(sampleRate * 2, 28); // byte rate
  buf.writeUInt16LE(2, 32); // block align
  buf.writeUInt16LE(16, 34); // bits per sample
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(dataBytes, 40);
  const fade = Math.min(Math.round(sampleRate * 0.05), Math.floor(samples / 2));
  const amplitude = 0.2 * 32767;
  for (let i = 0; i < samples; i++) {
    const envelope = fade > 0 ? Math.min(1, i / fade, (samples - 1 - i) / fade) : 1;
    const value = Math.round(amplitude * envelope * Math.sin((2 * Math.PI * 440 * i) / sampleRate));
    buf.writeInt16LE(value, 44 + i * 2);
  }
  return buf;
}

/** A ~2 s, 160x90 H.264 MP4 with "SANDBOX" burnt in; made once with ffmpeg, shipped in `assets/`. */
export function syntheticMp4(): Buffer {
  // swc does not copy binary assets into the build output, so fall back to the source tree.
  const candidates = [path.join(__dirname, 'assets', 'sandbox.mp4'), path.join(process.cwd(), 'src', 'sandbox', 'assets', 'sandbox.mp4')];
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`syntheticMp4: sandbox.mp4 not found (looked in ${candidates.join(', ')})`);
  return readFileSync(found);
}
