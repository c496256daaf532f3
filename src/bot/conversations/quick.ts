import { canUseModel, findModel, listModels } from '../../core/catalog/catalog';
import { hasErrorCode } from '../../core/error-registry';
import type { MediaPreset } from '../../core/accounts/media-presets';
import type { NormalizedParams } from '../../core/catalog/params';
import { quoteGeneration } from '../../core/catalog/pricing';
import { PLAN_LEVEL, type ModelDefinition, type PlanSlug } from '../../core/catalog/types';
import { MENU } from '../callback-data';
import type { BotConversation, ConvContext } from '../context';
import { paramErrorText } from '../errors';
import type { I18n, Locale, Translate } from '../i18n';
import { imageFormatSetting, photoCommand, type BotRequest, type ImageInputRef } from '../services/generation-runner';
import { confirmAndStart, startDraft, type Draft, type MediaCategory } from './media';
import { openWizard, preflight, showRefusal, type ImageRef, type Wizard } from './wizard';

/**
 * What a one-step run runs: the category's last model and options with the prompt (`preset`, the commands), the
 * same request again (`exact`), a photo edited or varied by an image model that takes one (`photo`), or a tool on a
 * photo (`tool`).
 */
export type QuickRun =
  | { kind: 'preset' }
  | { kind: 'exact'; request: BotRequest }
  | { kind: 'photo'; image: ImageRef; keep?: BotRequest }
  | { kind: 'tool'; image: ImageRef; request: BotRequest };

/** A one-step command (`/image <prompt>`, `/video <prompt>`, `/music <prompt>`, `/speak <text>`) or a follow-up. */
export interface QuickArgs {
  category: MediaCategory;
  prompt: string;
  locale: Locale;
  /** The message the run answers. */
  replyTo?: number;
  /** Default: the category's preset. */
  run?: QuickRun;
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

/** The options of a request the next model may not take: kept when it does, dropped (its defaults) when it does not. */
function options(request: BotRequest | undefined): BotRequest | undefined {
  if (!request) return undefined;
  const { model: _model, prompt: _prompt, ...rest } = request;
  return rest as BotRequest;
}

/**
 * The run of a request (each candidate in turn, the first the model's rules accept) with its photo, checked by the
 * model's rules. Options the model does not take (a preset kept from an older catalog, a variation on another model)
 * give way to the model's defaults; a prompt the model refuses is the answer.
 */
function buildDraft(t: Translate, candidates: BotRequest[], images: ImageInputRef[]): Built {
  for (const [i, request] of candidates.entries()) {
    try {
      const { model, params } = photoCommand(request, images);
      const details = [...presetDetails(t, model, params, request), ...(images.length > 0 ? [t('detail-with-photo')] : [])];
      return { draft: { model, request, images, details }, cost: quoteGeneration(model, params) };
    } catch (err) {
      if (!hasErrorCode(err, 'validation_error')) throw err;
      if (err.field === 'prompt' || i === candidates.length - 1) return { error: paramErrorText(err, t) };
    }
  }
  return { error: t('error-internal') };
}

/**
 * The image model that edits a photo by instruction: the user's image model when it takes an input image, else the
 * plan's first image model that does. Undefined when the plan opens none.
 */
export function editModelFor(plan: PlanSlug, preferred: string | undefined): ModelDefinition | undefined {
  const takesPhoto = (m: ModelDefinition | undefined) => m?.category === 'image' && m.config.image_input !== 'none' && canUseModel(plan, m);
  const picked = preferred ? findModel(preferred) : undefined;
  if (takesPhoto(picked)) return picked;
  return listModels({ category: 'image', minPlan: plan }).find(takesPhoto);
}

interface Plan {
  candidates: BotRequest[];
  images: ImageInputRef[];
}

/** The requests to try for a run and its photo; null when the plan opens no model for it. */
function planRun(run: QuickRun, prompt: string, me: { preset: MediaPreset | null; editModel?: string; imageFormat: string }): Plan | null {
  const format = (model: string) => (findModel(model)?.category === 'image' ? { format: imageFormatSetting(me.imageFormat) } : {});
  switch (run.kind) {
    case 'preset': {
      if (!me.preset) return null;
      const base: BotRequest = { model: me.preset.model, prompt, ...format(me.preset.model) };
      return { candidates: [{ ...me.preset, ...base }, base], images: [] };
    }
    case 'exact':
      return { candidates: [run.request], images: [] };
    case 'photo': {
      if (!me.editModel) return null;
      const base: BotRequest = { model: me.editModel, prompt, ...format(me.editModel) };
      const kept = options(run.keep ?? (me.preset?.model === me.editModel ? me.preset : undefined));
      return { candidates: kept ? [{ ...kept, ...base }, base] : [base], images: [{ field: 'image_url', ...run.image }] };
    }
    case 'tool': {
      const tool = findModel(run.request.model);
      const field = tool?.category === 'tool' ? tool.rules.inputFields[0] : 'params.image_url';
      return { candidates: [{ ...run.request, ...format(run.request.model) }], images: [{ field, ...run.image }] };
    }
  }
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
    await runQuick(w, ctx, args);
  };
}

/**
 * One step inside a conversation (also the end of the edit conversation, once it has the instruction): the run's
 * model and options, the price confirmed only above the user's "don't ask" price, then the generation.
 */
export async function runQuick(w: Wizard, ctx: ConvContext, args: QuickArgs): Promise<void> {
  const { t, conversation } = w;
  const run = args.run ?? { kind: 'preset' };
  const category: MediaCategory | 'tool' = run.kind === 'photo' ? 'image' : run.kind === 'tool' ? 'tool' : args.category;
  if (run.kind === 'preset' || run.kind === 'photo') {
    const models = listModels({ category });
    const refused = await preflight(w, (octx) => octx.deps.services.preflight.checkAnyOf(octx.account!, models));
    if (refused) return showRefusal(ctx, refused);
  }
  const me = await conversation.external(async (octx) => {
    const account = octx.account!;
    const { settings } = octx.deps.services;
    const preset = category === 'tool' ? null : await settings.mediaPreset(account.user.id, account.plan.slug, category);
    return {
      preset,
      editModel: run.kind === 'photo' ? editModelFor(account.plan.slug, preset?.model)?.slug : undefined,
      confirmAbove: await settings.confirmAbove(account.user.id),
      imageFormat: account.settings.image_format,
    };
  });
  const plan = planRun(run, args.prompt, me);
  if (!plan) {
    // The plan opens no model for it: the refusal names the plan that opens the first one.
    const models = listModels({ category }).filter(
      (m) => run.kind !== 'photo' || (m.category === 'image' && m.config.image_input !== 'none'),
    );
    const opener = [...models].sort((a, b) => PLAN_LEVEL[a.minPlan] - PLAN_LEVEL[b.minPlan])[0];
    const locked = await preflight(w, (octx) => octx.deps.services.preflight.check(octx.account!, opener));
    return showRefusal(ctx, locked ?? { text: t('error-internal') });
  }
  const built = buildDraft(t, plan.candidates, plan.images);
  const replyParameters = args.replyTo ? { reply_parameters: { message_id: args.replyTo, allow_sending_without_reply: true } } : {};
  if ('error' in built) {
    await ctx.reply(built.error, replyParameters);
    return;
  }
  const { draft, cost } = built;
  // Only a command's own run becomes the category's preset; follow-ups and edits leave it as it was.
  const remember = run.kind === 'preset';
  if (cost > me.confirmAbove) {
    await confirmAndStart(w, ctx, draft, cost, {
      optionsData: run.kind === 'preset' ? MENU.data(args.category) : undefined,
      replyTo: args.replyTo,
      remember,
    });
    return;
  }
  const refusedRun = await preflight(w, (octx) => octx.deps.services.preflight.check(octx.account!, draft.model, cost));
  if (refusedRun) return showRefusal(ctx, refusedRun);
  await conversation.external((octx) => startDraft(octx, draft, cost, args.replyTo, remember));
}
