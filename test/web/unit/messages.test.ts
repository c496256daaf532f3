import { en } from '../../../web/src/i18n/en';
import { ru } from '../../../web/src/i18n/ru';
import { loadLanguage, translate } from '../../../web/src/i18n/translate';
import { ApiFailure, minutesToWait, toErrorBody } from '../../../web/src/lib/api-error';
import { describeError } from '../../../web/src/lib/describe-error';

const t = (lang: 'en' | 'ru') => (key: keyof typeof en, vars?: Record<string, string | number>) => translate(lang, key, vars);

beforeAll(() => loadLanguage('ru'));

describe('catalogues', () => {
  test('Russian has every English key and the same placeholders', () => {
    expect(Object.keys(ru).sort()).toEqual(Object.keys(en).sort());
    const placeholders = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
    for (const key of Object.keys(en) as (keyof typeof en)[]) expect([key, placeholders(ru[key])]).toEqual([key, placeholders(en[key])]);
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
      'Слишком много попыток. Повторите через 2 мин.',
    );
    expect(describeError(new ApiFailure(403, { error: 'insufficient_plan', message: 'Insufficient plan: needs VIP' }), t('en'))).toBe(
      'Insufficient plan: needs VIP',
    );
    expect(describeError(new TypeError('Failed to fetch'), t('en'))).toMatch(/could not be reached/);
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
