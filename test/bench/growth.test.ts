import { runGrowth } from '../../bench/growth';

// `npm run bench:growth` end to end at 1/1,000 of its size: seeds, measures every read before and after the growth
// indexes, refills every account and runs retention, and reports each figure.
test('the growth bench seeds, measures and reports at a small scale', async () => {
  const report = await runGrowth({ adminUrl: process.env.DATABASE_URL!, scale: 0.001, samples: 3, chatRequests: 0 });
  expect(report).toMatch(/^### Growth run .*GROWTH_SCALE=0\.001/);
  for (const read of ['balance', 'history (plain)', 'request log', 'usage by day', 'usage by model', 'usage by key', 'stats', '/metrics']) {
    expect(report).toMatch(
      new RegExp(`\\| ${read.replace(/[()/]/g, '\\$&')}[^|]*\\| [\\d.]+ / [\\d.]+ \\| [\\d.]+ / [\\d.]+ \\| [\\d.]+ / [\\d.]+ \\|`),
    );
  }
  // Every account (the measured one included) was due and refilled; retention found the expired files.
  expect(report).toMatch(/\| monthly refill, every account due at once \| 100 \|/);
  expect(report).toMatch(/\| retention \(selection and marking; file deletes stubbed\) \| [1-9]\d* \|/);
}, 60_000);
