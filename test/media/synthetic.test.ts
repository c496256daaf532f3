import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { syntheticImage, syntheticMp3, syntheticMp4, syntheticWav } from '../../src/sandbox/synthetic';

function hasFfprobe(): boolean {
  try {
    execFileSync('ffprobe', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** ffprobe JSON for a file (written to a temp dir: duration is not reported for piped input). */
function ffprobe(data: Buffer, ext: string, entries: string): unknown {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'synthetic-'));
  try {
    const file = path.join(dir, `probe.${ext}`);
    writeFileSync(file, data);
    return JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_entries', entries, '-of', 'json', file]).toString());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Decodes fully with ffmpeg; returns the number of PCM samples and anything ffmpeg reported as an error. */
function ffmpegDecode(data: Buffer): { samples: number; errors: string } {
  const run = spawnSync('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-f', 's16le', '-ac', '1', 'pipe:1'], {
    input: data,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { samples: run.stdout.length / 2, errors: run.stderr.toString() };
}

const MP3_BITRATES_V1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MP3_RATES_V1 = [44100, 48000, 32000];

/** Walks MPEG-1 Layer III frame headers back to back; throws on any byte that is not a frame start. */
function walkMp3Frames(buf: Buffer): { frames: number; sampleRate: number; bitrates: Set<number> } {
  let offset = 0;
  let frames = 0;
  let sampleRate = 0;
  const bitrates = new Set<number>();
  while (offset < buf.length) {
    if (buf[offset] !== 0xff || (buf[offset + 1] & 0xfe) !== 0xfa) throw new Error(`no frame sync at ${offset}`);
    const bitrate = MP3_BITRATES_V1_L3[buf[offset + 2] >> 4] * 1000;
    const rate = MP3_RATES_V1[(buf[offset + 2] >> 2) & 3];
    const padding = (buf[offset + 2] >> 1) & 1;
    if (!bitrate || !rate) throw new Error(`bad header at ${offset}`);
    sampleRate = rate;
    bitrates.add(bitrate);
    offset += Math.floor((144 * bitrate) / rate) + padding;
    frames++;
  }
  if (offset !== buf.length) throw new Error('trailing partial frame');
  return { frames, sampleRate, bitrates };
}

describe('syntheticImage', () => {
  it.each([
    [1024, 1024],
    [768, 1344],
    [64, 32],
  ])('is a %ix%i PNG', async (w, h) => {
    const png = await syntheticImage(w, h, 'test-model');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const meta = await sharp(png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', w, h]);
  });

  it('draws more than a plain gradient (text pixels differ between labels)', async () => {
    const a = await sharp(await syntheticImage(256, 256, 'aaaa'))
      .raw()
      .toBuffer();
    const b = await sharp(await syntheticImage(256, 256, 'WWWWWWWW'))
      .raw()
      .toBuffer();
    expect(a.equals(b)).toBe(false);
  });

  it('escapes the label as XML', async () => {
    const png = await syntheticImage(128, 64, '<b>&"\'');
    expect((await sharp(png).metadata()).width).toBe(128);
  });

  it('rejects a non-positive size', async () => {
    await expect(syntheticImage(0, 10, 'x')).rejects.toThrow(RangeError);
  });
});

describe('syntheticMp3', () => {
  it.each([1, 2.5, 30])('is a CBR MPEG-1 Layer III stream of %s s', (seconds) => {
    const mp3 = syntheticMp3(seconds);
    const { frames, sampleRate, bitrates } = walkMp3Frames(mp3);
    expect(sampleRate).toBe(44100);
    expect([...bitrates]).toEqual([128000]);
    const duration = (frames * 1152) / sampleRate;
    expect(duration).toBeGreaterThanOrEqual(seconds);
    expect(duration - seconds).toBeLessThan(1152 / 44100);
    // Average 128 kbps within one byte per frame.
    expect(Math.abs(mp3.length - (128000 / 8) * duration)).toBeLessThan(frames);
  });

  (hasFfprobe() ? it : it.skip)('is probed and decoded by ffmpeg with the right duration', () => {
    const mp3 = syntheticMp3(2);
    const info = ffprobe(mp3, 'mp3', 'stream=codec_name,sample_rate:format=duration') as {
      streams: { codec_name: string; sample_rate: string }[];
      format: { duration: string };
    };
    expect(info.streams[0].codec_name).toBe('mp3');
    expect(info.streams[0].sample_rate).toBe('44100');
    expect(Number(info.format.duration)).toBeCloseTo(2, 1);
    const { samples, errors } = ffmpegDecode(mp3);
    expect(errors).toBe('');
    expect(samples / 44100).toBeCloseTo(2, 1);
  });
});

describe('syntheticWav', () => {
  (hasFfprobe() ? it : it.skip)('is probed by ffprobe as pcm_s16le mono', () => {
    const info = ffprobe(syntheticWav(1.5), 'wav', 'stream=codec_name,channels:format=duration') as {
      streams: { codec_name: string; channels: number }[];
      format: { duration: string };
    };
    expect(info.streams[0]).toEqual({ codec_name: 'pcm_s16le', channels: 1 });
    expect(Number(info.format.duration)).toBeCloseTo(1.5, 3);
  });

  it('is 16-bit PCM mono with a quiet, non-silent tone', () => {
    const wav = syntheticWav(1.5);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.toString('ascii', 8, 12)).toBe('WAVE');
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(wav.readUInt16LE(20)).toBe(1); // PCM
    expect(wav.readUInt16LE(22)).toBe(1); // mono
    expect(wav.readUInt16LE(34)).toBe(16);
    const rate = wav.readUInt32LE(24);
    const dataBytes = wav.readUInt32LE(40);
    expect(dataBytes / 2 / rate).toBeCloseTo(1.5, 5);
    let peak = 0;
    for (let i = 44; i < wav.length; i += 2) peak = Math.max(peak, Math.abs(wav.readInt16LE(i)));
    expect(peak).toBeGreaterThan(1000);
    expect(peak).toBeLessThan(32767 * 0.3);
    expect(wav.readInt16LE(44)).toBe(0); // fades in from silence
  });
});

describe('syntheticMp4', () => {
  it('is a small ISO-BMFF file with ftyp and moov boxes', () => {
    const mp4 = syntheticMp4();
    expect(mp4.length).toBeLessThan(50 * 1024);
    expect(mp4.toString('ascii', 4, 8)).toBe('ftyp');
    const boxes: string[] = [];
    for (let off = 0; off + 8 <= mp4.length;) {
      const size = mp4.readUInt32BE(off);
      boxes.push(mp4.toString('ascii', off + 4, off + 8));
      if (size < 8) break;
      off += size;
    }
    expect(boxes).toEqual(expect.arrayContaining(['ftyp', 'moov', 'mdat']));
  });

  (hasFfprobe() ? it : it.skip)('holds a short H.264 video stream', () => {
    const info = ffprobe(syntheticMp4(), 'mp4', 'stream=codec_type,codec_name:format=duration') as {
      streams: { codec_type: string; codec_name: string }[];
      format: { duration: string };
    };
    expect(info.streams.find((s) => s.codec_type === 'video')?.codec_name).toBe('h264');
    expect(Number(info.format.duration)).toBeGreaterThan(0.5);
    expect(Number(info.format.duration)).toBeLessThan(5);
  });
});
