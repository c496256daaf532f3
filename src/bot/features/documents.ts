import { Composer } from 'grammy';
import type { Document } from 'grammy/types';
import { documentKind, readDocument } from '../../core/documents/read';
import { DocumentTooLargeError } from '../../core/documents/errors';
import type { BotContext, ChatDocument } from '../context';
import { audienceOf, describeErrorForUser, isExpectedError } from '../errors';
import { chatTurn, modelForTurn } from '../services/chat-turn';
import { downloadTelegramFile } from '../transport/telegram-files';

/** About how many input tokens a text is (the chat hold's own estimate: four characters a token). */
const approxTokens = (text: string) => Math.ceil(text.length / 4);

/** The documents of the conversation and their text in all. */
function documentsOf(ctx: BotContext): ChatDocument[] {
  return ctx.session.chat.documents ?? [];
}

/**
 * A document joins the conversation: read within the caps (file size, PDF pages, text in all), kept until /new, and
 * sent with every question after it: PDFs to models that read them, else their text. A caption is the question;
 * without one the bot says what it read. A document it cannot read, or one over a cap, gets a clear answer and costs
 * nothing (no model is called).
 */
async function joinDocument(ctx: BotContext, doc: Document): Promise<void> {
  const account = ctx.account;
  if (!account || !ctx.message) return;
  const { services, settings, api, token, apiRoot } = ctx.deps;
  const replyTo = { reply_parameters: { message_id: ctx.message.message_id, allow_sending_without_reply: true } };
  const name = doc.file_name ?? (doc.mime_type === 'application/pdf' ? 'document.pdf' : 'document.txt');
  const caps = { maxBytes: settings.maxDocumentBytes, maxPages: settings.maxDocumentPages, maxCharacters: settings.maxDocumentCharacters };
  const held = documentsOf(ctx).reduce((n, d) => n + d.text.length, 0);
  let joined: ChatDocument;
  try {
    if (doc.file_size !== undefined && doc.file_size > caps.maxBytes)
      throw new DocumentTooLargeError('bytes', caps.maxBytes, doc.file_size);
    const file = await downloadTelegramFile(
      { api, token, apiRoot, maxBytes: Math.min(settings.maxDownloadBytes, caps.maxBytes + 1) },
      doc.file_id,
      doc.file_size,
    );
    const read = await readDocument({ name, mime: doc.mime_type, data: file.data }, { ...caps, maxCharacters: caps.maxCharacters - held });
    joined = { name, kind: read.kind, fileId: doc.file_id, fileSize: doc.file_size, pages: read.pages, text: read.text };
  } catch (err) {
    if (!isExpectedError(err)) throw err;
    const refusal =
      err instanceof DocumentTooLargeError && err.limit === 'characters' && held > 0
        ? { text: ctx.t('document-conversation-full', { max: caps.maxCharacters }) }
        : await describeErrorForUser(err, ctx.t, ctx.locale, services.plans, audienceOf(ctx.chat?.id, ctx.me.username));
    await ctx.reply(refusal.text, { ...replyTo, reply_markup: refusal.keyboard });
    return;
  }
  const question = ctx.message.caption?.trim();
  const model = await modelForTurn(ctx, {});
  if (joined.kind === 'pdf' && joined.text === '' && !services.chat.readsDocuments(model)) {
    // A scan without a text layer: only a model that reads PDFs itself sees it.
    await ctx.reply(ctx.t('document-no-text', { name, model: model.name }), replyTo);
    return;
  }
  ctx.session.chat.documents = [...documentsOf(ctx), joined];
  if (question) {
    await chatTurn(ctx, { text: question, replyTo: ctx.message.message_id });
    return;
  }
  await ctx.reply(
    ctx.t('document-joined', {
      name,
      pages: joined.pages ?? 0,
      tokens: approxTokens(documentsOf(ctx).reduce((s, d) => s + d.text, '')),
      count: documentsOf(ctx).length,
    }),
    replyTo,
  );
}

/** PDFs, text, Markdown, code and CSV files join the chat's conversation (images and audio have their own features). */
export function documentsFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.on('message:document', async (ctx) => {
    const doc = ctx.message.document;
    if (documentKind(doc.file_name, doc.mime_type) === undefined) {
      await ctx.reply(ctx.t('error-document-unreadable', { reason: 'type' }), {
        reply_parameters: { message_id: ctx.message.message_id, allow_sending_without_reply: true },
      });
      return;
    }
    await joinDocument(ctx, doc);
  });
  return composer;
}
