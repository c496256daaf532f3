import fs from 'node:fs';
import path from 'node:path';
import { countOf } from '../../../web/src/i18n/plurals';
import { en } from '../../../web/src/i18n/en';
import { ru } from '../../../web/src/i18n/ru';
import { registerCatalogue, translate } from '../../../web/src/i18n/translate';
import { ApiFailure, minutesToWait, toErrorBody } from '../../../web/src/lib/api-error';
import { describeError, WORDED_CODES } from '../../../web/src/lib/describe-error';

const t = (lang: 'en' | 'ru') => (key: keyof typeof en, vars?: Record<string, string | number>) => translate(lang, key, vars);

registerCatalogue('ru', ru);

describe('catalogues', () => {
  test('Russian has every English key and the same placeholders', () => {
    expect(Object.keys(ru).sort()).toEqual(Object.keys(en).sort());
    const placeholders = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
    for (const key of Object.keys(en) as (keyof typeof en)[]) expect([key, placeholders(ru[key])]).toEqual([key, placeholders(en[key])]);
  });

  test('counts take their plural form: one, few and many in Russian; tkn is one word for any count', () => {
    expect([1, 2, 5, 1234].map((n) => countOf('en', 'modelToken', n))).toEqual([
      '1 model token',
      '2 model tokens',
      '5 model tokens',
      '1,234 model tokens',
    ]);
    expect([1, 2, 5, 21, 22, 25, 111].map((n) => countOf('ru', 'modelToken', n))).toEqual([
      '1 токен модели',
      '2 токена модели',
      '5 токенов модели',
      '21 токен модели',
      '22 токена модели',
      '25 токенов модели',
      '111 токенов модели',
    ]);
    expect([1, 2, 1234].map((n) => countOf('en', 'tkn', n))).toEqual(['1 tkn', '2 tkn', '1,234 tkn']);
    expect(translate('en', 'playground.spent', { tokens: 1 })).toBe('Done: 1 tkn spent.');
    expect(translate('en', 'playground.spentUsage', { tokens: 2, input: 37, output: 1 })).toBe(
      'Done: 2 tkn spent (37 model tokens in, 1 model token out).',
    );
    expect(translate('ru', 'overview.usageTotal', { tokens: 3, count: 1 })).toBe('3 ток., 1 генерация');
  });

  test('no text calls the service’s unit and the model’s tokens by one word', () => {
    for (const catalogue of [en, ru] as Record<string, string>[]) {
      for (const [key, text] of Object.entries(catalogue)) expect([key, text]).not.toEqual([key, expect.stringMatching(/\{\w+:token\}/)]);
    }
    // Our unit is tkn wherever a count of it is shown; "model tokens" only ever means the model's.
    expect(en['log.tokens']).toBe('Cost (tkn)');
    expect(en['playground.maxTokens']).toContain('model tokens');
  });

  test('placeholders are filled; unknown ones stay visible', () => {
    expect(translate('en', 'overview.remaining', { remaining: 3, limit: 20 })).toBe('3 of 20 left');
    expect(translate('ru', 'overview.remaining', { remaining: 3, limit: 20 })).toBe('осталось 3 из 20');
    expect(translate('en', 'overview.remaining', { remaining: 3 })).toBe('3 of {limit} left');
  });
});

describe('errors in words', () => {
  test('the sign-in failures the dashboard names', () => {
    expect(describeError(new ApiFailure(401, { error: 'invalid_credentials', message: 'x' }), t('en'))).toBe(
      'Wrong email, phone or password.',
    );
    expect(describeError(new ApiFailure(429, { error: 'account_locked', message: 'x', retry_after: 840 }), t('en'))).toBe(
      'Too many failed attempts: password sign-in for this account is locked for 14 minutes.',
    );
    expect(describeError(new ApiFailure(429, { error: 'rate_limit_exceeded', message: 'x', retry_after: 61 }), t('ru'))).toBe(
      'Слишком много запросов. Повторите через 2 минуты.',
    );
    expect(
      describeError(
        new ApiFailure(403, { error: 'insufficient_plan', message: 'Insufficient plan: needs VIP', required_plan: 'vip' }),
        t('en'),
      ),
    ).toBe('This needs the VIP plan or higher.');
    expect(describeError(new ApiFailure(418, { error: 'teapot', message: 'I am a teapot' }), t('en'))).toBe('I am a teapot');
    expect(describeError(new TypeError('Failed to fetch'), t('en'))).toMatch(/could not be reached/);
  });

  test('a bad webhook URL and a key over its budget are said in words, not the server’s text', () => {
    expect(describeError(new ApiFailure(400, { error: 'invalid_url', message: 'url: Invalid URL' }), t('en'))).toMatch(
      /^This is not a valid URL/,
    );
    expect(describeError(new ApiFailure(400, { error: 'forbidden_address', message: 'x' }), t('ru'))).toMatch(/частный или локальный/);
    expect(describeError(new ApiFailure(402, { error: 'key_budget_exceeded', message: 'x', remaining: 1 }), t('en'))).toMatch(
      /^This API key has spent its token budget for the period\. Raise/,
    );
  });

  test('every error code of the API door that a dashboard user can meet has its own words', () => {
    const source = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'src', 'api', 'middleware', 'errors.ts'), 'utf8');
    const table = source.slice(source.indexOf('const API_ERRORS'), source.indexOf('export function apiRendersCode'));
    const codes = new Set([...table.matchAll(/^ {2}([a-z_]+): /gm)].map((m) => m[1]!));
    // Wire codes the table renders under another name, and the transport's own codes.
    for (const m of table.matchAll(/code: '([a-z_]+)'/g)) codes.add(m[1]!);
    for (const code of ['not_authenticated', 'session_required', 'payload_too_large', 'service_unavailable', 'internal_error'])
      codes.add(code);
    // Never shown to a user: the payment provider's own callbacks, operator refunds, internal faults, file ranges,
    // the request log's mark of a client that left before its answer, and /v1's own Responses codes.
    const unseen = [
      'invalid_notification',
      'unknown_payment',
      'unknown_charge',
      'order_not_refundable',
      'mail_failed',
      'range_not_satisfiable',
      'invalid_storage_key',
      'idempotency_key_reused',
      'unsafe_url',
      'fetch_failed',
      'image_rejected',
      'invalid_size',
      'client_closed_request',
      // The stateful Responses API of /v1, which the dashboard does not call.
      'response_not_found',
      'response_not_cancellable',
    ];
    const missing = [...codes].filter((c) => !unseen.includes(c) && !WORDED_CODES.includes(c));
    expect(missing).toEqual([]);
  });

  test('waits round up to whole minutes, at least one', () => {
    expect([minutesToWait(1), minutesToWait(60), minutesToWait(61), minutesToWait(900), minutesToWait(undefined)]).toEqual([
      1, 1, 2, 15, 1,
    ]);
  });

  test('both error shapes read the same', () => {
    expect(toErrorBody(400, { error: 'validation_error', message: 'bad', field: 'name' })).toEqual({
      error: 'validation_error',
      message: 'bad',
      field: 'name',
    });
    expect(toErrorBody(403, { error: { message: 'needs VIP', type: 'permission_error', code: 'insufficient_plan' } })).toEqual({
      error: 'insufficient_plan',
      message: 'needs VIP',
    });
    expect(toErrorBody(502, 'Bad gateway')).toEqual({ error: 'server_error', message: 'Request failed (HTTP 502)' });
  });
});
