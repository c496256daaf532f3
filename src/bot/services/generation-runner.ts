import { findModel } from '../../core/catalog/catalog';
import { loadCommandFiles, type GenerateCommand, type ImageField } from '../../core/catalog/command';
import { commandFromRequest, type GenerateRequest } from '../../core/catalog/params';
import { IMAGE_FORMATS, type ImageFormat } from '../../core/catalog/types';
import { sniffAudio } from '../../core/media/sniff';
import type { Actor, GenerationOutcome, RequestContext } from '../../core/generations/service';
import { actionForCategory, withChatAction } from '../transport/chat-action';
import type { BotContext, BotDeps } from '../context';
import type { DeliveryTarget } from '../../core/generations/delivery/delivery-outbox';
import { audienceOf, describeErrorForUser, isExpectedError } from '../errors';
import type { Locale } from '../i18n';
import { expectedSeconds } from '../render/progress';
import { downloadTelegramFile } from '../transport/telegram-files';
import { topicOf } from '../transport/topics';

/** A Telegram photo or image document standing for one of the request's image fields. */
export interface ImageInputRef {
  field: ImageField;
  fileId: string;
  fileSize?: number;
  /** The file's type as Telegram gave it (photos are JPEG). */
  mime?: string;
}

/** What a wizard or a caption asks for, its photos apart. */
export type BotRequest = Omit<GenerateRequest, 'images'>;

/**
 * The request with its photos as the command (checked by the catalog's rules, before any download).
 * @throws ParamError, UnknownModelError, ModelRetiredError
 */
export function photoCommand(request: BotRequest, images: readonly ImageInputRef[] = []): GenerateCommand<ImageInputRef> {
  return commandFromRequest<ImageInputRef>({
    ...request,
    images: Object.fromEntries(images.map((image) => [image.field, { file: image }])),
  });
}

/** The account's image format setting, when it is one the models produce. */
export function imageFormatSetting(value: string | undefined): ImageFormat | undefined {
  return IMAGE_FORMATS.find((format) => format === value);
}

/** What to run: a generate request with its photos as Telegram files, or a transcription. */
export type GenerationInput =
  | { kind: 'generate'; request: BotRequest; images?: ImageInputRef[] }
  | { kind: 'transcribe'; fileId: string; fileSize?: number; filename: string; model?: string };

export interface GenerationJob {
  chatId: number;
  /** The topic the request came from: progress and result go there. */
  threadId?: number;
  /** The Telegram user who asked (the result's buttons are theirs in a group). */
  askerId?: number;
  actor: Actor;
  locale: Locale;
  /** Notifications off: results arrive silently. */
  silent: boolean;
  modelSlug: string;
  input: GenerationInput;
  replyTo?: number;
  /** The quoted price, when the caller knows it (a wizard's confirmation); else the model's lowest price is checked. */
  cost?: number;
}

/**
 * Starts a generation for the bot: limits and balance are checked first (a refusal is the only answer), then a
 * progress message with the model's ETA, then the core call in the background. The progress message and the chat
 * are stored on the generation (`delivery`), so the result (or the failure) reaches the chat through the
 * notification port from whichever process finishes it. Errors raised before a generation exists (input,
 * overload, or a limit reached meanwhile) replace the progress message.
 */
export async function startGeneration(deps: BotDeps, job: GenerationJob): Promise<void> {
  const t = deps.i18n.translator(job.locale);
  const model = findModel(job.modelSlug);
  const topic = job.threadId !== undefined ? { message_thread_id: job.threadId } : {};
  const replyTo = {
    ...topic,
    ...(job.replyTo ? { reply_parameters: { message_id: job.replyTo, allow_sending_without_reply: true } } : {}),
  };
  try {
    if (model) await deps.services.preflight.check(job.actor, model, job.cost);
  } catch (err) {
    if (!isExpectedError(err)) throw err;
    const message = await describeErrorForUser(err, t, job.locale, deps.services.plans, audienceOf(job.chatId, deps.botUsername));
    await deps.api.sendMessage(job.chatId, message.text, { reply_markup: message.keyboard, ...replyTo });
    return;
  }
  const progress = await deps.api.sendMessage(
    job.chatId,
    t('progress-started', { model: model?.name ?? job.modelSlug, eta: expectedSeconds(job.modelSlug) }),
    replyTo,
  );
  const delivery: DeliveryTarget = {
    chatId: job.chatId,
    messageId: progress.message_id,
    locale: job.locale,
    silent: job.silent,
    ...(job.threadId !== undefined ? { threadId: job.threadId } : {}),
    ...(job.askerId !== undefined ? { askerId: job.askerId } : {}),
    ...(job.input.kind === 'generate' && job.input.images?.length ? { photos: job.input.images.length } : {}),
  };
  const ctx: RequestContext = { source: 'bot', ownOrigins: [deps.ownOrigin], delivery };
  deps.tasks.run('generation', async () => {
    try {
      // "sending a photo…" (or the like) while the model works; the progress message says how long.
      await withChatAction(deps.api, job.chatId, actionForCategory(model?.category ?? 'image'), () => run(deps, job, ctx), {
        threadId: job.threadId,
      });
    } catch (err) {
      if (!isExpectedError(err)) deps.services.log.error({ err, model: job.modelSlug }, 'bot generation failed');
      const message = await describeErrorForUser(err, t, job.locale, deps.services.plans, audienceOf(job.chatId, deps.botUsername));
      await deps.api
        .editMessageText(job.chatId, progress.message_id, message.text, { reply_markup: message.keyboard })
        .catch(() => deps.api.sendMessage(job.chatId, message.text, { reply_markup: message.keyboard, ...topic }));
    }
  });
}

async function run(deps: BotDeps, job: GenerationJob, ctx: RequestContext): Promise<GenerationOutcome> {
  const files = { api: deps.api, token: deps.token, apiRoot: deps.apiRoot, maxBytes: deps.settings.maxDownloadBytes };
  const { input } = job;
  if (input.kind === 'transcribe') {
    const file = await downloadTelegramFile(files, input.fileId, input.fileSize);
    const sniffed = sniffAudio(file.data);
    // The vendors go by the file name's extension: name it after what the bytes really are.
    const filename = sniffed ? input.filename.replace(/(\.[A-Za-z0-9]+)?$/, `.${sniffed.ext}`) : input.filename;
    const audio = { data: file.data, mime: sniffed?.mime ?? 'audio/ogg', filename };
    return deps.services.generations.transcribe(job.actor, { audio, model: input.model }, ctx);
  }
  // Photos travel as files: downloaded once, checked and (for a queued job) stored by the core.
  const command = await loadCommandFiles(photoCommand(input.request, input.images), async (photo) => ({
    data: (await downloadTelegramFile(files, photo.fileId, photo.fileSize)).data,
  }));
  return deps.services.generations.generate(job.actor, command, ctx);
}

/** startGeneration for the user and chat of an update (features, and conversations through `external`). */
export async function startForUpdate(
  ctx: BotContext,
  modelSlug: string,
  input: GenerationInput,
  replyTo?: number,
  cost?: number,
): Promise<void> {
  const account = ctx.account;
  const chatId = ctx.chat?.id;
  if (!account || chatId === undefined) return;
  await startGeneration(ctx.deps, {
    chatId,
    threadId: topicOf(ctx),
    askerId: ctx.from?.id,
    actor: account,
    locale: account.locale,
    silent: !account.settings.notifications_enabled,
    modelSlug,
    input,
    replyTo,
    cost,
  });
}
