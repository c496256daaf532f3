import { DataSource } from 'typeorm';
import { canUseModel, findModel, listModels } from '../catalog/catalog';
import { ParamError } from '../catalog/errors';
import { PlanSlug, TextModel } from '../catalog/types';
import { PlanTooLowError } from './errors';

/** The text model chat uses when the user picked none (or lost access to the one picked). */
export function defaultChatModel(plan: PlanSlug): TextModel {
  const text = listModels({ category: 'text', minPlan: plan }).filter((m): m is TextModel => m.category === 'text');
  return text[0]!;
}

/**
 * The model that answers a photo when the user's chat model cannot see images: the inexpensive all-rounder on
 * Starter, the flagship vision model on paid plans. A plan whose pick is gone gets its first usable vision model.
 */
const VISION_DEFAULTS: Readonly<Record<PlanSlug, string>> = {
  free: 'gpt-6-luna',
  basic: 'gpt-6.1-sol',
  pro: 'gpt-6.1-sol',
  vip: 'gpt-6.1-sol',
  elite: 'gpt-6.1-sol',
};

export function defaultVisionModel(plan: PlanSlug): TextModel {
  const pick = findModel(VISION_DEFAULTS[plan]);
  if (pick?.category === 'text' && pick.config.supports_vision && canUseModel(plan, pick)) return pick;
  const usable = listModels({ category: 'text', minPlan: plan }).filter((m): m is TextModel => m.category === 'text');
  return usable.find((m) => m.config.supports_vision) ?? usable[0]!;
}

/** The user's chat model (user_settings.chat_model), falling back to the default when unusable on the plan. */
export async function getChatModel(ds: DataSource, userId: number, plan: PlanSlug): Promise<TextModel> {
  const rows = await ds.query<{ chat_model: string | null }[]>('SELECT chat_model FROM user_settings WHERE user_id = $1', [userId]);
  const chosen = rows[0]?.chat_model ? findModel(rows[0].chat_model) : undefined;
  if (chosen && chosen.category === 'text' && canUseModel(plan, chosen)) return chosen;
  return defaultChatModel(plan);
}

/** The model for a question about an image: the user's chat model when it sees images, else the plan's vision default. */
export async function getVisionModel(ds: DataSource, userId: number, plan: PlanSlug): Promise<TextModel> {
  const chosen = await getChatModel(ds, userId, plan);
  return chosen.config.supports_vision ? chosen : defaultVisionModel(plan);
}

/** @throws ParamError (not a text model), PlanTooLowError */
export async function setChatModel(ds: DataSource, userId: number, plan: PlanSlug, slug: string): Promise<TextModel> {
  const model = findModel(slug);
  if (!model || model.category !== 'text') throw new ParamError('model', `${slug} is not a text model`);
  if (!canUseModel(plan, model))
    throw new PlanTooLowError(model.minPlan, `Insufficient plan: ${model.slug} needs the ${model.minPlan} plan or higher`);
  await ds.query(
    `INSERT INTO user_settings (user_id, chat_model) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET chat_model = EXCLUDED.chat_model, updated_at = now()`,
    [userId, model.slug],
  );
  return model;
}
