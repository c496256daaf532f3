import crypto from 'node:crypto';
import { InvalidCredentialsError } from './errors';
import type { TelegramProfile } from './telegram-account';

/** Telegram's rule for Mini Apps: `initData` signed longer ago than a day is refused. */
export const WEBAPP_MAX_AGE_SECONDS = 86_400;
/** Allowed clock skew for an `auth_date` slightly in the future. */
const FUTURE_SKEW_SECONDS = 60;

/** What a verified `initData` says (Telegram's WebAppInitData, the parts sign-in uses). */
export interface WebAppInitData {
  user: TelegramProfile & { id: number };
  authDate: number;
  /** `startapp` parameter of the link that opened the Mini App (`ref_<code>` for an invitation). */
  startParam?: string;
}

/** The secret key of Mini App data: HMAC-SHA-256 of the bot token with the constant string "WebAppData" as the key. */
export function webAppSecretKey(botToken: string): Buffer {
  return crypto.createHmac('sha256', 'WebAppData').update(botToken).digest();
}

/** Every received field except `hash`, as `key=<value>` (values URL-decoded), sorted by key, joined by `\n`. */
export function webAppDataCheckString(fields: ReadonlyMap<string, string>): string {
  return [...fields.keys()]
    .filter((key) => key !== 'hash')
    .sort()
    .map((key) => `${key}=${fields.get(key)}`)
    .join('\n');
}

/** hex(HMAC_SHA256(data_check_string, secret_key)): what genuine init data carries as `hash`. */
export function webAppHash(fields: ReadonlyMap<string, string>, botToken: string): string {
  return crypto.createHmac('sha256', webAppSecretKey(botToken)).update(webAppDataCheckString(fields)).digest('hex');
}

const forged = () => new InvalidCredentialsError('Telegram Mini App data failed the signature check');

/** The fields of a query string; a field given twice is refused (the signature covers one value per key). */
function fieldsOf(initData: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(initData)) {
    if (fields.has(key)) throw forged();
    fields.set(key, value);
  }
  return fields;
}

function userOf(json: string | undefined): WebAppInitData['user'] {
  let user: unknown;
  try {
    user = json === undefined ? undefined : JSON.parse(json);
  } catch {
    user = undefined;
  }
  const u = user as Record<string, unknown> | undefined;
  if (!u || typeof u !== 'object' || !Number.isSafeInteger(u.id) || (u.id as number) <= 0) {
    throw new InvalidCredentialsError('Telegram Mini App data names no user: open the app from the bot');
  }
  const text = (v: unknown, max: number) => (typeof v === 'string' && v.length > 0 ? v.slice(0, max) : undefined);
  const language = text(u.language_code, 16);
  return {
    id: u.id as number,
    first_name: text(u.first_name, 256),
    last_name: text(u.last_name, 256),
    username: text(u.username, 64),
    photo_url: text(u.photo_url, 2048),
    language: language?.toLowerCase().startsWith('ru') ? 'ru' : 'en',
  };
}

/**
 * Checks a Mini App's `Telegram.WebApp.initData` as Telegram documents it: the hash over the data-check-string with
 * the key derived from the bot token, and an `auth_date` no older than `maxAgeSeconds`. @throws InvalidCredentialsError
 */
export function verifyWebAppInitData(
  initData: string,
  botToken: string,
  nowMs = Date.now(),
  maxAgeSeconds = WEBAPP_MAX_AGE_SECONDS,
): WebAppInitData {
  const fields = fieldsOf(initData);
  const hash = fields.get('hash') ?? '';
  if (!/^[0-9a-f]{64}$/i.test(hash)) throw forged();
  const expected = Buffer.from(webAppHash(fields, botToken), 'hex');
  if (!crypto.timingSafeEqual(Buffer.from(hash, 'hex'), expected)) throw forged();
  const authDate = Number(fields.get('auth_date'));
  if (!Number.isSafeInteger(authDate) || authDate <= 0) throw forged();
  const age = Math.floor(nowMs / 1000) - authDate;
  if (age > maxAgeSeconds || age < -FUTURE_SKEW_SECONDS) {
    throw new InvalidCredentialsError('Telegram Mini App data is too old: open the app again');
  }
  const startParam = fields.get('start_param');
  return { user: userOf(fields.get('user')), authDate, ...(startParam ? { startParam } : {}) };
}
