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

/** The user's chat model (user_settings.chat_model), falling back to the default when unusable on the plan. */
export async function getChatModel(ds: DataSource, userId: number, plan: PlanSlug): Promise<TextModel> {
  const rows = await ds.query<{ chat_model: string | null }[]>('SELECT chat_model FROM user_settings WHERE user_id = $1', [userId]);
  const chosen = rows[0]?.chat_model ? findModel(rows[0].chat_model) : undefined;
  if (chosen && chosen.category === 'text' && canUseModel(plan, chosen)) return chosen;
  return defaultChatModel(plan);
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
