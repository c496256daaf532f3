import { parseDataUri } from '../../src/core/net/data-uri';
import { FetchFailedError, UnsafeUrlError } from '../../src/core/net/errors';

describe('parseDataUri', () => {
  const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
  const uri = `data:image/png;base64,${bytes.toString('base64')}`;

  it('decodes a base64 image', () => {
    expect(parseDataUri(uri, 100)).toEqual({ data: bytes, mime: 'image/png' });
  });

  it('accepts parameters and line breaks in the payload', () => {
    const b64 = Buffer.alloc(60, 9).toString('base64');
    const out = parseDataUri(`data:Image/JPEG;name=a.jpg;base64,${b64.slice(0, 40)}\n${b64.slice(40)}`, 100);
    expect(out.mime).toBe('image/jpeg');
    expect(out.data).toEqual(Buffer.alloc(60, 9));
  });

  it('refuses a payload over the cap before decoding', () => {
    const big = `data:image/png;base64,${Buffer.alloc(1001).toString('base64')}`;
    expect(() => parseDataUri(big, 1000)).toThrow(FetchFailedError);
    expect(parseDataUri(`data:image/png;base64,${Buffer.alloc(1000).toString('base64')}`, 1000).data).toHaveLength(1000);
  });

  it.each(['data:image/png,rawbytes', 'data:image/png;base64,@@@@', 'data:image/png;base64,abc', 'http://x/y.png', 'data:;base64'])(
    'refuses %j',
    (bad) => {
      expect(() => parseDataUri(bad, 1000)).toThrow(UnsafeUrlError);
    },
  );
});
