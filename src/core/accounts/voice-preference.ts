import type { DataSource } from 'typeorm';
import { ParamError } from '../catalog/errors';

/** What the bot does with a voice message: write it down, or have the chat model answer it. */
export const VOICE_MODES = ['transcribe', 'answer'] as const;
export type VoiceMode = (typeof VOICE_MODES)[number];

export function isVoiceMode(value: string): value is VoiceMode {
  return (VOICE_MODES as readonly string[]).includes(value);
}

/** The user's voice mode (user_settings.voice_mode); `transcribe` until they choose. */
export async function getVoiceMode(ds: DataSource, userId: number): Promise<VoiceMode> {
  const rows = await ds.query<{ voice_mode: string }[]>('SELECT voice_mode FROM user_settings WHERE user_id = $1', [userId]);
  const stored = rows[0]?.voice_mode;
  return stored !== undefined && isVoiceMode(stored) ? stored : 'transcribe';
}

/** @throws ParamError (not a voice mode) */
export async function setVoiceMode(ds: DataSource, userId: number, mode: string): Promise<VoiceMode> {
  if (!isVoiceMode(mode)) throw new ParamError('voice_mode', `voice_mode must be one of ${VOICE_MODES.join(', ')}`);
  await ds.query(
    `INSERT INTO user_settings (user_id, voice_mode) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET voice_mode = EXCLUDED.voice_mode, updated_at = now()`,
    [userId, mode],
  );
  return mode;
}
