import { extensionOf, mimeOfExtension } from '../../src/core/media/mime';

test('a media type gives its extension, parameters and case ignored; unknown types fall back', () => {
  expect(extensionOf('image/jpeg')).toBe('jpg');
  expect(extensionOf('Audio/MPEG; codecs=mp3')).toBe('mp3');
  expect(extensionOf('audio/x-wav')).toBe('wav');
  expect(extensionOf('application/x-unknown')).toBe('bin');
  expect(extensionOf('application/x-unknown', 'mp3')).toBe('mp3');
});

test('an extension gives its canonical media type, and the two tables agree both ways', () => {
  expect(mimeOfExtension('JPEG')).toBe('image/jpeg');
  expect(mimeOfExtension('wav')).toBe('audio/wav');
  expect(mimeOfExtension('mp3')).toBe('audio/mpeg');
  expect(mimeOfExtension('xyz')).toBeUndefined();
  for (const ext of ['png', 'jpg', 'webp', 'mp3', 'wav', 'ogg', 'mp4', 'webm', 'm4a', 'flac', 'pdf']) {
    expect(extensionOf(mimeOfExtension(ext)!)).toBe(ext);
  }
});
