import { Composer, InlineKeyboard } from 'grammy';
import type { BotContext } from '../context';
import { show } from './respond';
import { MENU } from '../callback-data';

async function showStats(ctx: BotContext): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const s = await ctx.deps.services.usage.userStats(account.user.id);
  const b = s.breakdown;
  const text = ctx.t('stats-text', {
    total: s.total_generations,
    spent: s.tokens_spent_total,
    recent: s.recent_30d.generations,
    recentSpent: s.recent_30d.tokens_spent,
    text: b.text.count,
    textTokens: b.text.tokens,
    image: b.image.count,
    imageTokens: b.image.tokens,
    video: b.video.count,
    videoTokens: b.video.tokens,
    audio: b.audio.count,
    audioTokens: b.audio.tokens,
    tools: b.tools.count,
    toolsTokens: b.tools.tokens,
  });
  await show(
    ctx,
    text,
    new InlineKeyboard().text(ctx.t('menu-history'), MENU.data('history')).text(ctx.t('button-menu'), MENU.data('main')),
  );
}

/** Completed generations and tokens spent, in total, by kind and over 30 days (the API's Stats object). */
export function statsFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.command('stats', showStats);
  composer.callbackQuery(MENU.data('stats'), showStats);
  return composer;
}
