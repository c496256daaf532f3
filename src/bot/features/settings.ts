import { Composer, InlineKeyboard } from 'grammy';
import type { SettingsPatch } from '../../core/accounts/settings';
import type { BotContext } from '../context';
import { show } from './respond';
import { IMAGE_FORMATS } from '../../core/catalog/types';
import { canUseModel, findModel, listModels } from '../../core/catalog/catalog';
import { CONFIRM_ABOVE_CHOICES } from '../../core/accounts/media-presets';
import {
  MENU,
  onCallback,
  SET_CONFIRM_ABOVE,
  SET_IMAGE_FORMAT,
  SET_LANGUAGE,
  SET_NOTIFICATIONS,
  SET_TTS_MODEL,
  SET_VOICE_ANSWERS,
  SET_VOICE_MODE,
  TTS_MODELS,
} from '../callback-data';
import { planNames } from '../render/format';
import { modelPickerKeyboard } from '../keyboards/models';

async function showSettings(ctx: BotContext): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const [s, voice, answers, confirmAbove] = await Promise.all([
    ctx.deps.services.settings.get(account.user.id),
    ctx.deps.services.settings.voiceMode(account.user.id),
    ctx.deps.services.settings.voiceAnswers(account.user.id, account.plan.slug),
    ctx.deps.services.settings.confirmAbove(account.user.id),
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
    .text(`${mark(!answers.enabled)}${ctx.t('button-voice-answers-off')}`, SET_VOICE_ANSWERS.data('off'))
    .text(`${mark(answers.enabled)}${ctx.t('button-voice-answers-on')}`, SET_VOICE_ANSWERS.data('on'))
    .row();
  if (answers.enabled && answers.model) kb.text(ctx.t('button-voice-answers-model', { model: answers.model.name }), TTS_MODELS.data).row();
  for (const tokens of CONFIRM_ABOVE_CHOICES) {
    const label = tokens === 0 ? ctx.t('button-confirm-always') : ctx.t('button-confirm-above', { price: tokens });
    kb.text(`${mark(confirmAbove === tokens)}${label}`, SET_CONFIRM_ABOVE.data(tokens));
    if (tokens === 0) kb.row();
  }
  kb.row();
  kb.text(ctx.t('button-menu'), MENU.data('main'));
  const text = ctx.t('settings-text', {
    language: s.language === 'ru' ? 'Русский' : 'English',
    format: s.image_format.toUpperCase(),
    notifications: s.notifications_enabled ? ctx.t('settings-on') : ctx.t('settings-off'),
    voice: voice === 'answer' ? ctx.t('settings-voice-answer') : ctx.t('settings-voice-transcribe'),
    answers: !answers.enabled
      ? ctx.t('settings-voice-answers-off')
      : answers.model
        ? ctx.t('settings-voice-answers-on', { model: answers.model.name })
        : ctx.t('settings-voice-answers-no-model'),
    confirm: confirmAbove,
  });
  await show(ctx, text, kb);
}

/** The speech models for voice answers, with their price range and a lock above the plan. */
async function showSpeechModels(ctx: BotContext): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const { services } = ctx.deps;
  const answers = await services.settings.voiceAnswers(account.user.id, account.plan.slug);
  const kb = modelPickerKeyboard(ctx.t, listModels({ category: 'tts' }), {
    plan: account.plan.slug,
    planNames: await planNames(services.plans),
    data: (slug) => SET_TTS_MODEL.data(slug),
    current: answers.model?.slug,
  });
  kb.text(ctx.t('button-back'), MENU.data('settings'));
  await show(ctx, ctx.t('settings-voice-answers-pick'), kb);
}

/**
 * Language, image format and notifications (the settings of PATCH /api/v2/user/settings), and the bot's voice mode
 * and voice answers (with their speech model).
 */
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

  onCallback(composer, SET_VOICE_ANSWERS, async (ctx, value) => {
    const account = ctx.account;
    if (!account) return ctx.answerCallbackQuery();
    await ctx.deps.services.settings.setVoiceAnswers(account.user.id, value === 'on');
    await showSettings(ctx);
  });
  composer.callbackQuery(TTS_MODELS.data, showSpeechModels);
  onCallback(composer, SET_TTS_MODEL, async (ctx, slug) => {
    const account = ctx.account;
    const model = findModel(slug);
    if (!account || model?.category !== 'tts') return ctx.answerCallbackQuery();
    if (!canUseModel(account.plan.slug, model)) {
      const names = await planNames(ctx.deps.services.plans);
      return ctx.answerCallbackQuery({
        text: ctx.t('model-locked', { model: model.name, plan: names[model.minPlan] ?? model.minPlan }),
        show_alert: true,
      });
    }
    await ctx.deps.services.settings.setTtsModel(account.user.id, account.plan.slug, model.slug);
    await showSettings(ctx);
  });

  onCallback(composer, SET_CONFIRM_ABOVE, async (ctx, tokens) => {
    const account = ctx.account;
    if (!account || !(CONFIRM_ABOVE_CHOICES as readonly number[]).includes(tokens)) return ctx.answerCallbackQuery();
    await ctx.deps.services.settings.setConfirmAbove(account.user.id, tokens);
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
