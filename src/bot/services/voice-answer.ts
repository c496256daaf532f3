import { hasErrorCode } from '../../core/error-registry';
import { quoteGeneration } from '../../core/catalog/pricing';
import { speakablePart, speechInputLimit } from '../../core/catalog/speech-input';
import { PLAN_SLUGS, type TtsModel } from '../../core/catalog/types';
import { defaultTtsModel } from '../../core/accounts/voice-answers';
import type { BotContext } from '../context';
import { isExpectedError } from '../errors';
import { planName } from '../render/format';
import { commandFromRequest } from '../../core/catalog/params';
import { renderMarkdown } from '../render/markdown';
import { topicOf } from '../transport/topics';

/** Why a voice answer was not made, as the refusal text words it. */
type Refusal = 'tokens' | 'limit' | 'plan' | 'other';

function refusalOf(err: unknown): Refusal {
  if (hasErrorCode(err, 'insufficient_tokens')) return 'tokens';
  if (hasErrorCode(err, 'rate_limit_exceeded')) return 'limit';
  if (hasErrorCode(err, 'insufficient_plan')) return 'plan';
  return 'other';
}

/** The speech format of a voice message: Opus when the model gives it (Telegram's voice format), else its default. */
function voiceFormat(model: TtsModel): string {
  return model.config.audio_formats.includes('opus') ? 'opus' : model.config.default_audio_format;
}

/**
 * Voice answers (`/settings`): after a chat answer, the same answer spoken with the user's speech model, billed as
 * a speech generation of its own (its generation row and ledger rows, priced by the catalog) and delivered as a
 * voice message in reply to the text (see ResultDelivery). Limits, balance and plan are checked first; a refusal
 * is a short note, and the text answer stands as it is. An answer longer than the model takes is spoken up to the
 * last sentence that fits, and the note says so.
 */
export async function speakAnswer(ctx: BotContext, answer: string, replyTo: number | undefined): Promise<void> {
  const account = ctx.account;
  const chatId = ctx.chat?.id;
  if (!account || chatId === undefined) return;
  const { services, ownOrigin } = ctx.deps;
  const voice = await services.settings.voiceAnswers(account.user.id, account.plan.slug);
  if (!voice.enabled) return;
  const t = ctx.t;
  const group = ctx.chat?.type !== 'private';
  const threadId = topicOf(ctx);
  const refuse = async (reason: Refusal, price = 0) => {
    // In a group the plan is not named (account data stays in the private chat).
    const shown: Refusal = group && reason === 'plan' ? 'other' : reason;
    const plan = await planName(services.plans, PLAN_SLUGS.find((slug) => defaultTtsModel(slug) !== null) ?? 'basic');
    await ctx.reply(t('voice-answer-refused', { reason: shown, price, plan }), replyTo ? replyParameters(replyTo) : {});
  };
  if (!voice.model) return refuse('plan');
  const model = voice.model;

  const text = renderMarkdown(answer).text.trim();
  if (text === '') return;
  const spoken = speakablePart(text, speechInputLimit(model));
  const command = commandFromRequest({ model: model.slug, prompt: spoken.text, audioFormat: voiceFormat(model) });
  const cost = quoteGeneration(command.model, command.params);
  try {
    await services.preflight.check(account, model, cost);
  } catch (err) {
    if (!isExpectedError(err)) throw err;
    return refuse(refusalOf(err), cost);
  }
  if (spoken.cut) {
    await ctx.reply(t('voice-answer-cut', { chars: [...spoken.text].length }), replyTo ? replyParameters(replyTo) : {});
  }
  try {
    await services.generations.generate(account, command, {
      source: 'bot',
      ownOrigins: [ownOrigin],
      delivery: {
        chatId,
        locale: ctx.locale,
        silent: !account.settings.notifications_enabled,
        voice: true,
        replyTo,
        ...(threadId !== undefined ? { threadId } : {}),
      },
    });
  } catch (err) {
    if (!isExpectedError(err)) services.log.error({ err }, 'bot voice answer failed');
    await refuse(refusalOf(err), cost);
  }
}

function replyParameters(messageId: number) {
  return { reply_parameters: { message_id: messageId, allow_sending_without_reply: true } };
}
