import type { BotConversation, ConvContext } from '../context';
import type { I18n, Locale } from '../i18n';
import { runQuick } from './quick';
import { cancelKeyboard, finishCancelled, messageStep, openWizard, waitText, type ImageRef } from './wizard';

export interface EditArgs {
  locale: Locale;
  /** The photo to edit (a result of the bot, or one the user sent). */
  image: ImageRef;
  /** The message the question answers (the photo). */
  replyTo?: number;
}

/** Edit under an image: asks what should change, then runs that instruction on the photo in one step. */
export function createEditConversation(i18n: I18n) {
  return async function edit(conversation: BotConversation, ctx: ConvContext, args: EditArgs): Promise<void> {
    const t = i18n.translator(args.locale);
    const w = await openWizard(conversation, t);
    const question = messageStep(ctx, t, t('edit-ask'));
    const sent = await ctx.reply(question, {
      reply_markup: cancelKeyboard(w),
      ...(args.replyTo ? { reply_parameters: { message_id: args.replyTo, allow_sending_without_reply: true } } : {}),
    });
    w.messageId = sent.message_id;
    const answer = await waitText(w, question);
    if (answer === null) return finishCancelled(w, ctx, sent.message_id);
    await runQuick(w, answer.ctx, {
      category: 'image',
      prompt: answer.text,
      locale: args.locale,
      replyTo: answer.ctx.message?.message_id,
      run: { kind: 'photo', image: args.image },
    });
  };
}
