import { Composer } from 'grammy';
import type { BotContext } from '../context';
import type { ToolsArgs } from '../conversations/tools';
import { imageOf, type ImageRef } from '../conversations/wizard';
import { startForUpdate } from '../generation-runner';
import { chatTurn } from '../chat-turn';

/** What a photo caption asks for. */
export interface CaptionIntent {
  tool: 'upscale' | 'remove-bg' | 'colorize' | 'text-ocr' | 'style-transfer' | 'inpaint' | 'face-swap';
  prompt?: string;
  scale?: number;
}

/** Reads a photo caption (English or Russian) as a tool request; undefined when it names none. */
export function toolFromCaption(caption: string | undefined): CaptionIntent | undefined {
  const text = caption?.trim() ?? '';
  if (text === '') return undefined;
  // No \b: it only knows ASCII letters, and the Russian keywords are Cyrillic.
  const withPrompt = (re: RegExp) => re.exec(text)?.[1]?.trim();
  const style = withPrompt(/^(?:style|стиль)(?=$|[\s:\-–—])\s*[:\-–—]?\s*([\s\S]*)$/i);
  if (style !== undefined) return { tool: 'style-transfer', prompt: style || undefined };
  const inpaint = withPrompt(/^(?:inpaint|перерисуй|дорисуй)(?=$|[\s:\-–—])\s*[:\-–—]?\s*([\s\S]*)$/i);
  if (inpaint !== undefined) return { tool: 'inpaint', prompt: inpaint || undefined };
  const upscale = /^(?:upscale|увеличь|увеличить|апскейл)(?:\s*[x×х]?\s*([24])\s*[x×х]?)?\s*$/i.exec(text);
  if (upscale) return { tool: 'upscale', scale: upscale[1] ? Number(upscale[1]) : undefined };
  if (/^(?:remove[\s-]*(?:the\s+)?(?:bg|background)|убери\s+фон|удали(?:ть)?\s+фон|без\s+фона)$/i.test(text)) return { tool: 'remove-bg' };
  if (/^(?:colou?ri[sz]e|раскрась|раскрасить)$/i.test(text)) return { tool: 'colorize' };
  if (/^(?:ocr|text|extract\s+text|read\s+text|текст|распознай(?:\s+текст)?)$/i.test(text)) return { tool: 'text-ocr' };
  if (/^(?:face[\s-]*swap|замени\s+лицо|заменить\s+лицо)$/i.test(text)) return { tool: 'face-swap' };
  return undefined;
}

/**
 * What to do with a photo and the words that came with it (its caption, or a reply to it): a caption naming a tool
 * runs it at once (upscale, remove-bg, colorize, text-ocr, style-transfer with its style); inpaint and face-swap
 * continue in the tools wizard (mask, second photo); other words are a question for a vision model; no words open
 * the wizard to pick a tool for the photo.
 */
export async function photoRequest(ctx: BotContext, photo: ImageRef, words: string | undefined): Promise<void> {
  const intent = toolFromCaption(words);
  const direct =
    intent && intent.tool !== 'inpaint' && intent.tool !== 'face-swap' && !(intent.tool === 'style-transfer' && !intent.prompt);
  if (intent && direct) {
    const params: Record<string, unknown> = {};
    if (intent.scale) params.scale = intent.scale;
    const body: Record<string, unknown> = { model: intent.tool, params };
    if (intent.prompt) body.prompt = intent.prompt;
    if (intent.tool !== 'text-ocr') body.format = ctx.account?.settings.image_format;
    await startForUpdate(
      ctx,
      intent.tool,
      { kind: 'generate', body, images: [{ field: 'params.image_url', ...photo }] },
      ctx.message?.message_id,
    );
    return;
  }
  const question = words?.trim();
  if (!intent && question) {
    await ctx.conversation.exitAll();
    await chatTurn(ctx, { text: question, image: photo, replyTo: ctx.message?.message_id });
    return;
  }
  await ctx.conversation.exitAll();
  await ctx.conversation.enter('tools', { locale: ctx.locale, tool: intent?.tool, photo, prompt: intent?.prompt } satisfies ToolsArgs);
}

/** Photos and images sent as files, with or without a caption (see photoRequest). */
export function photosFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.on('message:photo', async (ctx) => {
    const photo = imageOf(ctx);
    if (photo) await photoRequest(ctx, photo, ctx.message.caption);
  });
  composer.on('message:document', async (ctx, next) => {
    const photo = imageOf(ctx);
    if (!photo) return next();
    await photoRequest(ctx, photo, ctx.message.caption);
  });

  return composer;
}
