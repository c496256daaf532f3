import { DataSource } from 'typeorm';
import type { PlanSlug, TextModel } from '../catalog/types';
import { getChatModel, getVisionModel, setChatModel } from './chat-preference';
import { getSettings, SettingsPatch, SettingsView, updateSettings } from './settings';
import { getVoiceMode, setVoiceMode, VoiceMode } from './voice-preference';

/** A user's settings and chat model, for the doors (bound to the database so they never hold it). */
export class SettingsService {
  constructor(private readonly ds: DataSource) {}

  get(userId: number): Promise<SettingsView> {
    return getSettings(this.ds, userId);
  }

  update(userId: number, patch: SettingsPatch): Promise<SettingsView> {
    return updateSettings(this.ds, userId, patch);
  }

  chatModel(userId: number, plan: PlanSlug): Promise<TextModel> {
    return getChatModel(this.ds, userId, plan);
  }

  /** The model that answers questions about images: the chat model if it has vision, else the plan's default. */
  visionModel(userId: number, plan: PlanSlug): Promise<TextModel> {
    return getVisionModel(this.ds, userId, plan);
  }

  voiceMode(userId: number): Promise<VoiceMode> {
    return getVoiceMode(this.ds, userId);
  }

  /** @throws ParamError (not a voice mode) */
  setVoiceMode(userId: number, mode: string): Promise<VoiceMode> {
    return setVoiceMode(this.ds, userId, mode);
  }

  /** @throws ParamError (not a text model), PlanTooLowError */
  setChatModel(userId: number, plan: PlanSlug, slug: string): Promise<TextModel> {
    return setChatModel(this.ds, userId, plan, slug);
  }

  /** The stored language of the account behind a Telegram id (undefined without one). */
  async languageOfTelegramUser(telegramId: number): Promise<string | undefined> {
    const rows = await this.ds.query<{ language: string }[]>(
      'SELECT s.language FROM users u JOIN user_settings s ON s.user_id = u.id WHERE u.telegram_id = $1',
      [String(telegramId)],
    );
    return rows[0]?.language;
  }
}
