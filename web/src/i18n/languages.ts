import type { Lang } from '../lib/format';
import { hasCatalogue, registerCatalogue } from './translate';

/** Makes `lang`'s texts available to `translate`: Russian is a chunk of its own, fetched the first time it is asked for. */
export async function loadLanguage(lang: Lang): Promise<void> {
  if (hasCatalogue(lang)) return;
  if (lang === 'ru') registerCatalogue('ru', (await import('./ru')).ru);
}
