import { InlineKeyboard } from 'grammy';
import { findModel, listModels } from '../../core/catalog/catalog';
import { hasErrorCode } from '../../core/error-registry';
import { quoteGeneration } from '../../core/catalog/pricing';
import type { ToolSlug } from '../../core/catalog/models';
import type { ImageField, ToolModel } from '../../core/catalog/types';
import type { BotConversation, ConvContext } from '../context';
import type { I18n, Locale, Translate } from '../i18n';
import { imageFormatSetting, photoCommand } from '../services/generation-runner';
import { askPrompt, choose, confirmAndStart, loadWizardAccount, pickModel, type Draft } from './media';
import { paramErrorText } from '../errors';
import { telegramImageHasTransparency } from '../services/image-transparency';
import {
  button,
  cancelKeyboard,
  finishCancelled,
  openWizard,
  preflight,
  showRefusal,
  waitPhoto,
  messageStep,
  type ImageRef,
  type Wizard,
} from './wizard';

export interface ToolsArgs {
  locale: Locale;
  /** Preselected tool (from a photo caption). */
  tool?: ToolSlug;
  /** A photo the user already sent. */
  photo?: ImageRef;
  /** A prompt the user already gave (style, inpaint). */
  prompt?: string;
}

function photoQuestion(t: Translate, field: ImageField): string {
  if (field === 'params.source_image_url') return t('tools-ask-face-source');
  if (field === 'params.target_image_url') return t('tools-ask-face-target');
  return t('tools-ask-photo');
}

/** Asks for a photo in the wizard message; the caption comes back as a possible prompt. */
async function askPhoto(w: Wizard, ctx: ConvContext, messageId: number, step: string, skip?: string) {
  const question = messageStep(ctx, w.t, step);
  const kb = cancelKeyboard(w);
  if (skip) kb.text(skip, button(w, 'skip'));
  await ctx.api.editMessageText(ctx.chat!.id, messageId, question, { reply_markup: kb });
  return waitPhoto(w, question, skip !== undefined);
}

/**
 * Image tools, as the catalog describes them: tool, its input photos (face-swap asks for two), an optional mask,
 * the scale, the prompt, then price and confirmation.
 */
export function createToolsConversation(i18n: I18n) {
  return async function tools(conversation: BotConversation, ctx: ConvContext, args: ToolsArgs): Promise<void> {
    const t = i18n.translator(args.locale);
    const w = await openWizard(conversation, t);
    // A photo sent while this wizard waits for a button replaces the one it holds (the wizard starts over with it).
    w.restartOnPhoto = true;
    const tools = listModels({ category: 'tool' });
    const preset = args.tool ? findModel(args.tool) : undefined;
    const refused = await preflight(w, (octx) =>
      preset ? octx.deps.services.preflight.check(octx.account!, preset) : octx.deps.services.preflight.checkAnyOf(octx.account!, tools),
    );
    if (refused) return showRefusal(ctx, refused);
    const me = await loadWizardAccount(conversation);
    let tool: ToolModel;
    let messageId: number;
    let c: ConvContext = ctx;
    if (preset?.category === 'tool') {
      tool = preset;
      messageId = (await ctx.reply(t('tools-selected', { tool: tool.name }), { reply_markup: cancelKeyboard(w) })).message_id;
      w.messageId = messageId;
    } else {
      const question = args.photo ? t('tools-pick-for-photo') : t('tools-pick');
      const picked = await pickModel(w, ctx, me, tools, question);
      if (!picked || picked.model.category !== 'tool') return;
      tool = picked.model;
      messageId = picked.messageId;
      c = picked.ctx;
    }
    const cancelled = () => finishCancelled(w, c, messageId);
    const draft: Draft = { model: tool, request: { model: tool.slug }, images: [], details: [] };
    if (tool.config.result === 'image') draft.request.format = imageFormatSetting(me.imageFormat);
    let prompt = args.prompt;

    // The tool's input images in the catalog's order; a photo already sent is the first.
    for (const [i, field] of tool.rules.inputFields.entries()) {
      let photo = i === 0 ? args.photo : undefined;
      if (!photo) {
        const sent = await askPhoto(w, c, messageId, photoQuestion(t, field));
        if (sent === null || sent === 'skip') return cancelled();
        photo = sent.image;
        prompt ??= sent.caption;
      }
      draft.images.push({ field, ...photo });
    }
    if (tool.config.supports_mask) {
      // Skip (repaint the transparent area) is offered only when the image has one: never a step that cannot work.
      const image = draft.images[0];
      const transparent = await conversation.external((octx) => telegramImageHasTransparency(octx.deps, image));
      const mask = transparent
        ? await askPhoto(w, c, messageId, t('tools-ask-mask'), t('button-skip-transparent'))
        : await askPhoto(w, c, messageId, t('tools-ask-mask-required'));
      if (mask === null) return cancelled();
      if (mask === 'skip') {
        draft.details.push(t('detail-transparent-area'));
      } else {
        draft.images.push({ field: 'params.mask_url', ...mask.image });
        draft.details.push(t('detail-with-mask'));
      }
    }
    if (tool.config.scales.length > 0) {
      const scale = await choose(
        w,
        c,
        messageId,
        t('tools-ask-scale'),
        tool.config.scales.map((s) => ({ value: String(s), label: `${s}×` })),
      );
      if (scale === null) return cancelled();
      draft.request.scale = Number(scale);
      draft.details.push(t('detail-scale', { scale: Number(scale) }));
    }
    let cost: number | null;
    if (tool.config.requires_prompt && !prompt) {
      const question = tool.rules.promptKind === 'edit' ? t('tools-ask-prompt-inpaint') : t('tools-ask-prompt-style');
      cost = await askPrompt(w, c, messageId, draft, question);
      if (cost === null) return cancelled();
    } else {
      if (prompt && tool.config.requires_prompt) draft.request.prompt = prompt;
      try {
        const parsed = photoCommand(draft.request, draft.images);
        cost = quoteGeneration(parsed.model, parsed.params);
      } catch (err) {
        if (!hasErrorCode(err, 'validation_error')) throw err;
        await c.reply(paramErrorText(err, t));
        return;
      }
      await c.api
        .editMessageText(c.chat!.id, messageId, t('tools-selected', { tool: tool.name }), { reply_markup: new InlineKeyboard() })
        .catch(() => undefined);
    }
    await confirmAndStart(w, c, draft, cost);
  };
}
