import { Composer } from 'grammy';
import { canUseModel, defaultSttModel, findModel, listModels } from '../../core/catalog/catalog';
import type { SttModel } from '../../core/catalog/types';
import type { BotContext } from '../context';
import { planNames } from '../format';
import { startForUpdate } from '../generation-runner';
import { modelPickerKeyboard } from '../keyboards/models';
import { show } from './respond';
import { MENU, onCallback, STT_MODEL } from '../callback-data';

/** The chat's speech-to-text model: the one picked in the menu when the plan allows it, else the default. */
function sttModelOf(ctx: BotContext): SttModel {
  const picked = ctx.session.sttModel ? findModel(ctx.session.sttModel) : undefined;
  if (picked?.category === 'stt' && ctx.account && canUseModel(ctx.account.plan.slug, picked)) return picked;
  return defaultSttModel();
}

async function showStt(ctx: BotContext): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const current = sttModelOf(ctx);
  const kb = modelPickerKeyboard(ctx.t, listModels({ category: 'stt' }), {
    plan: account.plan.slug,
    planNames: await planNames(ctx.deps.services.plans),
    data: (slug) => STT_MODEL.data(slug),
    current: current.slug,
  });
  kb.text(ctx.t('button-menu'), MENU.data('main'));
  await show(ctx, ctx.t('stt-intro', { model: current.name }), kb);
}

/** Voice messages, audio files and video notes are transcribed (default STT model unless another is picked). */
export function voiceFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('transcribe', showStt);
  composer.callbackQuery(MENU.data('stt'), showStt);

  onCallback(composer, STT_MODEL, async (ctx, slug) => {
    const account = ctx.account;
    const model = findModel(slug);
    if (!account || model?.category !== 'stt') return ctx.answerCallbackQuery();
    if (!canUseModel(account.plan.slug, model)) {
      const names = await planNames(ctx.deps.services.plans);
      return ctx.answerCallbackQuery({
        text: ctx.t('model-locked', { model: model.name, plan: names[model.minPlan] ?? model.minPlan }),
        show_alert: true,
      });
    }
    ctx.session.sttModel = model.slug;
    await ctx.answerCallbackQuery({ text: ctx.t('stt-model-set', { model: model.name }) });
    await showStt(ctx);
  });

  const transcribe = async (ctx: BotContext, file: { file_id: string; file_size?: number }, filename: string) => {
    const model = sttModelOf(ctx);
    await startForUpdate(
      ctx,
      model.slug,
      { kind: 'transcribe', fileId: file.file_id, fileSize: file.file_size, filename, model: model.slug },
      ctx.message?.message_id,
    );
  };

  composer.on('message:voice', (ctx) => transcribe(ctx, ctx.message.voice, 'voice.ogg'));
  composer.on('message:audio', (ctx) => transcribe(ctx, ctx.message.audio, ctx.message.audio.file_name ?? 'audio.mp3'));
  composer.on('message:video_note', (ctx) => transcribe(ctx, ctx.message.video_note, 'video-note.mp4'));
  composer.on('message:document', async (ctx, next) => {
    const doc = ctx.message.document;
    if (!doc.mime_type?.startsWith('audio/')) return next();
    await transcribe(ctx, doc, doc.file_name ?? 'audio');
  });

  return composer;
}
