import { InlineKeyboard } from 'grammy';
import { canUseModel, listModels } from '../../core/catalog/catalog';
import { hasErrorCode } from '../../core/error-registry';
import { quoteGeneration } from '../../core/catalog/pricing';
import type { ModelDefinition, PlanSlug } from '../../core/catalog/types';
import { isPresetCategory } from '../../core/accounts/media-presets';
import type { BotContext, BotConversation, ConvContext } from '../context';
import { paramErrorText } from '../errors';
import { planNames, truncate } from '../render/format';
import { imageFormatSetting, photoCommand, startForUpdate, type BotRequest, type ImageInputRef } from '../services/generation-runner';
import type { I18n, Locale, Translate } from '../i18n';
import { isGroupChat } from '../group/chats';
import { modelPickerKeyboard } from '../keyboards/models';
import {
  button,
  cancelKeyboard,
  finishCancelled,
  openWizard,
  preflight,
  showRefusal,
  waitButton,
  waitPhoto,
  waitText,
  messageStep,
  type Wizard,
} from './wizard';

export const MEDIA_CATEGORIES = ['image', 'video', 'tts', 'music'] as const;
export type MediaCategory = (typeof MEDIA_CATEGORIES)[number];

export interface MediaArgs {
  category: MediaCategory;
  locale: Locale;
}

/** A generation being put together: the request, the photo inputs and the summary lines. */
export interface Draft {
  model: ModelDefinition;
  request: BotRequest;
  images: ImageInputRef[];
  details: string[];
}

export interface WizardAccount {
  plan: PlanSlug;
  planNames: Record<string, string>;
  imageFormat: string;
  /** The wizard runs in a group: nothing that tells of the account (plan locks, balance) is shown there. */
  group: boolean;
}

export function loadWizardAccount(conversation: BotConversation): Promise<WizardAccount> {
  return conversation.external(async (octx) => ({
    plan: octx.account!.plan.slug,
    planNames: await planNames(octx.deps.services.plans),
    imageFormat: octx.account!.settings.image_format,
    group: isGroupChat(octx.chat),
  }));
}

export interface Choice {
  value: string;
  label: string;
}

/** Edits the wizard message into a question with one button per choice; null when cancelled. */
export async function choose(
  w: Wizard,
  ctx: ConvContext,
  messageId: number,
  text: string,
  choices: Choice[],
  perRow = 2,
): Promise<string | null> {
  const kb = new InlineKeyboard();
  choices.forEach((c, i) => {
    kb.text(c.label, button(w, `o:${c.value}`));
    if ((i + 1) % perRow === 0) kb.row();
  });
  kb.row().text(w.t('button-cancel'), button(w, 'x'));
  await ctx.api.editMessageText(ctx.chat!.id, messageId, text, { reply_markup: kb });
  for (;;) {
    const { value, ctx: pressed } = await waitButton(w);
    await pressed.answerCallbackQuery();
    if (value === 'x') return null;
    const picked = choices.find((c) => `o:${c.value}` === value);
    if (picked) return picked.value;
  }
}

/** Step 1 of every media wizard: a model the plan allows (a locked one explains which plan opens it). */
export async function pickModel(
  w: Wizard,
  ctx: ConvContext,
  me: WizardAccount,
  models: readonly ModelDefinition[],
  question: string,
): Promise<{ model: ModelDefinition; messageId: number; ctx: ConvContext } | null> {
  const t = w.t;
  const sent = await ctx.reply(question, {
    reply_markup: modelPickerKeyboard(t, models, {
      plan: me.plan,
      planNames: me.planNames,
      data: (slug) => button(w, `m:${slug}`),
      cancelData: button(w, 'x'),
      hidePlans: me.group,
    }),
  });
  w.messageId = sent.message_id;
  for (;;) {
    const { value, ctx: pressed } = await waitButton(w);
    if (value === 'x') {
      await pressed.answerCallbackQuery();
      await finishCancelled(w, pressed, sent.message_id);
      return null;
    }
    const model = value.startsWith('m:') ? models.find((m) => m.slug === value.slice(2)) : undefined;
    if (!model) {
      await pressed.answerCallbackQuery();
      continue;
    }
    if (!canUseModel(me.plan, model)) {
      await pressed.answerCallbackQuery({
        text: t('model-locked', { model: model.name, plan: me.planNames[model.minPlan] ?? model.minPlan }),
        show_alert: true,
      });
      continue;
    }
    await pressed.answerCallbackQuery();
    return { model, messageId: sent.message_id, ctx: pressed };
  }
}

function price(t: Translate, tokens: number): string {
  return t('price-tokens', { price: tokens });
}

/** Step 2: the model's options (size, quality, duration, voice) and an input photo where the model takes one. */
async function chooseOptions(w: Wizard, ctx: ConvContext, messageId: number, draft: Draft): Promise<boolean> {
  const { t } = w;
  const { model, request } = draft;
  const pick = (text: string, choices: Choice[], perRow?: number) => choose(w, ctx, messageId, text, choices, perRow);
  if (model.category === 'image') {
    const { sizes, qualities } = model.config;
    if (sizes.length > 1) {
      const size = await pick(
        t('media-ask-size'),
        sizes.map((s) => ({ value: s, label: `${s} · ${price(t, quoteGeneration(model, { size: s }))}` })),
      );
      if (size === null) return false;
      request.size = size;
    }
    if (qualities.includes('hd')) {
      const size = request.size ?? model.config.default_size;
      const quality = await pick(t('media-ask-quality'), [
        { value: 'standard', label: `${t('quality-standard')} · ${price(t, quoteGeneration(model, { size, quality: 'standard' }))}` },
        { value: 'hd', label: `${t('quality-hd')} · ${price(t, quoteGeneration(model, { size, quality: 'hd' }))}` },
      ]);
      if (quality === null) return false;
      request.quality = quality === 'hd' ? 'hd' : 'standard';
    }
    draft.details.push(t('detail-size', { size: request.size ?? model.config.default_size }));
    if (request.quality === 'hd') draft.details.push(t('detail-quality-hd'));
  } else if (model.category === 'video') {
    const { sizes, durations } = model.config;
    if (sizes.length > 1) {
      const size = await pick(
        t('media-ask-aspect'),
        sizes.map((s) => ({ value: s, label: s })),
        3,
      );
      if (size === null) return false;
      request.size = size;
      draft.details.push(t('detail-aspect', { size }));
    }
    let seconds = model.config.default_duration;
    if (durations.length > 1) {
      const picked = await pick(
        t('media-ask-duration'),
        durations.map((d) => ({
          value: String(d),
          label: `${t('seconds', { n: d })} · ${price(t, quoteGeneration(model, { durationSeconds: d }))}`,
        })),
        3,
      );
      if (picked === null) return false;
      seconds = Number(picked);
    }
    request.duration = seconds;
    draft.details.push(t('detail-duration', { seconds }));
  } else if (model.category === 'tts') {
    const { voices } = model.config;
    if (voices && voices.length > 1) {
      const voice = await pick(
        t('media-ask-voice'),
        voices.map((v) => ({ value: v, label: v })),
        3,
      );
      if (voice === null) return false;
      request.voiceId = voice;
      draft.details.push(t('detail-voice', { voice }));
    } else {
      draft.details.push(t('detail-voice', { voice: t('voice-default') }));
    }
  } else if (model.category === 'music') {
    const { min_duration, max_duration } = model.config;
    const options = [15, 30, 60, 120].filter((d) => d >= min_duration && d <= max_duration);
    const picked = await pick(
      t('media-ask-music-duration'),
      options.map((d) => ({ value: String(d), label: t('seconds', { n: d }) })),
      4,
    );
    if (picked === null) return false;
    request.duration = Number(picked);
    draft.details.push(t('detail-duration', { seconds: Number(picked) }));
    // MP3 is what Telegram's music player takes (sendAudio): ask the vendor for it.
    if (model.config.audio_formats.includes('mp3')) request.audioFormat = 'mp3';
  }
  const imageInput = model.category === 'image' || model.category === 'video' ? model.config.image_input : 'none';
  if (imageInput !== 'none') {
    const question = messageStep(ctx, t, imageInput === 'required' ? t('media-ask-photo-required') : t('media-ask-photo-optional'));
    const kb = cancelKeyboard(w);
    if (imageInput === 'optional') kb.text(t('button-skip'), button(w, 'skip'));
    await ctx.api.editMessageText(ctx.chat!.id, messageId, question, { reply_markup: kb });
    const photo = await waitPhoto(w, question, imageInput === 'optional');
    if (photo === null) return false;
    if (photo !== 'skip') {
      draft.images.push({ field: 'image_url', fileId: photo.image.fileId, fileSize: photo.image.fileSize });
      draft.details.push(t('detail-with-photo'));
    }
  }
  return true;
}

/** Step 3: the prompt, checked by the core's own rules; the price follows from it. */
export async function askPrompt(w: Wizard, ctx: ConvContext, messageId: number, draft: Draft, step: string): Promise<number | null> {
  const question = messageStep(ctx, w.t, step);
  await ctx.api
    .editMessageText(ctx.chat!.id, messageId, question, { reply_markup: cancelKeyboard(w) })
    .catch(() => ctx.reply(question, { reply_markup: cancelKeyboard(w) }));
  for (;;) {
    const answer = await waitText(w, question);
    if (answer === null) return null;
    draft.request.prompt = answer.text;
    try {
      const { model, params } = photoCommand(draft.request, draft.images);
      return quoteGeneration(model, params);
    } catch (err) {
      if (!hasErrorCode(err, 'validation_error')) throw err;
      await answer.ctx.reply(paramErrorText(err, w.t), { reply_markup: cancelKeyboard(w) });
    }
  }
}

/** The confirmation text: only the lines the model uses (no empty "—" placeholders); no balance in a group. */
export function confirmationText(t: Translate, draft: Draft, cost: number, balance: number | undefined): string {
  const prompt = draft.request.prompt ? truncate(draft.request.prompt, 300) : undefined;
  return [
    [draft.model.name, ...draft.details, ...(prompt ? [t('media-confirm-prompt', { prompt })] : [])].join('\n'),
    balance === undefined ? t('media-confirm-price-group', { price: cost }) : t('media-confirm-price', { price: cost, balance }),
  ].join('\n\n');
}

/**
 * Starts the draft's generation for the update's user (inside `conversation.external`), and keeps its model and
 * options for the category's one-step command.
 */
export async function startDraft(octx: BotContext, draft: Draft, cost: number, replyTo?: number, remember = true): Promise<void> {
  await startForUpdate(octx, draft.model.slug, { kind: 'generate', request: draft.request, images: draft.images }, replyTo, cost);
  const category = draft.model.category;
  if (remember && isPresetCategory(category) && octx.account) {
    await octx.deps.services.settings.rememberMediaPreset(octx.account.user.id, category, draft.request);
  }
}

export interface ConfirmOptions {
  /** A button beside Generate that leaves for the category's wizard (a menu entry: it ends this one). */
  optionsData?: string;
  /** The message the run answers. */
  replyTo?: number;
  /** The run's model and options become its category's preset (default: yes). */
  remember?: boolean;
}

/** Step 4: limits, balance and price; the generation starts only on confirmation. */
export async function confirmAndStart(
  w: Wizard,
  ctx: ConvContext,
  draft: Draft,
  cost: number,
  options: ConfirmOptions = {},
): Promise<void> {
  const { t, conversation } = w;
  const refused = await preflight(w, (octx) => octx.deps.services.preflight.check(octx.account!, draft.model, cost));
  if (refused) {
    await showRefusal(ctx, refused);
    return;
  }
  const balance = isGroupChat(ctx.chat)
    ? undefined
    : await conversation.external((octx) => octx.deps.services.profiles.totalTokens(octx.account!.user.id));
  const summary = confirmationText(t, draft, cost, balance);
  const keyboard = new InlineKeyboard().text(t('button-generate', { price: cost }), button(w, 'ok'));
  if (options.optionsData) keyboard.text(t('button-options'), options.optionsData);
  keyboard.text(t('button-cancel'), button(w, 'x'));
  const sent = await ctx.reply(summary, {
    reply_markup: keyboard,
    ...(options.replyTo ? { reply_parameters: { message_id: options.replyTo, allow_sending_without_reply: true } } : {}),
  });
  w.messageId = sent.message_id;
  for (;;) {
    const { value, ctx: pressed } = await waitButton(w);
    await pressed.answerCallbackQuery();
    if (value === 'x') {
      await finishCancelled(w, pressed, sent.message_id);
      return;
    }
    if (value !== 'ok') continue;
    await pressed.api.editMessageText(pressed.chat!.id, sent.message_id, summary).catch(() => undefined);
    await conversation.external((octx) => startDraft(octx, draft, cost, options.replyTo, options.remember ?? true));
    return;
  }
}

function pickQuestion(t: Translate, category: MediaCategory): string {
  switch (category) {
    case 'image':
      return t('media-pick-image');
    case 'video':
      return t('media-pick-video');
    case 'tts':
      return t('media-pick-tts');
    case 'music':
      return t('media-pick-music');
  }
}

function promptQuestion(t: Translate, category: MediaCategory): string {
  switch (category) {
    case 'image':
      return t('media-ask-prompt-image');
    case 'video':
      return t('media-ask-prompt-video');
    case 'tts':
      return t('media-ask-text-tts');
    case 'music':
      return t('media-ask-prompt-music');
  }
}

/** Image, video, speech and music: model, then options, then prompt, then price and confirmation. */
export function createMediaConversation(i18n: I18n) {
  return async function media(conversation: BotConversation, ctx: ConvContext, args: MediaArgs): Promise<void> {
    const t = i18n.translator(args.locale);
    const w = await openWizard(conversation, t);
    const models = listModels({ category: args.category });
    const refused = await preflight(w, (octx) => octx.deps.services.preflight.checkAnyOf(octx.account!, models));
    if (refused) return showRefusal(ctx, refused);
    const me = await loadWizardAccount(conversation);
    const picked = await pickModel(w, ctx, me, models, pickQuestion(t, args.category));
    if (!picked) return;
    const draft: Draft = { model: picked.model, request: { model: picked.model.slug }, images: [], details: [] };
    if (picked.model.category === 'image') draft.request.format = imageFormatSetting(me.imageFormat);
    if (!(await chooseOptions(w, picked.ctx, picked.messageId, draft))) {
      await finishCancelled(w, picked.ctx, picked.messageId);
      return;
    }
    const cost = await askPrompt(w, picked.ctx, picked.messageId, draft, promptQuestion(t, args.category));
    if (cost === null) {
      await finishCancelled(w, picked.ctx, picked.messageId);
      return;
    }
    await confirmAndStart(w, picked.ctx, draft, cost);
  };
}
