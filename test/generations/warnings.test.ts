import { readWarnings, unsupportedSetting } from '../../src/core/warnings';

test('stored warnings read back typed; the plain strings of older results become notes', () => {
  const typed = unsupportedSetting('seed', 'flux-dev');
  expect(readWarnings([typed, 'an older warning'])).toEqual([
    { type: 'unsupported-setting', setting: 'seed', message: 'seed is not used by flux-dev and was left out' },
    { type: 'note', message: 'an older warning' },
  ]);
  expect(readWarnings(undefined)).toEqual([]);
});
