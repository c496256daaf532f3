import { DataSource } from 'typeorm';
import type { PlanSlug, TextModel, TtsModel } from '../catalog/types';
import { getChatModel, getVisionModel, setChatModel } from './chat-preference';
import {
  getConfirmAbove,
  getMediaPreset,
  rememberMediaPreset,
  setConfirmAbove,
  type MediaPreset,
  type PresetCategory,
} from './media-presets';
import { getSettings, SettingsPatch, SettingsView, updateSettings } from './settings';
import { getVoiceAnswers, setTtsModel, setVoiceAnswers, VoiceAnswers } from './voice-answers';
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

  /** Whether chat answers are also spoken, and by which speech model (the user's pick, else the plan's default). */
  voiceAnswers(userId: number, plan: PlanSlug): Promise<VoiceAnswers> {
    return getVoiceAnswers(this.ds, userId, plan);
  }

  setVoiceAnswers(userId: number, enabled: boolean): Promise<void> {
    return setVoiceAnswers(this.ds, userId, enabled);
  }

  /** @throws ParamError (not a speech model), PlanTooLowError */
  setTtsModel(userId: number, plan: PlanSlug, slug: string): Promise<TtsModel> {
    return setTtsModel(this.ds, userId, plan, slug);
  }

  /** @throws ParamError (not a text model), PlanTooLowError */
  setChatModel(userId: number, plan: PlanSlug, slug: string): Promise<TextModel> {
    return setChatModel(this.ds, userId, plan, slug);
  }

  /** The model and options of a one-step run of the category (the last run's while the plan opens it); null: none on the plan. */
  mediaPreset(userId: number, plan: PlanSlug, category: PresetCategory): Promise<MediaPreset | null> {
    return getMediaPreset(this.ds, userId, plan, category);
  }

  rememberMediaPreset(userId: number, category: PresetCategory, request: MediaPreset): Promise<void> {
    return rememberMediaPreset(this.ds, userId, category, request);
  }

  /** The price (tokens) up to which a one-step run starts without asking; 0 asks every time. */
  confirmAbove(userId: number): Promise<number> {
    return getConfirmAbove(this.ds, userId);
  }

  /** @throws ParamError (not one of CONFIRM_ABOVE_CHOICES) */
  setConfirmAbove(userId: number, tokens: number): Promise<number> {
    return setConfirmAbove(this.ds, userId, tokens);
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
