import { Composer, InlineKeyboard } from 'grammy';
import type { SettingsPatch } from '../../core/accounts/settings';
import type { BotContext } from '../context';
import { show } from './respond';
import { IMAGE_FORMATS } from '../../core/catalog/types';
import { MENU, onCallback, SET_IMAGE_FORMAT, SET_LANGUAGE, SET_NOTIFICATIONS, SET_VOICE_MODE } from '../callback-data';

async function showSettings(ctx: BotContext): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const [s, voice] = await Promise.all([
    ctx.deps.services.settings.get(account.user.id),
    ctx.deps.services.settings.voiceMode(account.user.id),
  ]);
  const mark = (on: boolean) => (on ? '✓ ' : '');
  const kb = new InlineKeyboard()
    .text(`${mark(s.language === 'en')}English`, SET_LANGUAGE.data('en'))
    .text(`${mark(s.language === 'ru')}Русский`, SET_LANGUAGE.data('ru'))
    .row();
  for (const f of IMAGE_FORMATS) kb.text(`${mark(s.image_format === f)}${f.toUpperCase()}`, SET_IMAGE_FORMAT.data(f));
  kb.row()
    .text(
      s.notifications_enabled ? ctx.t('button-notifications-off') : ctx.t('button-notifications-on'),
      SET_NOTIFICATIONS.data(s.notifications_enabled ? 'off' : 'on'),
    )
    .row()
    .text(`${mark(voice === 'transcribe')}${ctx.t('button-voice-transcribe')}`, SET_VOICE_MODE.data('transcribe'))
    .text(`${mark(voice === 'answer')}${ctx.t('button-voice-answer')}`, SET_VOICE_MODE.data('answer'))
    .row()
    .text(ctx.t('button-menu'), MENU.data('main'));
  const text = ctx.t('settings-text', {
    language: s.language === 'ru' ? 'Русский' : 'English',
    format: s.image_format.toUpperCase(),
    notifications: s.notifications_enabled ? ctx.t('settings-on') : ctx.t('settings-off'),
    voice: voice === 'answer' ? ctx.t('settings-voice-answer') : ctx.t('settings-voice-transcribe'),
  });
  await show(ctx, text, kb);
}

/** Language, image format and notifications (the settings of PATCH /api/v2/user/settings), and the bot's voice mode. */
export function settingsFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.command('settings', showSettings);
  composer.callbackQuery(MENU.data('settings'), showSettings);

  onCallback(composer, SET_VOICE_MODE, async (ctx, mode) => {
    const account = ctx.account;
    if (!account) return ctx.answerCallbackQuery();
    await ctx.deps.services.settings.setVoiceMode(account.user.id, mode);
    await showSettings(ctx);
  });

  const save = async (ctx: BotContext, patch: SettingsPatch) => {
    const account = ctx.account;
    if (!account) return ctx.answerCallbackQuery();
    const saved = await ctx.deps.services.settings.update(account.user.id, patch);
    if (patch.language) {
      ctx.locale = patch.language;
      ctx.t = ctx.deps.i18n.translator(patch.language);
      await ctx.conversation.exitAll();
    }
    account.settings = saved;
    account.locale = ctx.locale;
    await showSettings(ctx);
  };
  onCallback(composer, SET_LANGUAGE, (ctx, language) => save(ctx, { language }));
  onCallback(composer, SET_IMAGE_FORMAT, (ctx, imageFormat) => save(ctx, { imageFormat }));
  onCallback(composer, SET_NOTIFICATIONS, (ctx, value) => save(ctx, { notificationsEnabled: value === 'on' }));
  return composer;
}
