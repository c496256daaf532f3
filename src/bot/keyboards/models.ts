import { InlineKeyboard } from 'grammy';
import { canUseModel } from '../../core/catalog/catalog';
import type { ModelDefinition, PlanSlug } from '../../core/catalog/types';
import { priceLabel } from '../render/format';
import type { Translate } from '../i18n';

export interface ModelPickerOptions {
  plan: PlanSlug;
  /** Display names of the plans, by slug (for locked models). */
  planNames: Record<string, string>;
  /** Callback data of a model button. */
  data: (slug: string) => string;
  /** The model in use, marked with a check. */
  current?: string;
  cancelData?: string;
  /** In a group: no locks naming plans (they tell of the member's plan); a locked model explains itself when pressed. */
  hidePlans?: boolean;
}

/**
 * One button per model: name and price for models the plan allows, a lock and the plan that opens it for the
 * others (pressing one explains; nothing runs).
 */
export function modelPickerKeyboard(t: Translate, models: readonly ModelDefinition[], options: ModelPickerOptions): InlineKeyboard {
  const kb = new InlineKeyboard();
  for (const model of models) {
    const label =
      options.hidePlans || canUseModel(options.plan, model)
        ? t('model-button', { mark: model.slug === options.current ? '✓ ' : '', name: model.name, price: priceLabel(model) })
        : t('model-button-locked', { name: model.name, plan: options.planNames[model.minPlan] ?? model.minPlan });
    kb.text(label, options.data(model.slug)).row();
  }
  if (options.cancelData) kb.text(t('button-cancel'), options.cancelData);
  return kb;
}
