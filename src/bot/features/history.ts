import { Composer, InlineKeyboard } from 'grammy';
import { findModel } from '../../core/catalog/catalog';
import { hasErrorCode } from '../../core/error-registry';
import type { BotContext } from '../context';
import { topicOf } from '../transport/topics';
import { formatDateTime, truncate } from '../render/format';
import { show } from './respond';
import { HISTORY_PAGE, MENU, onCallback, RESEND } from '../callback-data';

const STATUS_ICON: Record<string, string> = { completed: '✅', pending: '⏳', failed: '⚠️' };
const ITEM_LABEL_CHARS = 80;
const BUTTON_LABEL_CHARS = 28;

const oneLine = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();

async function showHistory(ctx: BotContext, cursor?: string): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const { services, settings } = ctx.deps;
  let page;
  try {
    page = await services.usage.historyEntries(account.user.id, { cursor, limit: settings.historyPageSize });
  } catch (err) {
    if (!hasErrorCode(err, 'validation_error')) throw err;
    page = await services.usage.historyEntries(account.user.id, { limit: settings.historyPageSize });
  }
  const kb = new InlineKeyboard();
  const lines = page.items.map(({ generation: g, prompt }) => {
    const model = findModel(g.modelSlug)?.name ?? g.modelSlug;
    // Labelled by what was asked (or, for prompt-less tools and transcriptions, by what came out).
    const about = oneLine(prompt) || oneLine(g.resultText);
    if (g.status === 'completed' && g.category !== 'text') {
      const label = about ? truncate(about, BUTTON_LABEL_CHARS) : model;
      kb.text(ctx.t('button-resend', { id: String(g.id), label }), RESEND.data(g.id)).row();
    }
    const item = ctx.t('history-item', {
      icon: STATUS_ICON[g.status] ?? '•',
      id: String(g.id),
      model,
      tokens: g.tokensSpent,
      date: formatDateTime(ctx.locale, g.createdAt),
    });
    return about ? `${item}\n${ctx.t('history-item-about', { text: truncate(about, ITEM_LABEL_CHARS) })}` : item;
  });
  if (cursor) kb.text(ctx.t('button-newest'), HISTORY_PAGE.data(null));
  if (page.nextCursor) kb.text(ctx.t('button-older'), HISTORY_PAGE.data(page.nextCursor));
  kb.row().text(ctx.t('button-menu'), MENU.data('main'));
  const text = lines.length === 0 ? ctx.t('history-empty') : `${ctx.t('history-title')}\n\n${lines.join('\n\n')}`;
  await show(ctx, text, kb);
}

/** The user's generations, newest first, paged with buttons; a finished file can be sent again. */
export function historyFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.command('history', (ctx) => showHistory(ctx));
  composer.callbackQuery(MENU.data('history'), (ctx) => showHistory(ctx));
  onCallback(composer, HISTORY_PAGE, (ctx, cursor) => showHistory(ctx, cursor ?? undefined));

  onCallback(composer, RESEND, async (ctx, id) => {
    const account = ctx.account;
    if (!account || ctx.chat === undefined) return ctx.answerCallbackQuery();
    try {
      const gen = await ctx.deps.services.generations.get(account.user.id, id);
      if (gen.status !== 'completed') return ctx.answerCallbackQuery({ text: ctx.t('history-not-ready') });
      await ctx.answerCallbackQuery();
      await ctx.deps.delivery.resend(gen, ctx.chat.id, ctx.locale, topicOf(ctx));
    } catch (err) {
      if (!hasErrorCode(err, 'not_found')) throw err;
      await ctx.answerCallbackQuery({ text: ctx.t('history-not-found') });
    }
  });
  return composer;
}
