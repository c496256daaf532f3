import { listModels, requireModel } from '../../core/catalog/catalog';
import { hasErrorCode } from '../../core/error-registry';
import type { MediaPreset } from '../../core/accounts/media-presets';
import type { NormalizedParams } from '../../core/catalog/params';
import { quoteGeneration } from '../../core/catalog/pricing';
import { PLAN_LEVEL, type ModelDefinition } from '../../core/catalog/types';
import { MENU } from '../callback-data';
import type { BotConversation, ConvContext } from '../context';
import { paramErrorText } from '../errors';
import type { I18n, Locale, Translate } from '../i18n';
import { imageFormatSetting, photoCommand, type BotRequest } from '../services/generation-runner';
import { confirmAndStart, startDraft, type Draft, type MediaCategory } from './media';
import { openWizard, preflight, showRefusal } from './wizard';

/** A one-step command: `/image <prompt>`, `/video <prompt>`, `/music <prompt>`, `/speak <text>`. */
export interface QuickArgs {
  category: MediaCategory;
  prompt: string;
  locale: Locale;
  /** The command message: the run answers it. */
  replyTo?: number;
}

/** The summary lines of a run: what the model will do with the options the preset gives (as the core reads them). */
export function presetDetails(t: Translate, model: ModelDefinition, params: NormalizedParams, request: BotRequest): string[] {
  switch (model.category) {
    case 'image':
      return [
        ...(params.size ? [t('detail-size', { size: params.size })] : []),
        ...(params.quality === 'hd' ? [t('detail-quality-hd')] : []),
      ];
    case 'video':
      return [
        ...(params.size ? [t('detail-aspect', { size: params.size })] : []),
        ...(params.durationSeconds ? [t('detail-duration', { seconds: params.durationSeconds })] : []),
      ];
    case 'tts':
      // The voice the user picked; the model's own default voice id means nothing to them.
      return [t('detail-voice', { voice: request.voiceId ?? t('voice-default') })];
    case 'music':
      return params.durationSeconds ? [t('detail-duration', { seconds: params.durationSeconds })] : [];
    default:
      return [];
  }
}

type Built = { draft: Draft; cost: number } | { error: string };

/**
 * The run of a preset with the user's prompt, checked by the model's rules. Options the model no longer takes (a
 * preset kept from an older catalog) give way to the model's defaults; a prompt the model refuses is the answer.
 */
function buildDraft(t: Translate, preset: MediaPreset, prompt: string, imageFormat: string): Built {
  const model = requireModel(preset.model);
  const base: BotRequest = {
    model: model.slug,
    prompt,
    ...(model.category === 'image' ? { format: imageFormatSetting(imageFormat) } : {}),
  };
  for (const request of [{ ...preset, ...base }, base]) {
    try {
      const { params } = photoCommand(request);
      return {
        draft: { model, request, images: [], details: presetDetails(t, model, params, request) },
        cost: quoteGeneration(model, params),
      };
    } catch (err) {
      if (!hasErrorCode(err, 'validation_error')) throw err;
      if (err.field === 'prompt' || request === base) return { error: paramErrorText(err, t) };
    }
  }
  return { error: t('error-internal') };
}

/**
 * One step: the category's last model and options (else the plan's default) run with the prompt given. A price up
 * to the user's "don't ask" setting starts at once; above it one message asks to confirm the price, beside a button
 * to the wizard for those who want to choose.
 */
export function createQuickConversation(i18n: I18n) {
  return async function quick(conversation: BotConversation, ctx: ConvContext, args: QuickArgs): Promise<void> {
    const t = i18n.translator(args.locale);
    const w = await openWizard(conversation, t);
    const models = listModels({ category: args.category });
    const refused = await preflight(w, (octx) => octx.deps.services.preflight.checkAnyOf(octx.account!, models));
    if (refused) return showRefusal(ctx, refused);
    const me = await conversation.external(async (octx) => {
      const account = octx.account!;
      const { settings } = octx.deps.services;
      return {
        preset: await settings.mediaPreset(account.user.id, account.plan.slug, args.category),
        confirmAbove: await settings.confirmAbove(account.user.id),
        imageFormat: account.settings.image_format,
      };
    });
    if (!me.preset) {
      // The plan opens no model of the category: the refusal names the plan that opens the first one.
      const opener = [...models].sort((a, b) => PLAN_LEVEL[a.minPlan] - PLAN_LEVEL[b.minPlan])[0];
      const locked = await preflight(w, (octx) => octx.deps.services.preflight.check(octx.account!, opener));
      return showRefusal(ctx, locked ?? { text: t('error-internal') });
    }
    const built = buildDraft(t, me.preset, args.prompt, me.imageFormat);
    const replyParameters = args.replyTo ? { reply_parameters: { message_id: args.replyTo, allow_sending_without_reply: true } } : {};
    if ('error' in built) {
      await ctx.reply(built.error, replyParameters);
      return;
    }
    const { draft, cost } = built;
    if (cost > me.confirmAbove) {
      await confirmAndStart(w, ctx, draft, cost, { optionsData: MENU.data(args.category), replyTo: args.replyTo });
      return;
    }
    const refusedRun = await preflight(w, (octx) => octx.deps.services.preflight.check(octx.account!, draft.model, cost));
    if (refusedRun) return showRefusal(ctx, refusedRun);
    await conversation.external((octx) => startDraft(octx, draft, cost, args.replyTo));
  };
}
