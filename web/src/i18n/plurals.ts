import type { Lang } from '../lib/format';

/**
 * Things the dashboard counts. Each has a form per plural category of each language (Intl.PluralRules). `tkn` is
 * the service's own billing unit (written the same for every count, as the bot writes it); `modelToken` is a
 * model's token (what its context and usage are counted in): the two are never called by the same word.
 */
export type Unit = 'tkn' | 'modelToken' | 'generation' | 'request' | 'minute' | 'day' | 'session' | 'model' | 'key' | 'message';

type Forms = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };

const FORMS: Record<Lang, Record<Unit, Forms>> = {
  en: {
    tkn: { other: 'tkn' },
    modelToken: { one: 'model token', other: 'model tokens' },
    generation: { one: 'generation', other: 'generations' },
    request: { one: 'request', other: 'requests' },
    minute: { one: 'minute', other: 'minutes' },
    day: { one: 'day', other: 'days' },
    session: { one: 'session', other: 'sessions' },
    model: { one: 'model', other: 'models' },
    key: { one: 'key', other: 'keys' },
    message: { one: 'message', other: 'messages' },
  },
  ru: {
    tkn: { other: 'ток.' },
    modelToken: { one: 'токен модели', few: 'токена модели', many: 'токенов модели', other: 'токена модели' },
    generation: { one: 'генерация', few: 'генерации', many: 'генераций', other: 'генерации' },
    request: { one: 'запрос', few: 'запроса', many: 'запросов', other: 'запроса' },
    minute: { one: 'минуту', few: 'минуты', many: 'минут', other: 'минуты' },
    day: { one: 'день', few: 'дня', many: 'дней', other: 'дня' },
    session: { one: 'сеанс', few: 'сеанса', many: 'сеансов', other: 'сеанса' },
    model: { one: 'модель', few: 'модели', many: 'моделей', other: 'модели' },
    key: { one: 'ключ', few: 'ключа', many: 'ключей', other: 'ключа' },
    message: { one: 'сообщение', few: 'сообщения', many: 'сообщений', other: 'сообщения' },
  },
};

const LOCALE: Record<Lang, string> = { en: 'en-GB', ru: 'ru-RU' };
const rules = new Map<Lang, Intl.PluralRules>();

function ruleOf(lang: Lang): Intl.PluralRules {
  let rule = rules.get(lang);
  if (!rule) rules.set(lang, (rule = new Intl.PluralRules(LOCALE[lang])));
  return rule;
}

/** The word for `n` of `unit`: "model token" for 1, "model tokens" for 2; "tkn" for any count. */
export function unitWord(lang: Lang, unit: Unit, n: number): string {
  const forms = FORMS[lang][unit];
  return forms[ruleOf(lang).select(n)] ?? forms.other;
}

/** `n` formatted for the language with its word: "1 tkn", "1,234 tkn", "21 ток.", "5 model tokens", "5 токенов модели". */
export function countOf(lang: Lang, unit: Unit, n: number): string {
  return `${n.toLocaleString(LOCALE[lang])} ${unitWord(lang, unit, n)}`;
}
