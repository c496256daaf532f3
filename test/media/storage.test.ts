import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InvalidStorageKeyError, LocalDiskStorage, newResultKey, readStoredObject, type StoredObject } from '../../src/core/media/storage';

function listAll(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

describe('newResultKey', () => {
  it('is a UTC date path with an unguessable name', () => {
    const when = new Date('2026-11-22T23:30:00Z');
    const a = newResultKey('webp', when);
    const b = newResultKey('webp', when);
    expect(a).toMatch(/^2026\/11\/22\/[A-Za-z0-9_-]{22}\.webp$/);
    expect(a).not.toBe(b);
  });

  it('refuses an odd extension', () => {
    expect(() => newResultKey('../x')).toThrow(InvalidStorageKeyError);
  });
});

describe('LocalDiskStorage', () => {
  let root: string;
  let storage: LocalDiskStorage;

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'storage-'));
    storage = new LocalDiskStorage(root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  async function content(obj: StoredObject | null): Promise<string> {
    if (!obj) throw new Error('missing');
    return (await readStoredObject(obj, 1024 * 1024)).toString();
  }

  it('stores, reads back with its media type, and deletes', async () => {
    const key = '2026/11/22/abc123.webp';
    expect(await storage.exists(key)).toBe(false);
    expect(await storage.get(key)).toBeNull();

    await storage.put(key, Buffer.from('webp-bytes'), 'image/webp');
    expect(await storage.exists(key)).toBe(true);
    const got = await storage.get(key);
    expect(got?.mime).toBe('image/webp');
    expect(got?.size).toBe(10);
    expect(await content(got)).toBe('webp-bytes');

    await storage.delete(key);
    expect(await storage.exists(key)).toBe(false);
    expect(await storage.get(key)).toBeNull();
    expect(listAll(root)).toEqual([]);
  });

  it('overwrites in place and leaves no temp files behind', async () => {
    const key = newResultKey('png');
    await storage.put(key, Buffer.from('first'), 'image/png');
    await storage.put(key, Buffer.from('second'), 'image/png');
    expect(await content(await storage.get(key))).toBe('second');
    expect(listAll(root).sort()).toEqual([key, `${key}.meta.json`].map((k) => path.join(...k.split('/'))).sort());
  });

  it('never exposes a partial file to concurrent writers and readers', async () => {
    const key = 'race/file.bin';
    const a = Buffer.alloc(2 * 1024 * 1024, 'a');
    const b = Buffer.alloc(2 * 1024 * 1024, 'b');
    await Promise.all([storage.put(key, a, 'application/octet-stream'), storage.put(key, b, 'application/octet-stream')]);
    const data = await readStoredObject((await storage.get(key))!, 4 * 1024 * 1024);
    expect(data.equals(a) || data.equals(b)).toBe(true);
  });

  it('deleting a missing key is fine', async () => {
    await expect(storage.delete('2026/01/01/none.webp')).resolves.toBeUndefined();
  });

  it('falls back to octet-stream when the metadata file is gone', async () => {
    const key = 'x/y.dat';
    await storage.put(key, Buffer.from('z'), 'text/plain');
    rmSync(path.join(root, 'x', 'y.dat.meta.json'));
    const got = await storage.get(key);
    got?.stream?.destroy();
    expect(got?.mime).toBe('application/octet-stream');
  });

  it.each([
    '../escape.webp',
    '2026/../../etc/passwd',
    '/etc/passwd',
    '',
    'a//b.png',
    'a/./b.png',
    'a\\b.png',
    'a/b..png/..',
    '.hidden',
    'x/y.png.meta.json',
    'name with space.png',
    `${'a'.repeat(600)}.png`,
  ])('refuses the key %j everywhere', async (key) => {
    await expect(storage.put(key, Buffer.from('x'), 'text/plain')).rejects.toThrow(InvalidStorageKeyError);
    await expect(storage.get(key)).rejects.toThrow(InvalidStorageKeyError);
    await expect(storage.exists(key)).rejects.toThrow(InvalidStorageKeyError);
    await expect(storage.delete(key)).rejects.toThrow(InvalidStorageKeyError);
  });

  it('cannot be tricked into reading outside its root', async () => {
    writeFileSync(path.join(path.dirname(root), `${path.basename(root)}-secret.txt`), 'secret');
    try {
      await expect(storage.get(`../${path.basename(root)}-secret.txt`)).rejects.toThrow(InvalidStorageKeyError);
    } finally {
      rmSync(path.join(path.dirname(root), `${path.basename(root)}-secret.txt`), { force: true });
    }
  });
});

describe('readStoredObject', () => {
  it('refuses an object over the cap', async () => {
    await expect(readStoredObject({ data: Buffer.alloc(10), mime: 'x/y', size: 10 }, 5)).rejects.toThrow(RangeError);
  });
});
