import { VOICE_MODES } from '../../core/accounts/voice-preference';
import { IMAGE_FORMATS } from '../../core/catalog/types';
import { BOT_LOCALES } from '../i18n';
import { callbackKind, integer, oneOf, plainCallback, token, type PayloadCodec } from './define';

export { CALLBACK_DATA_MAX_BYTES, onCallback, type CallbackKind, type PlainCallback } from './define';

/**
 * Every kind of inline button the bot sends: the keyboard builds its data with `KIND.data(payload)` and the
 * handler matches it with `onCallback(composer, KIND, (ctx, payload) => …)` (or `KIND.data(…)` for one exact
 * button). The wire form is `<prefix>` or `<prefix>:<payload>`, never over 64 bytes.
 */

/** Entries of the main menu; `main` is the menu itself. */
export const MENU_ENTRIES = [
  'chat',
  'image',
  'video',
  'tts',
  'stt',
  'music',
  'tools',
  'balance',
  'settings',
  'stats',
  'history',
  'help',
] as const;
export type MenuEntry = (typeof MENU_ENTRIES)[number];
export const MENU = callbackKind('menu', oneOf<MenuEntry | 'main'>(['main', ...MENU_ENTRIES]));

/** A catalog model slug (the longest today is 30 characters). */
const modelSlug = token('[a-z0-9._-]', 40);

export const CHAT_MODEL = callbackKind('chat:m', modelSlug);
export const CHAT_NEW = plainCallback('chat:new');
/** Ask the question of chat turn <n> again (billed again); only the latest turn's button still works. */
export const CHAT_RETRY = callbackKind('chat:again', integer);
/** Stop the answer being written (by its running id): only the member who asked may. */
export const CHAT_STOP = callbackKind('chat:stop', token('[A-Za-z0-9_-]', 12));
/** Open the persona list (/mode). */
export const PERSONAS = plainCallback('mode');
/** Chat as an assistant, by id; `off` for no persona. */
export const PERSONA = callbackKind<number | 'off'>('mode:set', {
  pattern: 'off|\\d{1,10}',
  maxBytes: 10,
  encode: (id) => String(id),
  decode: (text) => (text === 'off' ? 'off' : Number(text)),
});
export const STT_MODEL = callbackKind('stt:m', modelSlug);

export const SET_LANGUAGE = callbackKind('set:lang', oneOf(BOT_LOCALES));
export const SET_IMAGE_FORMAT = callbackKind('set:fmt', oneOf(IMAGE_FORMATS));
export const SET_NOTIFICATIONS = callbackKind('set:notif', oneOf(['on', 'off']));
export const SET_VOICE_MODE = callbackKind('set:voice', oneOf(VOICE_MODES));
/** Voice answers: a chat answer is also spoken back. */
export const SET_VOICE_ANSWERS = callbackKind('set:va', oneOf(['on', 'off']));
/** The list of speech models for voice answers, and the choice of one. */
export const TTS_MODELS = plainCallback('tts:list');
export const SET_TTS_MODEL = callbackKind('tts:m', modelSlug);
/** One-step runs up to this price (tokens) start without asking; 0 asks every time. */
export const SET_CONFIRM_ABOVE = callbackKind('set:ask', integer);

export const BALANCE_TOP_UP = plainCallback('bal:topup');
export const BALANCE_PLANS = plainCallback('bal:plans');
export const SUBSCRIPTION_CANCEL = plainCallback('sub:cancel');
/** The invitation screen (/referral). */
export const REFERRAL = plainCallback('ref');
/** Buy one payment article (token package or plan) by its id. */
export const PAY = callbackKind('pay', token('[a-z0-9-]', 40));

/** A history page: an opaque cursor, or null for the newest page. */
export const HISTORY_PAGE = callbackKind<string | null>('hist', {
  pattern: 'first|[A-Za-z0-9_-]{1,40}',
  maxBytes: 40,
  encode: (cursor) => cursor ?? 'first',
  decode: (text) => (text === 'first' ? null : text),
});
/** Send a finished generation again, by id. */
export const RESEND = callbackKind('res', integer);

/** What a button under an image result does with it: the same request again, variations, upscale, edit. */
export const FOLLOW_UPS = ['again', 'vary', 'up', 'edit'] as const;
export type FollowUp = (typeof FOLLOW_UPS)[number];
/** A follow-up of a finished image result, by the generation's id. */
export const RESULT_FOLLOW_UP = callbackKind<{ action: FollowUp; id: number }>('img', {
  pattern: `(?:${FOLLOW_UPS.join('|')}):\\d{1,10}`,
  maxBytes: 5 + 1 + 10,
  encode: ({ action, id }) => `${action}:${id}`,
  decode: (text) => {
    const [action, id] = text.split(':');
    return { action: action as FollowUp, id: Number(id) };
  },
});

/**
 * A button of a wizard step: `x` cancels, `skip` skips an optional photo, `ok` confirms, `o:<value>` picks an
 * option, `m:<slug>` picks a model.
 */
export type WizardValue = 'x' | 'skip' | 'ok' | `o:${string}` | `m:${string}`;
export interface WizardPress {
  /** The wizard's nonce: buttons of an earlier, finished wizard do not match the current one. */
  nonce: string;
  value: WizardValue;
}
const WIZARD_OPTION_MAX = 40;
const wizardPress: PayloadCodec<WizardPress> = {
  pattern: `[0-9a-z]{5}:(?:x|skip|ok|o:[^\\s]{1,${WIZARD_OPTION_MAX}}|m:[a-z0-9._-]{1,${WIZARD_OPTION_MAX}})`,
  maxBytes: 5 + 1 + 2 + WIZARD_OPTION_MAX,
  encode: ({ nonce, value }) => `${nonce}:${value}`,
  decode: (text) => ({ nonce: text.slice(0, 5), value: text.slice(6) as WizardValue }),
};
export const WIZARD = callbackKind('cv', wizardPress);

/** All kinds, for the checks in test/bot/callback-data.test.ts (distinct prefixes, the 64-byte limit). */
export const CALLBACK_KINDS = [
  MENU,
  CHAT_MODEL,
  CHAT_NEW,
  CHAT_RETRY,
  CHAT_STOP,
  PERSONAS,
  PERSONA,
  STT_MODEL,
  SET_LANGUAGE,
  SET_IMAGE_FORMAT,
  SET_NOTIFICATIONS,
  SET_VOICE_MODE,
  SET_VOICE_ANSWERS,
  TTS_MODELS,
  SET_TTS_MODEL,
  SET_CONFIRM_ABOVE,
  BALANCE_TOP_UP,
  BALANCE_PLANS,
  SUBSCRIPTION_CANCEL,
  REFERRAL,
  PAY,
  HISTORY_PAGE,
  RESEND,
  RESULT_FOLLOW_UP,
  WIZARD,
] as const;
