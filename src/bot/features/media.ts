import { Composer } from 'grammy';
import type { BotContext } from '../context';
import type { MediaArgs, MediaCategory } from '../conversations/media';
import type { ToolsArgs } from '../conversations/tools';
import { MENU } from '../callback-data';

const COMMANDS: Record<MediaCategory, string> = { image: 'image', video: 'video', tts: 'speech', music: 'music' };

/** Entry points of the image, video, speech, music and tools wizards (menu buttons and commands). */
export function mediaFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  for (const category of Object.keys(COMMANDS) as MediaCategory[]) {
    const enter = async (ctx: BotContext) => {
      if (ctx.callbackQuery) await ctx.answerCallbackQuery();
      await ctx.conversation.exitAll();
      await ctx.conversation.enter('media', { category, locale: ctx.locale } satisfies MediaArgs);
    };
    composer.command(COMMANDS[category], enter);
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
