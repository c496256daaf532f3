import { Composer } from 'grammy';
import { hasErrorCode } from '../../core/error-registry';
import type { NormalizedParams } from '../../core/catalog/params';
import type { GenerationRecord } from '../../core/records';
import { onCallback, RESULT_FOLLOW_UP, type FollowUp } from '../callback-data';
import type { BotContext } from '../context';
import type { EditArgs } from '../conversations/edit';
import type { QuickArgs } from '../conversations/quick';
import { imageOfMessage } from '../conversations/wizard';
import type { BotRequest } from '../services/generation-runner';

/** The request a finished generation ran with (its model, prompt and options), to run again. */
export function requestOf(gen: Pick<GenerationRecord, 'modelSlug' | 'prompt' | 'params'>): BotRequest {
  const p = gen.params as Partial<NormalizedParams>;
  const request: BotRequest = {
    model: gen.modelSlug,
    prompt: gen.prompt ?? '',
    negativePrompt: p.negativePrompt,
    size: p.size,
    format: p.format,
    quality: p.quality,
    style: p.style,
    duration: p.durationSeconds,
    voiceId: p.voiceId,
    speed: p.speed,
    audioFormat: p.audioFormat,
    scale: p.scale,
  };
  return Object.fromEntries(Object.entries(request).filter(([, v]) => v !== undefined && v !== '')) as BotRequest;
}

/**
 * The buttons under an image result: Again (the same request, a new image), Variations (the image and its prompt
 * on an image model that takes a photo), Upscale (the upscale tool on it), Edit (asks what to change). Each runs in
 * one step: the price is confirmed only above the user's "don't ask" price.
 */
async function followUp(ctx: BotContext, action: FollowUp, id: number): Promise<void> {
  const account = ctx.account;
  const message = ctx.callbackQuery?.message;
  if (!account || !message) return void (await ctx.answerCallbackQuery());
  let gen;
  try {
    gen = await ctx.deps.services.generations.get(account.user.id, id);
  } catch (err) {
    if (!hasErrorCode(err, 'not_found')) throw err;
    return void (await ctx.answerCallbackQuery({ text: ctx.t('follow-up-gone') }));
  }
  const image = imageOfMessage(message);
  if (!image && action !== 'again') return void (await ctx.answerCallbackQuery({ text: ctx.t('follow-up-gone') }));
  await ctx.answerCallbackQuery();
  await ctx.conversation.exitAll();
  const base = { category: 'image' as const, locale: ctx.locale, replyTo: message.message_id };
  const original = requestOf(gen);
  switch (action) {
    case 'again':
      return ctx.conversation.enter('quick', {
        ...base,
        prompt: original.prompt ?? '',
        run: { kind: 'exact', request: original },
      } satisfies QuickArgs);
    case 'vary':
      return ctx.conversation.enter('quick', {
        ...base,
        prompt: original.prompt || ctx.t('follow-up-variation-prompt'),
        run: { kind: 'photo', image: image!, keep: original },
      } satisfies QuickArgs);
    case 'up':
      return ctx.conversation.enter('quick', {
        ...base,
        prompt: '',
        run: { kind: 'tool', image: image!, request: { model: 'upscale' } },
      } satisfies QuickArgs);
    case 'edit':
      return ctx.conversation.enter('edit', { locale: ctx.locale, image: image!, replyTo: message.message_id } satisfies EditArgs);
  }
}

export function followUpsFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  onCallback(composer, RESULT_FOLLOW_UP, (ctx, { action, id }) => followUp(ctx, action, id));
  return composer;
}
