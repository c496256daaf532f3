import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DEFAULT_RETRY_POLICY, retryDelayMs, retrySchedule } from '../../src/core/webhooks/backoff';
import { newMessageId, newWebhookSecret, signWebhook, webhookHeaders } from '../../src/core/webhooks/signing';

test('our signature is the one the standardwebhooks package computes and verifies', () => {
  const secret = newWebhookSecret();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  const id = newMessageId();
  const body = JSON.stringify({ event: 'generation.completed', generation_id: 7, text: 'ünïcödé ✓' });
  const now = new Date();
  const headers = webhookHeaders(secret, id, body, now);
  const reference = new Webhook(secret);
  expect(headers['webhook-signature']).toBe(reference.sign(id, now, body));
  expect(reference.verify(body, headers)).toEqual(JSON.parse(body));
  // A changed body, id or secret does not verify.
  expect(() => reference.verify(`${body} `, headers)).toThrow();
  expect(() => reference.verify(body, { ...headers, 'webhook-id': newMessageId() })).toThrow();
  expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
});

test('the signed content is id.timestamp.body keyed with the decoded secret', () => {
  const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
  const expected = crypto
    .createHmac('sha256', Buffer.from('0123456789abcdef0123456789abcdef'))
    .update('msg_1.1700000000.{}')
    .digest('base64');
  expect(signWebhook(secret, 'msg_1', 1700000000, '{}')).toBe(`v1,${expected}`);
});

test('retry delays grow by 4x with at most 20 % jitter, capped at 6 h, within 24 h', () => {
  const low = retryDelayMs(DEFAULT_RETRY_POLICY, 1, () => 0);
  const high = retryDelayMs(DEFAULT_RETRY_POLICY, 1, () => 1);
  expect([low, high]).toEqual([12_000, 18_000]);
  expect(retryDelayMs(DEFAULT_RETRY_POLICY, 2, () => 0.5)).toBe(60_000);
  expect(retryDelayMs(DEFAULT_RETRY_POLICY, 20, () => 0.5)).toBe(6 * 3600_000);
  const schedule = retrySchedule(DEFAULT_RETRY_POLICY);
  expect(schedule.map((ms) => ms / 1000)).toEqual([15, 60, 240, 960, 3840, 15360, 21600, 21600, 21600]);
  expect(schedule.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(24 * 3600_000);
});
