import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { canUseModel, findModel, listModels } from '../catalog/catalog';
import { ParamError } from '../catalog/errors';
import type { GenerateRequest } from '../catalog/params';
import { IMAGE_QUALITIES, IMAGE_STYLES, type ModelDefinition, type PlanSlug } from '../catalog/types';
import { isRetired } from '../catalog/lifecycle';
import { defaultTtsModel } from './voice-answers';

/** The categories a one-step bot command runs (`/image`, `/video`, `/speak`, `/music`). */
export const PRESET_CATEGORIES = ['image', 'video', 'tts', 'music'] as const;
export type PresetCategory = (typeof PRESET_CATEGORIES)[number];

export function isPresetCategory(category: string): category is PresetCategory {
  return (PRESET_CATEGORIES as readonly string[]).includes(category);
}

/** What a one-step run reuses of the last run of its category: the model and its options, never the prompt or inputs. */
export type MediaPreset = Pick<GenerateRequest, 'model' | 'size' | 'quality' | 'style' | 'duration' | 'voiceId' | 'speed' | 'audioFormat'>;

const presetSchema = z.object({
  model: z.string().min(1).max(80),
  size: z.string().max(40).optional(),
  quality: z.enum(IMAGE_QUALITIES).optional(),
  style: z.enum(IMAGE_STYLES).optional(),
  duration: z.number().int().positive().max(3600).optional(),
  voiceId: z.string().max(120).optional(),
  speed: z.number().positive().max(10).optional(),
  audioFormat: z.string().max(20).optional(),
});

/** Prices (tokens) up to which a one-step run may start without asking; 0 asks every time. */
export const CONFIRM_ABOVE_CHOICES = [0, 5, 10, 25, 50] as const;

/** The options of a preset, without the model and anything not given. */
function presetOf(request: MediaPreset): MediaPreset {
  const parsed = presetSchema.parse(request);
  return Object.fromEntries(Object.entries(parsed).filter(([, v]) => v !== undefined)) as MediaPreset;
}

function usable(model: ModelDefinition | undefined, category: PresetCategory, plan: PlanSlug): model is ModelDefinition {
  return model !== undefined && model.category === category && !isRetired(model.slug, new Date()) && canUseModel(plan, model);
}

/**
 * A category's preset when the user has run none (or lost access to the model): the catalog's first model the plan
 * may use (for speech, the one Telegram plays best), with its own defaults; music asks for MP3, which Telegram's
 * player takes. Null when the plan has no model of the category.
 */
export function defaultMediaPreset(category: PresetCategory, plan: PlanSlug): MediaPreset | null {
  const model = category === 'tts' ? defaultTtsModel(plan) : listModels({ category, minPlan: plan })[0];
  if (!model) return null;
  if (model.category === 'music' && model.config.audio_formats.includes('mp3')) return { model: model.slug, audioFormat: 'mp3' };
  return { model: model.slug };
}

/** The preset a one-step run of the category uses: the last run's model and options while the plan opens it, else the default. */
export async function getMediaPreset(
  ds: DataSource,
  userId: number,
  plan: PlanSlug,
  category: PresetCategory,
): Promise<MediaPreset | null> {
  const rows = await ds.query<{ media_presets: Record<string, unknown> | null }[]>(
    'SELECT media_presets FROM user_settings WHERE user_id = $1',
    [userId],
  );
  const parsed = presetSchema.safeParse(rows[0]?.media_presets?.[category]);
  if (parsed.success && usable(findModel(parsed.data.model), category, plan)) return presetOf(parsed.data);
  return defaultMediaPreset(category, plan);
}

/** Keeps the model and options a run of the category started with (its prompt and input images are not kept). */
export async function rememberMediaPreset(ds: DataSource, userId: number, category: PresetCategory, request: MediaPreset): Promise<void> {
  const preset = presetOf({
    model: request.model,
    size: request.size,
    quality: request.quality,
    style: request.style,
    duration: request.duration,
    voiceId: request.voiceId,
    speed: request.speed,
    audioFormat: request.audioFormat,
  });
  await ds.query(
    `INSERT INTO user_settings (user_id, media_presets) VALUES ($1, jsonb_build_object($2::text, $3::jsonb))
     ON CONFLICT (user_id) DO UPDATE
       SET media_presets = user_settings.media_presets || jsonb_build_object($2::text, $3::jsonb), updated_at = now()`,
    [userId, category, JSON.stringify(preset)],
  );
}

export async function getConfirmAbove(ds: DataSource, userId: number): Promise<number> {
  const rows = await ds.query<{ confirm_above: number }[]>('SELECT confirm_above FROM user_settings WHERE user_id = $1', [userId]);
  return rows[0]?.confirm_above ?? 0;
}

/** @throws ParamError (not one of CONFIRM_ABOVE_CHOICES) */
export async function setConfirmAbove(ds: DataSource, userId: number, tokens: number): Promise<number> {
  if (!(CONFIRM_ABOVE_CHOICES as readonly number[]).includes(tokens)) {
    throw new ParamError('confirm_above', `confirm_above must be one of ${CONFIRM_ABOVE_CHOICES.join(', ')}`);
  }
  await ds.query(
    `INSERT INTO user_settings (user_id, confirm_above) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET confirm_above = EXCLUDED.confirm_above, updated_at = now()`,
    [userId, tokens],
  );
  return tokens;
}
