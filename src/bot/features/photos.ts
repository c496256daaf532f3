import { Composer } from 'grammy';
import { toolModel } from '../../core/catalog/catalog';
import type { ToolSlug } from '../../core/catalog/models';
import type { BotContext } from '../context';
import type { ToolsArgs } from '../conversations/tools';
import { imageOf, type ImageRef } from '../conversations/wizard';
import { imageFormatSetting, startForUpdate, type BotRequest } from '../services/generation-runner';
import { chatTurn } from '../services/chat-turn';
import type { QuickArgs } from '../conversations/quick';

/** What a photo caption asks for. */
export interface CaptionIntent {
  tool: ToolSlug;
  prompt?: string;
  scale?: number;
}

type CaptionMatch = Omit<CaptionIntent, 'tool'>;

// No \b: it only knows ASCII letters, and the Russian keywords are Cyrillic.
const withPrompt =
  (re: RegExp) =>
  (text: string): CaptionMatch | undefined => {
    const m = re.exec(text);
    return m ? { prompt: m[1]?.trim() || undefined } : undefined;
  };
const exactly =
  (re: RegExp) =>
  (text: string): CaptionMatch | undefined =>
    re.test(text) ? {} : undefined;

/** The caption words (English and Russian) of every catalog tool, tried in this order. */
const CAPTION_WORDS: Record<ToolSlug, (text: string) => CaptionMatch | undefined> = {
  'style-transfer': withPrompt(/^(?:style|стиль)(?=$|[\s:\-–—])\s*[:\-–—]?\s*([\s\S]*)$/i),
  inpaint: withPrompt(/^(?:inpaint|перерисуй|дорисуй)(?=$|[\s:\-–—])\s*[:\-–—]?\s*([\s\S]*)$/i),
  upscale: (text) => {
    const m = /^(?:upscale|увеличь|увеличить|апскейл)(?:\s*[x×х]?\s*([24])\s*[x×х]?)?\s*$/i.exec(text);
    return m ? { scale: m[1] ? Number(m[1]) : undefined } : undefined;
  },
  'remove-bg': exactly(/^(?:remove[\s-]*(?:the\s+)?(?:bg|background)|убери\s+фон|удали(?:ть)?\s+фон|без\s+фона)$/i),
  colorize: exactly(/^(?:colou?ri[sz]e|раскрась|раскрасить)$/i),
  'text-ocr': exactly(/^(?:ocr|text|extract\s+text|read\s+text|текст|распознай(?:\s+текст)?)$/i),
  'face-swap': exactly(/^(?:face[\s-]*swap|замени\s+лицо|заменить\s+лицо)$/i),
};

/** Reads a photo caption (English or Russian) as a tool request; undefined when it names none. */
export function toolFromCaption(caption: string | undefined): CaptionIntent | undefined {
  const text = caption?.trim() ?? '';
  if (text === '') return undefined;
  for (const tool of Object.keys(CAPTION_WORDS) as ToolSlug[]) {
    const match = CAPTION_WORDS[tool](text);
    if (match) return { tool, ...match };
  }
  return undefined;
}

/** Words that open a question in English or Russian (no \b: it only knows ASCII letters). */
const QUESTION_START =
  /^(?:what|what's|whats|who|whom|whose|which|where|when|why|how|is|are|am|was|were|do|does|did|can|could|should|would|will|describe|explain|tell|read|translate|identify|count|что|кто|где|когда|почему|зачем|как|какой|какая|какое|какие|сколько|чей|чья|чьё|опиши|объясни|расскажи|прочитай|переведи|есть ли|можно ли|это)(?=$|[\s,.!:;])/i;

/**
 * Whether words about a photo ask about it (a vision question) rather than say what to change (an edit): a question
 * mark, or a question word first.
 */
export function isQuestion(words: string): boolean {
  const text = words.trim();
  return /[?？]$/.test(text) || QUESTION_START.test(text);
}

/** A tool runs straight from a caption when the photo is all it needs: one input, no mask to ask, its prompt given. */
function runsDirectly(intent: CaptionIntent): boolean {
  const tool = toolModel(intent.tool);
  return tool.rules.inputFields.length === 1 && !tool.config.supports_mask && (tool.rules.promptKind === 'none' || !!intent.prompt);
}

/**
 * What to do with a photo and the words that came with it (its caption, or a reply to it): a caption naming a tool
 * runs it at once (upscale, remove-bg, colorize, text-ocr, style-transfer with its style); inpaint and face-swap
 * continue in the tools wizard (mask, second photo); a question goes to a vision model; any other words are an
 * instruction that edits the photo (in one step); no words open the wizard to pick a tool for the photo.
 */
export async function photoRequest(ctx: BotContext, photo: ImageRef, words: string | undefined): Promise<void> {
  const intent = toolFromCaption(words);
  if (intent && runsDirectly(intent)) {
    const tool = toolModel(intent.tool);
    const request: BotRequest = { model: tool.slug };
    if (intent.scale) request.scale = intent.scale;
    if (intent.prompt) request.prompt = intent.prompt;
    if (tool.config.result === 'image') request.format = imageFormatSetting(ctx.account?.settings.image_format);
    await startForUpdate(
      ctx,
      intent.tool,
      { kind: 'generate', request, images: [{ field: tool.rules.inputFields[0], ...photo }] },
      ctx.message?.message_id,
    );
    return;
  }
  const said = words?.trim();
  if (!intent && said) {
    await ctx.conversation.exitAll();
    if (isQuestion(said)) {
      await chatTurn(ctx, { text: said, image: photo, replyTo: ctx.message?.message_id });
      return;
    }
    // An instruction ("make the sky purple"): the photo is edited by an image model that takes one.
    await ctx.conversation.enter('quick', {
      category: 'image',
      prompt: said,
      locale: ctx.locale,
      replyTo: ctx.message?.message_id,
      run: { kind: 'photo', image: photo },
    } satisfies QuickArgs);
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
