import { listModels } from '../../src/core/catalog/catalog';
import {
  CALLBACK_DATA_MAX_BYTES,
  CALLBACK_KINDS,
  CHAT_MODEL,
  CHAT_RETRY,
  HISTORY_PAGE,
  MENU,
  PAY,
  PERSONA,
  PERSONAS,
  RESEND,
  SET_LANGUAGE,
  SET_VOICE_MODE,
  STT_MODEL,
  WIZARD,
} from '../../src/bot/callback-data';

test('every kind fits Telegram’s 64-byte limit at its longest payload, and no two kinds share a prefix', () => {
  const tooLong = CALLBACK_KINDS.filter((k) => k.maxBytes > CALLBACK_DATA_MAX_BYTES).map((k) => k.prefix);
  expect(tooLong).toEqual([]);
  const prefixes = CALLBACK_KINDS.map((k) => k.prefix);
  expect(new Set(prefixes).size).toBe(prefixes.length);
});

test('the data of one kind is matched by no other kind’s filter', () => {
  const samples = [
    MENU.data('main'),
    CHAT_MODEL.data('gpt-6.1-sol'),
    STT_MODEL.data('whisper-1'),
    PAY.data('tokens-100'),
    HISTORY_PAGE.data(null),
    RESEND.data(7),
    WIZARD.data({ nonce: 'abc12', value: 'ok' }),
    SET_LANGUAGE.data('ru'),
    CHAT_RETRY.data(3),
    PERSONAS.data,
    PERSONA.data(12),
    PERSONA.data('off'),
    SET_VOICE_MODE.data('answer'),
  ];
  for (const data of samples) {
    const owners = CALLBACK_KINDS.filter((k) => ('filter' in k ? k.filter.test(data) : k.data === data));
    expect(owners.map((k) => k.prefix)).toHaveLength(1);
  }
});

test('payloads round-trip and keep the wire form the bot has always sent', () => {
  expect(MENU.data('settings')).toBe('menu:settings');
  expect(MENU.parse('menu:settings')).toBe('settings');
  expect(HISTORY_PAGE.data(null)).toBe('hist:first');
  expect(HISTORY_PAGE.parse('hist:first')).toBeNull();
  expect(HISTORY_PAGE.parse('hist:Ab_c-9')).toBe('Ab_c-9');
  expect(RESEND.data(42)).toBe('res:42');
  expect(RESEND.parse('res:42')).toBe(42);
  expect(PERSONA.parse(PERSONA.data(12))).toBe(12);
  expect(PERSONA.parse('mode:set:off')).toBe('off');
  expect(CHAT_RETRY.parse(CHAT_RETRY.data(7))).toBe(7);
  expect(WIZARD.data({ nonce: '0a1b2', value: 'o:9:16' })).toBe('cv:0a1b2:o:9:16');
  expect(WIZARD.parse('cv:0a1b2:o:9:16')).toEqual({ nonce: '0a1b2', value: 'o:9:16' });
  expect(WIZARD.parse('cv:0a1b2:x')).toEqual({ nonce: '0a1b2', value: 'x' });
});

test('data a kind did not build is refused on parse', () => {
  expect(MENU.parse('menu:nowhere')).toBeUndefined();
  expect(SET_LANGUAGE.parse('set:lang:de')).toBeUndefined();
  expect(RESEND.parse('res:abc')).toBeUndefined();
  expect(WIZARD.parse('cv:0a1b2:launch')).toBeUndefined();
  expect(CHAT_MODEL.parse(undefined)).toBeUndefined();
});

test('a payload that would not fit throws when the button is built, instead of reaching Telegram', () => {
  expect(() => PAY.data('x'.repeat(41))).toThrow(/does not fit/);
  expect(() => RESEND.data(-1)).toThrow(/does not fit/);
  expect(() => WIZARD.data({ nonce: 'abc12', value: `o:${'9'.repeat(41)}` })).toThrow(/does not fit/);
});

test('every catalog model and every option value a wizard offers fits its button', () => {
  for (const model of listModels()) {
    expect(CHAT_MODEL.parse(CHAT_MODEL.data(model.slug))).toBe(model.slug);
    expect(WIZARD.parse(WIZARD.data({ nonce: 'zzzzz', value: `m:${model.slug}` }))?.value).toBe(`m:${model.slug}`);
    const options = Object.values(model.config as unknown as Record<string, unknown>)
      .filter(Array.isArray)
      .flat()
      .filter((v): v is string | number => typeof v === 'string' || typeof v === 'number');
    for (const option of options) {
      const data = WIZARD.data({ nonce: 'zzzzz', value: `o:${option}` });
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(CALLBACK_DATA_MAX_BYTES);
    }
  }
});
