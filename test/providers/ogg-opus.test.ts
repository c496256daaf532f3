// The sandbox's Ogg Opus (speech asked as `opus`): pages with valid checksums, the two Opus headers, and a
// granule position that gives the length asked for.
import { oggCrc, syntheticOggOpus } from '../../src/sandbox/ogg-opus';
import { sniffAudio } from '../../src/core/media/sniff';

interface Page {
  flags: number;
  granule: bigint;
  sequence: number;
  packets: Buffer[];
}

function pages(data: Buffer): Page[] {
  const out: Page[] = [];
  for (let pos = 0; pos < data.length;) {
    expect(data.toString('latin1', pos, pos + 4)).toBe('OggS');
    const count = data[pos + 26];
    const lacing = [...data.subarray(pos + 27, pos + 27 + count)];
    const length = 27 + count + lacing.reduce((a, b) => a + b, 0);
    const raw = Buffer.from(data.subarray(pos, pos + length));
    const crc = raw.readUInt32LE(22);
    raw.writeUInt32LE(0, 22);
    expect(oggCrc(raw)).toBe(crc);
    let at = pos + 27 + count;
    const packets = lacing.map((n) => data.subarray(at, (at += n)));
    out.push({ flags: data[pos + 5], granule: data.readBigInt64LE(pos + 6), sequence: data.readUInt32LE(pos + 18), packets });
    pos += length;
  }
  return out;
}

test('the page checksum is the Ogg CRC-32 (check value of "123456789")', () => {
  expect(oggCrc(Buffer.from('123456789'))).toBe(0x89a1897f);
});

test('2.5 s of silence: OpusHead, OpusTags, audio pages ending at 120,000 samples, BOS and EOS set', () => {
  const data = syntheticOggOpus(2.5);
  expect(sniffAudio(data)?.mime).toBe('audio/ogg');
  const all = pages(data);
  expect(all.map((p) => p.sequence)).toEqual(all.map((_, i) => i));
  expect(all[0].flags).toBe(0x02);
  expect(all[0].packets[0].toString('latin1', 0, 8)).toBe('OpusHead');
  expect(all[0].packets[0].readUInt32LE(12)).toBe(48000);
  expect(all[1].packets[0].toString('latin1', 0, 8)).toBe('OpusTags');
  expect(all[all.length - 1].flags).toBe(0x04);
  expect(all[all.length - 1].granule).toBe(120_000n);
  expect(all.slice(2).reduce((n, p) => n + p.packets.length, 0)).toBe(125);
});
