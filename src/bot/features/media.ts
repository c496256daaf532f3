import { Composer } from 'grammy';
import type { BotContext } from '../context';
import type { MediaArgs, MediaCategory } from '../conversations/media';
import type { QuickArgs } from '../conversations/quick';
import type { ToolsArgs } from '../conversations/tools';
import { MENU } from '../callback-data';

/** The commands of each media category: the first is the wizard's name in the menu; any of them takes a prompt. */
const COMMANDS: Record<MediaCategory, string[]> = { image: ['image'], video: ['video'], tts: ['speech', 'speak'], music: ['music'] };

/**
 * Entry points of the image, video, speech, music and tools wizards (menu buttons and commands). A command with a
 * prompt (`/image a red fox`) runs in one step with the last model and options instead.
 */
export function mediaFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  for (const category of Object.keys(COMMANDS) as MediaCategory[]) {
    const enter = async (ctx: BotContext) => {
      if (ctx.callbackQuery) await ctx.answerCallbackQuery();
      await ctx.conversation.exitAll();
      await ctx.conversation.enter('media', { category, locale: ctx.locale } satisfies MediaArgs);
    };
    composer.command(COMMANDS[category], async (ctx) => {
      const prompt = ctx.match.trim();
      if (prompt === '') return enter(ctx);
      await ctx.conversation.exitAll();
      await ctx.conversation.enter('quick', { category, prompt, locale: ctx.locale, replyTo: ctx.message?.message_id } satisfies QuickArgs);
    });
    composer.callbackQuery(MENU.data(category), enter);
  }

  const tools = async (ctx: BotContext) => {
    if (ctx.callbackQuery) await ctx.answerCallbackQuery();
    await ctx.conversation.exitAll();
    await ctx.conversation.enter('tools', { locale: ctx.locale } satisfies ToolsArgs);
  };
  composer.command('tools', tools);
  composer.callbackQuery(MENU.data('tools'), tools);

  return composer;
}
