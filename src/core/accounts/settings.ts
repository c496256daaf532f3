import { DataSource } from 'typeorm';
import { UserSettingsEntity } from '../../db/entities';

export const LANGUAGES = ['en', 'ru'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The spec's Settings object. */
export interface SettingsView {
  language: string;
  image_format: string;
  notifications_enabled: boolean;
  default_image_size: string;
}

export interface SettingsPatch {
  language?: Language;
  imageFormat?: 'webp' | 'png' | 'jpeg';
  notificationsEnabled?: boolean;
}

const toView = (s: UserSettingsEntity): SettingsView => ({
  language: s.language,
  image_format: s.imageFormat,
  notifications_enabled: s.notificationsEnabled,
  default_image_size: s.defaultImageSize,
});

async function load(ds: DataSource, userId: number): Promise<UserSettingsEntity> {
  const repo = ds.getRepository(UserSettingsEntity);
  const found = await repo.findOneBy({ userId });
  if (found) return found;
  // Every account gets a settings row at creation; this covers rows created some other way.
  await repo.createQueryBuilder().insert().values({ userId }).orIgnore().execute();
  return repo.findOneByOrFail({ userId });
}

export async function getSettings(ds: DataSource, userId: number): Promise<SettingsView> {
  return toView(await load(ds, userId));
}

export async function updateSettings(ds: DataSource, userId: number, patch: SettingsPatch): Promise<SettingsView> {
  const settings = await load(ds, userId);
  if (patch.language !== undefined) settings.language = patch.language;
  if (patch.imageFormat !== undefined) settings.imageFormat = patch.imageFormat;
  if (patch.notificationsEnabled !== undefined) settings.notificationsEnabled = patch.notificationsEnabled;
  return toView(await ds.getRepository(UserSettingsEntity).save(settings));
}
