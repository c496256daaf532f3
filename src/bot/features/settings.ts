import { Composer, InlineKeyboard } from 'grammy';
import type { SettingsPatch } from '../../core/accounts/settings';
import type { BotContext } from '../context';
import { isLocale } from '../i18n';
import { show } from './respond';

const FORMATS = ['webp', 'png', 'jpeg'] as const;

async function showSettings(ctx: BotContext): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const [s, voice] = await Promise.all([
    ctx.deps.services.settings.get(account.user.id),
    ctx.deps.services.settings.voiceMode(account.user.id),
  ]);
  const mark = (on: boolean) => (on ? '✓ ' : '');
  const kb = new InlineKeyboard()
    .text(`${mark(s.language === 'en')}English`, 'set:lang:en')
    .text(`${mark(s.language === 'ru')}Русский`, 'set:lang:ru')
    .row();
  for (const f of FORMATS) kb.text(`${mark(s.image_format === f)}${f.toUpperCase()}`, `set:fmt:${f}`);
  kb.row()
    .text(
      s.notifications_enabled ? ctx.t('button-notifications-off') : ctx.t('button-notifications-on'),
      `set:notif:${s.notifications_enabled ? 'off' : 'on'}`,
    )
    .row()
    .text(`${mark(voice === 'transcribe')}${ctx.t('button-voice-transcribe')}`, 'set:voice:transcribe')
    .text(`${mark(voice === 'answer')}${ctx.t('button-voice-answer')}`, 'set:voice:answer')
    .row()
    .text(ctx.t('button-menu'), 'menu:main');
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
  composer.callbackQuery('menu:settings', showSettings);

  composer.callbackQuery(/^set:voice:(transcribe|answer)$/, async (ctx) => {
    const account = ctx.account;
    if (!account) return ctx.answerCallbackQuery();
    await ctx.deps.services.settings.setVoiceMode(account.user.id, ctx.match[1]);
    await showSettings(ctx);
  });

  composer.callbackQuery(/^set:(lang|fmt|notif):([a-z]+)$/, async (ctx) => {
    const account = ctx.account;
    if (!account) return ctx.answerCallbackQuery();
    const [, what, value] = ctx.match;
    const patch: SettingsPatch = {};
    if (what === 'lang' && isLocale(value)) patch.language = value;
    else if (what === 'fmt' && (FORMATS as readonly string[]).includes(value)) patch.imageFormat = value as (typeof FORMATS)[number];
    else if (what === 'notif') patch.notificationsEnabled = value === 'on';
    else return ctx.answerCallbackQuery();
    const saved = await ctx.deps.services.settings.update(account.user.id, patch);
    if (patch.language) {
      ctx.locale = patch.language;
      ctx.t = ctx.deps.i18n.translator(patch.language);
      await ctx.conversation.exitAll();
    }
    account.settings = saved;
    account.locale = ctx.locale;
    await showSettings(ctx);
  });
  return composer;
}
