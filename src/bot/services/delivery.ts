import { GrammyError, InlineKeyboard, InputFile, type Api } from 'grammy';
import type { Message } from 'grammy/types';
import { RESULT_FOLLOW_UP, type FollowUp } from '../callback-data';
import type { ButtonOwners } from '../group/button-owners';
import { findModel, resultAsDocument } from '../../core/catalog/catalog';
import { deliveryTargetOf, type DeliveryOutbox, type DeliveryTarget } from '../../core/generations/delivery/delivery-outbox';
import type { GenerationNotifier } from '../../core/generations/ports';
import { resultUrl } from '../../core/generations/result-url';
import type { LinkOrigins } from '../../core/links/link-origins';
import { readStoredObject, type ResultStorage } from '../../core/media/storage';
import type { GenerationRecord } from '../../core/records';
import type { Logger } from '../../logger';
import { actionForUpload, withChatAction } from '../transport/chat-action';
import { failureText } from '../errors';
import { DEFAULT_LOCALE, isLocale, type I18n, type Locale, type Translate } from '../i18n';
import { splitMessage } from '../transport/streaming-reply';
import { expectedSeconds, progressText } from '../render/progress';
import { extensionOf } from '../../core/media/mime';
import { sniffAudio } from '../../core/media/sniff';
import { truncate } from '../render/format';
import { isGroupChatId } from '../group/chats';

export interface ResultDeliveryDeps {
  outbox: DeliveryOutbox;
  /** Who may press the buttons under a result in a group: the member who asked. */
  owners: Pick<ButtonOwners, 'record'>;
  /** A user's total balance, for the caption. */
  balanceOf: (userId: number) => Promise<number>;
  storage: ResultStorage;
  i18n: I18n;
  api: Api;
  log: Logger;
  /** Bases of result links; a link is shown only with PUBLIC_URL (reachable from outside the machine). */
  links: LinkOrigins;
  maxMessageLength: number;
  progressIntervalMs: number;
}

/** Bots may upload files of up to 50 MB; photos up to 10 MB. */
const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
const MAX_PHOTO_BYTES = 10 * 1024 * 1024;

/**
 * What Telegram plays in its music player (sendAudio takes MP3 or M4A). The catalog's music vendors are asked for
 * MP3 by the bot; a track in another format would arrive as a file.
 */
const PLAYER_AUDIO: ReadonlySet<string> = new Set(['audio/mpeg', 'audio/mp4']);
/** Telegram shows a track's title on one line; a prompt is cut to this many characters. */
const TRACK_TITLE_MAX = 64;

/** sendAudio's track fields for a music result. */
export function trackInfo(gen: Pick<GenerationRecord, 'modelSlug' | 'prompt' | 'durationSeconds'>): {
  title?: string;
  performer: string;
  duration?: number;
} {
  const prompt = gen.prompt?.replace(/\s+/g, ' ').trim();
  return {
    ...(prompt ? { title: truncate(prompt, TRACK_TITLE_MAX) } : {}),
    performer: findModel(gen.modelSlug)?.name ?? gen.modelSlug,
    ...(gen.durationSeconds ? { duration: gen.durationSeconds } : {}),
  };
}

interface SendOptions {
  disable_notification: boolean;
  reply_parameters?: { message_id: number; allow_sending_without_reply: boolean };
  message_thread_id?: number;
  reply_markup?: InlineKeyboard;
}

/**
 * The buttons under an image result: the same request again (not for a result made from the user's photo, which
 * the bot no longer holds), variations, upscale (not of an upscale) and edit. Tools' image results are edited and
 * upscaled only.
 */
export function followUpKeyboard(
  t: Translate,
  gen: Pick<GenerationRecord, 'id' | 'modelSlug' | 'category'>,
  target: DeliveryTarget,
): InlineKeyboard {
  const button = (label: string, action: FollowUp) => [label, RESULT_FOLLOW_UP.data({ action, id: gen.id })] as const;
  const buttons: (readonly [string, string])[] = [];
  if (gen.category === 'image') {
    if (!target.photos) buttons.push(button(t('button-again'), 'again'));
    buttons.push(button(t('button-variations'), 'vary'));
  }
  if (gen.modelSlug !== 'upscale') buttons.push(button(t('button-upscale'), 'up'));
  buttons.push(button(t('button-edit'), 'edit'));
  const kb = new InlineKeyboard();
  buttons.forEach(([label, data], i) => {
    kb.text(label, data);
    if (i % 2 === 1) kb.row();
  });
  return kb;
}

/** The topic of a delivery target, as the Bot API's send methods take it. */
function topicParams(target: DeliveryTarget): { message_thread_id?: number } {
  return target.threadId !== undefined ? { message_thread_id: target.threadId } : {};
}

function localeOf(target: DeliveryTarget): Locale {
  return isLocale(target.locale) ? target.locale : DEFAULT_LOCALE;
}

function isGone(err: unknown): boolean {
  return err instanceof GrammyError && (err.error_code === 400 || err.error_code === 403);
}

/**
 * Delivers finished bot generations (files, text, failures) to the chat stored on the generation, through the
 * core's notification port. Each result is claimed once in the database, so whichever process finishes the job
 * (or the periodic sweep, for one finished where no bot runs) delivers it exactly once, also after a restart.
 * While a generation is pending, its progress message is refreshed with the elapsed time and the ETA.
 */
export class ResultDelivery implements GenerationNotifier {
  private timer?: NodeJS.Timeout;
  private ticking = false;

  constructor(private readonly deps: ResultDeliveryDeps) {}

  async generationFinished(gen: GenerationRecord): Promise<void> {
    await this.deliver(gen);
  }

  /** Claims and sends one finished generation; false when there was nothing to do (not ours, or delivered). */
  async deliver(gen: GenerationRecord): Promise<boolean> {
    const target = deliveryTargetOf(gen);
    if (!target || gen.status === 'pending') return false;
    if (!(await this.deps.outbox.claim(gen.id))) return false;
    try {
      await this.send(gen, target);
      return true;
    } catch (err) {
      this.deps.log.error({ err, generation: gen.id }, 'bot result delivery failed; it will be retried');
      await this.deps.outbox.retryLater(gen.id);
      return false;
    }
  }

  /** Sends a finished result again (history), without touching the delivery claim. */
  async resend(gen: GenerationRecord, chatId: number, locale: Locale, threadId?: number): Promise<void> {
    await this.send(gen, { chatId, locale, threadId });
  }

  private async send(gen: GenerationRecord, target: DeliveryTarget): Promise<void> {
    const t = this.deps.i18n.translator(localeOf(target));
    const model = findModel(gen.modelSlug)?.name ?? gen.modelSlug;
    const { api } = this.deps;
    if (gen.status === 'failed') {
      await this.replaceProgress(target, failureText(gen.errorKind, t, model));
      return;
    }
    const balance = await this.deps.balanceOf(gen.userId);
    // A group sees what the result cost, never the member's balance.
    let caption = isGroupChatId(target.chatId)
      ? t('result-caption-group', { model, tokens: gen.tokensSpent })
      : t('result-caption', { model, tokens: gen.tokensSpent, balance });
    if (gen.sandbox) caption += `\n${t('result-sandbox')}`;
    const options: SendOptions = {
      disable_notification: target.silent === true,
      ...(target.replyTo ? { reply_parameters: { message_id: target.replyTo, allow_sending_without_reply: true } } : {}),
      ...topicParams(target),
    };
    if (gen.resultKey) {
      const stored = await this.deps.storage.get(gen.resultKey);
      if (!stored) {
        await this.replaceProgress(target, t('result-gone'));
        return;
      }
      const link = this.deps.links.publicUrl ? resultUrl(this.deps.links, gen) : null;
      if (link) caption += `\n${t('result-link', { url: link })}`;
      if (stored.size > MAX_UPLOAD_BYTES) {
        stored.stream?.destroy();
        await this.replaceProgress(target, link ? t('result-too-large-link', { url: link }) : t('result-too-large'));
        return;
      }
      const data = await readStoredObject(stored, MAX_UPLOAD_BYTES);
      const image = stored.mime.startsWith('image/') && !target.voice;
      const withButtons = image ? { ...options, reply_markup: followUpKeyboard(t, gen, target) } : options;
      const sent = await withChatAction(
        api,
        target.chatId,
        target.voice ? 'record_voice' : actionForUpload(stored.mime),
        () =>
          target.voice
            ? this.sendSpeech(api, target.chatId, gen, data, caption, options)
            : this.sendFile(api, target.chatId, gen, stored.mime, data, caption, withButtons),
        { threadId: target.threadId },
      );
      // In a group the buttons belong to the member who asked (see ButtonOwners).
      if (image && isGroupChatId(target.chatId) && target.askerId !== undefined) {
        await this.deps.owners.record(target.chatId, sent.message_id, target.askerId);
      }
    } else {
      const text = gen.resultText?.trim() ? gen.resultText : t('result-empty-text');
      for (const piece of splitMessage(`${text}\n\n${caption}`, this.deps.maxMessageLength)) {
        await api.sendMessage(target.chatId, piece, options);
      }
    }
    if (target.messageId) await api.deleteMessage(target.chatId, target.messageId).catch(() => undefined);
  }

  /**
   * A voice answer: a voice message when the speech is OGG/Opus (what Telegram plays as voice), a track in the music
   * player when it is MP3 or M4A (sendAudio takes nothing else), else a file (WAV).
   */
  private async sendSpeech(
    api: Api,
    chatId: number,
    gen: GenerationRecord,
    data: Buffer,
    caption: string,
    options: SendOptions,
  ): Promise<Message> {
    const kind = sniffAudio(data);
    const file = new InputFile(data, `${gen.modelSlug}-${gen.id}.${kind?.ext ?? 'bin'}`);
    if (kind?.ext === 'ogg') {
      return api.sendVoice(chatId, file, { ...options, caption, ...(gen.durationSeconds ? { duration: gen.durationSeconds } : {}) });
    }
    if (kind?.ext === 'mp3' || kind?.ext === 'm4a') {
      return api.sendAudio(chatId, file, { ...options, caption, performer: findModel(gen.modelSlug)?.name ?? gen.modelSlug });
    }
    return api.sendDocument(chatId, file, { ...options, caption });
  }

  private async sendFile(
    api: Api,
    chatId: number,
    gen: GenerationRecord,
    mime: string,
    data: Buffer,
    caption: string,
    options: SendOptions,
  ): Promise<Message> {
    const file = () => new InputFile(data, `${gen.modelSlug}-${gen.id}.${extensionOf(mime)}`);
    const withCaption = { ...options, caption };
    if (mime.startsWith('image/') && !resultAsDocument(gen.modelSlug) && data.length <= MAX_PHOTO_BYTES) {
      try {
        return await api.sendPhoto(chatId, file(), withCaption);
      } catch (err) {
        // Telegram refuses some photos (extreme aspect ratios, dimensions): the file still arrives as a document.
        if (!isGone(err)) throw err;
      }
    } else if (mime.startsWith('video/')) {
      return api.sendVideo(chatId, file(), { ...withCaption, supports_streaming: true });
    } else if (findModel(gen.modelSlug)?.category === 'music' && PLAYER_AUDIO.has(mime)) {
      // The music player: a track with its title (the prompt), performer (the model) and length.
      return api.sendAudio(chatId, file(), { ...withCaption, ...trackInfo(gen) });
    } else if (PLAYER_AUDIO.has(mime) || mime === 'audio/aac') {
      return api.sendAudio(chatId, file(), withCaption);
    }
    return api.sendDocument(chatId, file(), withCaption);
  }

  /** Edits the progress message into `text`, or sends `text` when there is none (or it is gone). */
  private async replaceProgress(target: DeliveryTarget, text: string): Promise<void> {
    if (target.messageId) {
      try {
        await this.deps.api.editMessageText(target.chatId, target.messageId, text);
        return;
      } catch (err) {
        if (!isGone(err)) throw err;
      }
    }
    await this.deps.api.sendMessage(target.chatId, text, { disable_notification: target.silent === true, ...topicParams(target) });
  }

  // ---------- progress of pending results, and the safety sweep ----------

  /** One round: refresh progress messages of pending results and deliver finished ones nobody delivered. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await this.refreshProgress();
      await this.sweep();
    } finally {
      this.ticking = false;
    }
  }

  private async refreshProgress(): Promise<void> {
    const rows = await this.deps.outbox.pendingWithProgress();
    for (const gen of rows) {
      const target = deliveryTargetOf(gen);
      if (!target?.messageId) continue;
      const t = this.deps.i18n.translator(localeOf(target));
      const elapsed = Math.max(0, Math.round((Date.now() - gen.createdAt.getTime()) / 1000));
      const text = progressText(t, findModel(gen.modelSlug)?.name ?? gen.modelSlug, elapsed, expectedSeconds(gen.modelSlug));
      await this.deps.api.editMessageText(target.chatId, target.messageId, text).catch((err: unknown) => {
        if (!isGone(err)) this.deps.log.debug({ err, generation: gen.id }, 'progress message not updated');
      });
    }
  }

  private async sweep(): Promise<void> {
    const rows = await this.deps.outbox.undelivered();
    for (const gen of rows) await this.deliver(gen);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.tick().catch((err: unknown) => this.deps.log.warn({ err }, 'bot progress round failed'));
    }, this.deps.progressIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
