import { niceCeiling, stackBars } from '../../../web/src/lib/chart';
import { planAllowsApiKeys, planCovers, planName } from '../../../web/src/lib/format';
import { readRateLimit } from '../../../web/src/lib/rate-limit';
import { SseParser } from '../../../web/src/lib/sse';

describe('usage chart geometry', () => {
  test('axis maximum is a round number at or above the tallest bar', () => {
    expect([0, 1, 3, 7, 12, 99, 100, 101, 2400].map(niceCeiling)).toEqual([1, 1, 5, 10, 20, 100, 100, 200, 5000]);
  });

  test('segments stack from the bottom in category order and scale to the box', () => {
    const { bars, max } = stackBars(
      [
        { label: 'd1', values: { text: 10, image: 30 } },
        { label: 'd2', values: {} },
      ],
      ['text', 'image'],
      200,
      100,
    );
    expect(max).toBe(50);
    expect(bars).toHaveLength(2);
    expect(bars[0]!.total).toBe(40);
    expect(bars[0]!.segments).toEqual([
      { category: 'text', y: 80, height: 20, value: 10 },
      { category: 'image', y: 20, height: 60, value: 30 },
    ]);
    expect(bars[1]!.segments).toEqual([]);
    expect(bars[1]!.x).toBeGreaterThan(bars[0]!.x + bars[0]!.width);
  });
});

describe('rate-limit headers', () => {
  test('read when all four are present, else null', () => {
    const h = new Headers({
      'X-RateLimit-Limit-Hour': '20',
      'X-RateLimit-Remaining-Hour': '19',
      'X-RateLimit-Limit-Day': '150',
      'X-RateLimit-Remaining-Day': '149',
      'X-RateLimit-Reset-Hour': '1795316400',
    });
    expect(readRateLimit(h)).toEqual({ limitHour: 20, remainingHour: 19, limitDay: 150, remainingDay: 149, resetHour: 1795316400 });
    expect(readRateLimit(new Headers({ 'X-RateLimit-Limit-Hour': '20' }))).toBeNull();
    expect(
      readRateLimit(
        new Headers({
          'X-RateLimit-Limit-Hour': 'x',
          'X-RateLimit-Remaining-Hour': '1',
          'X-RateLimit-Limit-Day': '1',
          'X-RateLimit-Remaining-Day': '1',
        }),
      ),
    ).toBeNull();
  });
});

describe('plans', () => {
  test('names, API-key access from VIP, model tiers', () => {
    expect(['free', 'basic', 'pro', 'vip', 'elite'].map(planName)).toEqual(['Starter', 'Basic', 'Pro', 'VIP', 'Elite']);
    expect(['free', 'basic', 'pro', 'vip', 'elite'].map(planAllowsApiKeys)).toEqual([false, false, false, true, true]);
    expect(planCovers('basic', null)).toBe(true);
    expect(planCovers('free', 'basic')).toBe(false);
    expect(planCovers('elite', 'vip')).toBe(true);
  });
});

describe('server-sent events', () => {
  test('events split across chunks, CRLF, comments and multi-line data', () => {
    const p = new SseParser();
    expect(p.push(': heartbeat\n\nevent: content_delta\nda')).toEqual([]);
    expect(p.push('ta: {"a":1}\r\n\r\ndata: one\ndata: two\n')).toEqual([{ event: 'content_delta', data: '{"a":1}' }]);
    expect(p.push('\ndata: [DONE]\n\n')).toEqual([
      { event: 'message', data: 'one\ntwo' },
      { event: 'message', data: '[DONE]' },
    ]);
  });
});
