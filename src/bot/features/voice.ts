import { Composer } from 'grammy';
import { canUseModel, defaultSttModel, findModel, listModels } from '../../core/catalog/catalog';
import type { SttModel } from '../../core/catalog/types';
import { sniffAudio } from '../../core/media/sniff';
import { chatTurn } from '../services/chat-turn';
import type { BotContext } from '../context';
import { audienceOf, describeErrorForUser, failureText, isExpectedError } from '../errors';
import { planNames, truncate } from '../render/format';
import { startForUpdate } from '../services/generation-runner';
import { modelPickerKeyboard } from '../keyboards/models';
import { downloadTelegramFile } from '../transport/telegram-files';
import { show } from './respond';
import { MENU, onCallback, STT_MODEL } from '../callback-data';

interface SpokenFile {
  file_id: string;
  file_size?: number;
}

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

/** The transcript of a spoken message, or undefined after telling the user why there is none. */
async function transcript(ctx: BotContext, model: SttModel, file: SpokenFile, filename: string): Promise<string | undefined> {
  const account = ctx.account!;
  const { services, api, token, apiRoot, settings, ownOrigin } = ctx.deps;
  const replyTo = { reply_parameters: { message_id: ctx.message!.message_id, allow_sending_without_reply: true } };
  let generation;
  try {
    await services.preflight.check(account, model);
    const downloaded = await downloadTelegramFile(
      { api, token, apiRoot, maxBytes: settings.maxDownloadBytes },
      file.file_id,
      file.file_size,
    );
    const sniffed = sniffAudio(downloaded.data);
    // The vendors go by the file name's extension: name it after what the bytes really are.
    const name = sniffed ? filename.replace(/(\.[A-Za-z0-9]+)?$/, `.${sniffed.ext}`) : filename;
    const audio = { data: downloaded.data, mime: sniffed?.mime ?? 'audio/ogg', filename: name };
    ({ generation } = await services.generations.transcribe(
      account,
      { audio, model: model.slug },
      { source: 'bot', ownOrigins: [ownOrigin] },
    ));
  } catch (err) {
    if (!isExpectedError(err)) services.log.error({ err }, 'bot voice transcription failed');
    const message = await describeErrorForUser(err, ctx.t, ctx.locale, services.plans, audienceOf(ctx.chat?.id, ctx.me.username));
    await ctx.reply(message.text, { reply_markup: message.keyboard, ...replyTo });
    return undefined;
  }
  if (generation.status === 'failed') {
    await ctx.reply(failureText(generation.errorKind, ctx.t, model.name), replyTo);
    return undefined;
  }
  if (generation.status === 'pending') {
    await ctx.reply(ctx.t('voice-pending'), replyTo);
    return undefined;
  }
  const text = generation.resultText?.trim() ?? '';
  if (text === '') {
    await ctx.reply(ctx.t('voice-empty'), replyTo);
    return undefined;
  }
  await ctx.reply(ctx.t('voice-transcript', { text: truncate(text, 3500), model: model.name, tokens: generation.tokensSpent }), replyTo);
  return text;
}

/**
 * Voice conversation ("answer" mode): the message is transcribed (billed as speech to text), the transcript is
 * shown, and the chat model answers it like a typed message (billed as chat).
 */
async function answerSpoken(ctx: BotContext, file: SpokenFile, filename: string): Promise<void> {
  await ctx.replyWithChatAction('typing').catch(() => undefined);
  const text = await transcript(ctx, sttModelOf(ctx), file, filename);
  if (text !== undefined) await chatTurn(ctx, { text, replyTo: ctx.message?.message_id });
}

/**
 * Voice messages, audio files and video notes are transcribed (default STT model unless another is picked). In the
 * "answer" voice mode (/settings) voice messages and video notes are answered by the chat model instead.
 */
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

  const transcribe = async (ctx: BotContext, file: SpokenFile, filename: string) => {
    const model = sttModelOf(ctx);
    await startForUpdate(
      ctx,
      model.slug,
      { kind: 'transcribe', fileId: file.file_id, fileSize: file.file_size, filename, model: model.slug },
      ctx.message?.message_id,
    );
  };

  /** Spoken to the bot (not a recording to write down): answered in the "answer" voice mode. */
  const spoken = async (ctx: BotContext, file: SpokenFile, filename: string) => {
    const mode = ctx.account ? await ctx.deps.services.settings.voiceMode(ctx.account.user.id) : 'transcribe';
    await (mode === 'answer' ? answerSpoken(ctx, file, filename) : transcribe(ctx, file, filename));
  };

  composer.on('message:voice', (ctx) => spoken(ctx, ctx.message.voice, 'voice.ogg'));
  composer.on('message:audio', (ctx) => transcribe(ctx, ctx.message.audio, ctx.message.audio.file_name ?? 'audio.mp3'));
  composer.on('message:video_note', (ctx) => spoken(ctx, ctx.message.video_note, 'video-note.mp4'));
  composer.on('message:document', async (ctx, next) => {
    const doc = ctx.message.document;
    if (!doc.mime_type?.startsWith('audio/')) return next();
    await transcribe(ctx, doc, doc.file_name ?? 'audio');
  });

  return composer;
}
