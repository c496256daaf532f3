import { findModel } from '../../core/catalog/catalog';
import type { Translate } from '../i18n';

/**
 * The one ETA the bot quotes for a pending result: the catalog's typical time of the model. The first progress
 * message and every refresh use it, so the estimate never jumps (a vendor's own guess may differ; the API reports
 * that one as `eta_seconds`).
 */
export function expectedSeconds(modelSlug: string): number {
  return findModel(modelSlug)?.etaSeconds ?? 30;
}

/** Progress text of a pending generation: elapsed time and the time left of the expected time. */
export function progressText(t: Translate, model: string, elapsedSeconds: number, etaSeconds: number): string {
  const left = etaSeconds - elapsedSeconds;
  return left > 0
    ? t('progress-running', { model, elapsed: elapsedSeconds, left })
    : t('progress-late', { model, elapsed: elapsedSeconds });
}
