import type { DataSource } from 'typeorm';
import { canUseModel, findModel, listModels } from '../catalog/catalog';
import { ParamError } from '../catalog/errors';
import type { PlanSlug, TtsModel } from '../catalog/types';
import { PlanTooLowError } from './errors';

/** The bot's voice answers: on or off, and the speech model that speaks them (null: the plan has none). */
export interface VoiceAnswers {
  enabled: boolean;
  model: TtsModel | null;
  /** The user picked the model (else it is the plan's default). */
  chosen: boolean;
}

/** Speech formats Telegram plays in the chat: Opus as a voice message, MP3 in the music player. */
const PLAYED_IN_CHAT = ['opus', 'mp3'] as const;

/**
 * The speech model of a plan that has not picked one, or null (Starter): the catalog's first the plan may use that
 * speaks Opus, else MP3 (Gemini TTS speaks WAV only, which Telegram shows as a file), else the first at all.
 */
export function defaultTtsModel(plan: PlanSlug): TtsModel | null {
  const usable = listModels({ category: 'tts', minPlan: plan }).filter((m): m is TtsModel => m.category === 'tts');
  for (const format of PLAYED_IN_CHAT) {
    const model = usable.find((m) => m.config.audio_formats.includes(format));
    if (model) return model;
  }
  return usable[0] ?? null;
}

/** user_settings.voice_answers and tts_model; a picked model the plan lost (or a retired one) gives way to the default. */
export async function getVoiceAnswers(ds: DataSource, userId: number, plan: PlanSlug): Promise<VoiceAnswers> {
  const rows = await ds.query<{ voice_answers: boolean; tts_model: string | null }[]>(
    'SELECT voice_answers, tts_model FROM user_settings WHERE user_id = $1',
    [userId],
  );
  const usable = listModels({ category: 'tts', minPlan: plan });
  const picked = rows[0]?.tts_model ? usable.find((m) => m.slug === rows[0].tts_model) : undefined;
  const model = picked?.category === 'tts' ? picked : defaultTtsModel(plan);
  return { enabled: rows[0]?.voice_answers === true, model, chosen: picked !== undefined };
}

export async function setVoiceAnswers(ds: DataSource, userId: number, enabled: boolean): Promise<void> {
  await ds.query(
    `INSERT INTO user_settings (user_id, voice_answers) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET voice_answers = EXCLUDED.voice_answers, updated_at = now()`,
    [userId, enabled],
  );
}

/** @throws ParamError (not a speech model), PlanTooLowError */
export async function setTtsModel(ds: DataSource, userId: number, plan: PlanSlug, slug: string): Promise<TtsModel> {
  const model = findModel(slug);
  if (!model || model.category !== 'tts') throw new ParamError('tts_model', `${slug} is not a speech model`);
  if (!canUseModel(plan, model)) {
    throw new PlanTooLowError(model.minPlan, `Insufficient plan: ${model.slug} needs the ${model.minPlan} plan or higher`);
  }
  await ds.query(
    `INSERT INTO user_settings (user_id, tts_model) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET tts_model = EXCLUDED.tts_model, updated_at = now()`,
    [userId, model.slug],
  );
  return model;
}
