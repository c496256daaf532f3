import sharp from 'sharp';
import { sniffAudio, sniffImage, sniffMedia } from '../../src/core/media/sniff';
import { syntheticMp3, syntheticMp4, syntheticWav } from '../../src/sandbox/synthetic';

/** ID3v2.4 tag of `bodySize` padding bytes; the size is a 28-bit syncsafe integer. */
function id3Tag(bodySize: number): Buffer {
  const header = Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0, 0, 0, 0]);
  header[6] = (bodySize >> 21) & 0x7f;
  header[7] = (bodySize >> 14) & 0x7f;
  header[8] = (bodySize >> 7) & 0x7f;
  header[9] = bodySize & 0x7f;
  return Buffer.concat([header, Buffer.alloc(bodySize)]);
}

/** ftyp box: major brand, minor version 0, compatible brands. */
function ftyp(major: string, compatible: string[]): Buffer {
  const box = Buffer.alloc(16 + 4 * compatible.length);
  box.writeUInt32BE(box.length, 0);
  box.write('ftyp', 4, 'latin1');
  box.write(major, 8, 'latin1');
  compatible.forEach((b, i) => box.write(b, 16 + 4 * i, 'latin1'));
  // A real file continues with other boxes; an empty `free` box stands in.
  return Buffer.concat([box, Buffer.from([0, 0, 0, 8, 0x66, 0x72, 0x65, 0x65])]);
}

/** Ogg page CRC: polynomial 0x04c11db7, not reflected, initial 0. */
function oggCrc(page: Buffer): number {
  let crc = 0;
  for (const byte of page) {
    crc ^= byte << 24;
    for (let i = 0; i < 8; i++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
    crc >>>= 0;
  }
  return crc;
}

/** First page of an Ogg Opus stream: page header + OpusHead packet (RFC 7845). */
function oggOpusFirstPage(): Buffer {
  const opusHead = Buffer.alloc(19);
  opusHead.write('OpusHead', 0, 'latin1');
  opusHead[8] = 1; // version
  opusHead[9] = 1; // channels
  opusHead.writeUInt16LE(312, 10); // pre-skip
  opusHead.writeUInt32LE(48000, 12); // input sample rate
  const header = Buffer.alloc(27 + 1);
  header.write('OggS', 0, 'latin1');
  header[4] = 0; // version
  header[5] = 0x02; // beginning of stream
  header.writeUInt32LE(0x1234, 14); // serial
  header[26] = 1; // one segment
  header[27] = opusHead.length;
  const page = Buffer.concat([header, opusHead]);
  page.writeUInt32LE(oggCrc(page), 22);
  return page;
}

/** fLaC marker + a last-block STREAMINFO (34 bytes): 16-bit mono 44.1 kHz. */
function flacHeader(): Buffer {
  const info = Buffer.alloc(34);
  info.writeUInt16BE(4096, 0); // min block size
  info.writeUInt16BE(4096, 2); // max block size
  // sample rate (20 bits) | channels-1 (3) | bps-1 (5) | total samples (36): 44100, 0, 15, 0
  info[10] = (44100 >> 12) & 0xff;
  info[11] = (44100 >> 4) & 0xff;
  info[12] = ((44100 & 0x0f) << 4) | (0 << 1) | (15 >> 4);
  info[13] = (15 & 0x0f) << 4;
  return Buffer.concat([Buffer.from('fLaC', 'latin1'), Buffer.from([0x80, 0, 0, 34]), info]);
}

/** EBML header with the given DocType, as at the start of a WebM/Matroska file. */
function ebmlHeader(docType: string): Buffer {
  const el = (id: number[], value: Buffer) => Buffer.concat([Buffer.from(id), Buffer.from([0x80 | value.length]), value]);
  const body = Buffer.concat([
    el([0x42, 0x86], Buffer.from([1])), // EBMLVersion
    el([0x42, 0xf7], Buffer.from([1])), // EBMLReadVersion
    el([0x42, 0xf2], Buffer.from([4])), // EBMLMaxIDLength
    el([0x42, 0xf3], Buffer.from([8])), // EBMLMaxSizeLength
    el([0x42, 0x82], Buffer.from(docType, 'latin1')), // DocType
    el([0x42, 0x87], Buffer.from([4])), // DocTypeVersion
    el([0x42, 0x85], Buffer.from([2])), // DocTypeReadVersion
  ]);
  return Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x80 | body.length]), body, Buffer.from([0x18, 0x53, 0x80, 0x67])]);
}

describe('sniffAudio', () => {
  it.each<[string, () => Buffer, string, string]>([
    ['mp3 without a tag', () => syntheticMp3(1), 'mp3', 'audio/mpeg'],
    ['mp3 behind a small ID3 tag', () => Buffer.concat([id3Tag(20), syntheticMp3(1)]), 'mp3', 'audio/mpeg'],
    ['mp3 behind an ID3 tag > 127 bytes (syncsafe size)', () => Buffer.concat([id3Tag(300), syntheticMp3(1)]), 'mp3', 'audio/mpeg'],
    ['flac behind an ID3 tag', () => Buffer.concat([id3Tag(64), flacHeader()]), 'flac', 'audio/flac'],
    ['wav', () => syntheticWav(0.2), 'wav', 'audio/wav'],
    ['ogg opus', oggOpusFirstPage, 'ogg', 'audio/ogg'],
    ['flac', flacHeader, 'flac', 'audio/flac'],
    ['webm', () => ebmlHeader('webm'), 'webm', 'audio/webm'],
    ['matroska', () => ebmlHeader('matroska'), 'mkv', 'video/x-matroska'],
    ['m4a (major brand M4A)', () => ftyp('M4A ', ['M4A ', 'mp42', 'isom']), 'm4a', 'audio/mp4'],
    ['m4a (isom with M4A compatible)', () => ftyp('isom', ['isom', 'M4A ']), 'm4a', 'audio/mp4'],
    ['mp4 (isom)', () => ftyp('isom', ['isom', 'iso2', 'mp41']), 'mp4', 'video/mp4'],
    ['mp4 (real file)', syntheticMp4, 'mp4', 'video/mp4'],
  ])('detects %s', (_name, make, ext, mime) => {
    expect(sniffAudio(make())).toEqual({ ext, mime });
  });

  it.each<[string, () => Buffer]>([
    ['empty', () => Buffer.alloc(0)],
    ['text', () => Buffer.from('hello, this is not audio at all')],
    [
      'a frame sync followed by garbage where the next frame should be',
      () => {
        const one = syntheticMp3(1).subarray(0, 418 + 8);
        one.fill(0x41, 418);
        return one;
      },
    ],
    ['an ID3 tag followed by junk', () => Buffer.concat([id3Tag(10), Buffer.from('junkjunkjunk')])],
    ['a RIFF that is not WAVE', () => Buffer.from('RIFF\x10\x00\x00\x00AVI LIST', 'latin1')],
    ['EBML of an unknown doc type', () => ebmlHeader('other')],
    ['an AVIF still image', () => ftyp('avif', ['avif', 'mif1'])],
  ])('returns null for %s', (_name, make) => {
    expect(sniffAudio(make())).toBeNull();
  });
});

describe('sniffImage', () => {
  const base = () => sharp({ create: { width: 4, height: 4, channels: 3, background: '#336699' } });

  it.each<[string, () => Promise<Buffer>, string, string]>([
    ['png', () => base().png().toBuffer(), 'png', 'image/png'],
    ['jpeg', () => base().jpeg().toBuffer(), 'jpeg', 'image/jpeg'],
    ['webp', () => base().webp().toBuffer(), 'webp', 'image/webp'],
    ['gif', () => base().gif().toBuffer(), 'gif', 'image/gif'],
  ])('detects %s', async (_name, make, ext, mime) => {
    const buf = await make();
    expect(sniffImage(buf)).toEqual({ ext, mime });
    expect(sniffMedia(buf)).toEqual({ ext, mime });
    expect(sniffAudio(buf)).toBeNull();
  });

  it('does not take audio or SVG for an image', () => {
    expect(sniffImage(syntheticWav(0.1))).toBeNull();
    expect(sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(sniffMedia(syntheticWav(0.1))).toEqual({ ext: 'wav', mime: 'audio/wav' });
  });
});
