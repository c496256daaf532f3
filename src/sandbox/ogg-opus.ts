// A silent Ogg Opus file (RFC 7845), built by hand: what the sandbox answers for speech asked as `opus`, so the
// bot's voice messages carry a real OGG/Opus container as a vendor's would.

/** CRC-32 of Ogg pages: polynomial 0x04c11db7, not reflected, initial value 0, no final XOR. */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let bit = 0; bit < 8; bit++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

export function oggCrc(data: Buffer): number {
  let crc = 0;
  for (const byte of data) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ byte) & 0xff]) >>> 0;
  return crc;
}

const SERIAL = 0x4e42554c;
const SAMPLES_PER_PACKET = 960; // 20 ms at 48 kHz
const PACKETS_PER_PAGE = 50;
/** One Opus packet of 20 ms silence: TOC 0xf8 (CELT-only fullband, 20 ms, mono, one frame), then an empty frame. */
const SILENT_PACKET = Buffer.from([0xf8, 0xff, 0xfe]);

/** One Ogg page holding whole packets (each under 255 bytes, so one lacing value per packet). */
function page(packets: Buffer[], granule: bigint, sequence: number, flags: number): Buffer {
  const header = Buffer.alloc(27 + packets.length);
  header.write('OggS', 0, 'latin1');
  header[4] = 0;
  header[5] = flags;
  header.writeBigInt64LE(granule, 6);
  header.writeUInt32LE(SERIAL, 14);
  header.writeUInt32LE(sequence, 18);
  header[26] = packets.length;
  packets.forEach((p, i) => {
    if (p.length >= 255) throw new RangeError('ogg-opus: packet too long for one lacing value');
    header[27 + i] = p.length;
  });
  const out = Buffer.concat([header, ...packets]);
  out.writeUInt32LE(oggCrc(out), 22);
  return out;
}

/** `seconds` of silence as a mono 48 kHz Ogg Opus stream (identification and comment headers, then audio pages). */
export function syntheticOggOpus(seconds: number): Buffer {
  if (!(seconds > 0)) throw new RangeError(`syntheticOggOpus: bad duration ${seconds}`);
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'latin1');
  head[8] = 1; // version
  head[9] = 1; // channels
  head.writeUInt16LE(0, 10); // pre-skip
  head.writeUInt32LE(48000, 12); // input sample rate
  head.writeInt16LE(0, 16); // output gain
  head[18] = 0; // mapping family
  const vendor = Buffer.from('nebula sandbox', 'utf8');
  const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
  tags.write('OpusTags', 0, 'latin1');
  tags.writeUInt32LE(vendor.length, 8);
  vendor.copy(tags, 12);
  tags.writeUInt32LE(0, 12 + vendor.length);

  const pages = [page([head], 0n, 0, 0x02), page([tags], 0n, 1, 0)];
  const total = Math.ceil((seconds * 48000) / SAMPLES_PER_PACKET);
  for (let done = 0, sequence = 2; done < total; sequence++) {
    const count = Math.min(PACKETS_PER_PAGE, total - done);
    done += count;
    const last = done === total;
    pages.push(page(Array<Buffer>(count).fill(SILENT_PACKET), BigInt(done * SAMPLES_PER_PACKET), sequence, last ? 0x04 : 0));
  }
  return Buffer.concat(pages);
}
