import crypto from 'node:crypto';
import { InvalidCredentialsError } from './errors';

/** What the Telegram Login Widget hands the client (and the client posts to /auth/messenger). */
export interface TelegramLoginData {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
  photo_url?: string;
  auth_date: number;
  hash: string;
  /** Fields Telegram may add later are part of the signed data too. */
  [field: string]: string | number | undefined;
}

/** Allowed clock skew for an `auth_date` slightly in the future. */
const FUTURE_SKEW_SECONDS = 60;

/** `key=value` lines of every received field except `hash`, sorted by key, joined by `\n`. */
export function dataCheckString(data: Record<string, string | number | undefined>): string {
  return Object.keys(data)
    .filter((key) => key !== 'hash' && data[key] !== undefined)
    .sort()
    .map((key) => `${key}=${data[key]}`)
    .join('\n');
}

/** hex(HMAC_SHA256(data_check_string, SHA256(bot_token))): what a genuine widget login carries as `hash`. */
export function telegramLoginHash(data: Record<string, string | number | undefined>, botToken: string): string {
  const secret = crypto.createHash('sha256').update(botToken).digest();
  return crypto.createHmac('sha256', secret).update(dataCheckString(data)).digest('hex');
}

/**
 * Checks a Login Widget payload: the signature with the bot token, and that `auth_date` is not older than
 * `maxAgeSeconds`. @throws InvalidCredentialsError
 */
export function verifyTelegramLogin(data: TelegramLoginData, botToken: string, maxAgeSeconds: number, nowMs = Date.now()): void {
  const expected = Buffer.from(telegramLoginHash(data, botToken), 'hex');
  const given = /^[0-9a-f]{64}$/i.test(data.hash) ? Buffer.from(data.hash, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
    throw new InvalidCredentialsError('Telegram login data failed the signature check');
  }
  const age = Math.floor(nowMs / 1000) - data.auth_date;
  if (age > maxAgeSeconds || age < -FUTURE_SKEW_SECONDS) {
    throw new InvalidCredentialsError('Telegram login data is too old: sign in again');
  }
}
