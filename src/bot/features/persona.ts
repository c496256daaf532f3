import { Composer, InlineKeyboard } from 'grammy';
import { hasErrorCode } from '../../core/error-registry';
import { canUseModel, findModel } from '../../core/catalog/catalog';
import { MENU, onCallback, PERSONA, PERSONAS } from '../callback-data';
import type { BotContext } from '../context';
import { truncate } from '../render/format';
import { show } from './respond';
import { miniAppUrl } from '../transport/menu-button';

/** Button labels stay short: Telegram cuts long ones anyway. */
const NAME_CHARS = 40;
const DESCRIPTION_CHARS = 120;
/** The screen stays within one message and Telegram's 100 buttons: the newest of the user's own assistants. */
const OWN_SHOWN = 30;

/**
 * The dashboard's Assistants page, where the user's own assistants are created and edited: inside Telegram as the
 * Mini App (an https PUBLIC_URL, private chats), else as a link when the dashboard has a public address.
 */
function addAssistantsPageButton(ctx: BotContext, kb: InlineKeyboard): void {
  const publicUrl = ctx.deps.services.config.publicUrl;
  const app = miniAppUrl(publicUrl);
  if (app && ctx.chat?.type === 'private') kb.webApp(ctx.t('button-open-assistants'), `${app}assistants`).row();
  else if (publicUrl) kb.url(ctx.t('button-open-assistants'), `${publicUrl}/assistants`).row();
}

/** /mode: the built-in assistants and the user's own, each with its description; the current one is checked. */
async function showPersonas(ctx: BotContext): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const { assistants } = ctx.deps.services;
  const [system, ownAll] = await Promise.all([assistants.system(), assistants.own(account.user.id)]);
  const own = ownAll.slice(-OWN_SHOWN);
  const describe = (description: string) => truncate(description.replace(/\s+/g, ' ').trim(), DESCRIPTION_CHARS) || '—';
  const current = ctx.session.persona?.id;
  const mark = (id: number) => (id === current ? '✓ ' : '');
  const kb = new InlineKeyboard();
  const lines: string[] = [];
  for (const a of system) {
    kb.text(`${mark(a.id)}🎭 ${truncate(a.name, NAME_CHARS)}`, PERSONA.data(a.id)).row();
    lines.push(ctx.t('persona-line', { name: a.name, description: describe(a.description) }));
  }
  for (const a of own) {
    kb.text(`${mark(a.id)}👤 ${truncate(a.name, NAME_CHARS)}`, PERSONA.data(a.id)).row();
    lines.push(ctx.t('persona-line-own', { name: a.name, description: describe(a.description) }));
  }
  kb.text(`${current === undefined ? '✓ ' : ''}${ctx.t('button-persona-none')}`, PERSONA.data('off')).row();
  addAssistantsPageButton(ctx, kb);
  kb.text(ctx.t('button-back'), MENU.data('chat')).text(ctx.t('button-menu'), MENU.data('main'));
  const text = [
    ctx.t('persona-intro', { persona: ctx.session.persona?.name ?? ctx.t('persona-none') }),
    lines.join('\n'),
    own.length === 0 ? ctx.t('persona-own-hint') : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  await show(ctx, text, kb);
}

/**
 * Choosing a persona: its instructions become the chat's system message and its model the chat model (when the
 * plan opens it; otherwise the current model stays, and the confirmation says so). The conversation starts over.
 */
async function choosePersona(ctx: BotContext, id: number | 'off'): Promise<void> {
  const account = ctx.account;
  if (!account) return;
  const { services } = ctx.deps;
  ctx.session.chat = { messages: [] };
  ctx.session.lastTurn = undefined;
  if (id === 'off') {
    ctx.session.persona = undefined;
    await ctx.answerCallbackQuery();
    await ctx.reply(ctx.t('persona-off'), { reply_markup: new InlineKeyboard().text(ctx.t('button-menu'), MENU.data('main')) });
    return;
  }
  let persona;
  try {
    persona = await services.assistants.persona(account.user.id, id);
  } catch (err) {
    if (!hasErrorCode(err, 'not_found')) throw err;
    await ctx.answerCallbackQuery({ text: ctx.t('persona-not-found'), show_alert: true });
    return;
  }
  ctx.session.persona = { id: persona.id, name: persona.name, systemPrompt: persona.systemPrompt };
  const wanted = findModel(persona.modelSlug);
  const usable = wanted?.category === 'text' && canUseModel(account.plan.slug, wanted);
  const model = usable
    ? await services.settings.setChatModel(account.user.id, account.plan.slug, wanted.slug)
    : await services.settings.chatModel(account.user.id, account.plan.slug);
  await ctx.answerCallbackQuery();
  const text = usable
    ? ctx.t('persona-set', { name: persona.name, model: model.name })
    : ctx.t('persona-set-model-kept', { name: persona.name, wanted: wanted?.name ?? persona.modelSlug, model: model.name });
  await ctx.reply(text, { reply_markup: new InlineKeyboard().text(ctx.t('button-menu'), MENU.data('main')) });
}

/** Personas (/mode): chat as one of the service's assistants or one of the user's own. */
export function personaFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.command('mode', showPersonas);
  composer.callbackQuery(PERSONAS.data, showPersonas);
  onCallback(composer, PERSONA, choosePersona);
  return composer;
}
