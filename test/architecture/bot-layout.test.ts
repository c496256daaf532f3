import fs from 'node:fs';
import path from 'node:path';

const BOT = path.resolve(__dirname, '../../src/bot');

test('src/bot keeps only the shared files at its root; the rest lives in folders by job', () => {
  const rootFiles = fs
    .readdirSync(BOT, { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();
  expect(rootFiles).toEqual(['bot.ts', 'context.ts', 'errors.ts', 'i18n.ts', 'index.ts']);
});
