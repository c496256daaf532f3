import { conversations, createConversation, type ConversationData, type VersionedState } from '@grammyjs/conversations';
import { autoRetry, type AutoRetryOptions } from '@grammyjs/auto-retry';
import { sequentialize } from '@grammyjs/runner';
import { Bot, session, type BotError, type Middleware } from 'grammy';
import type { UserFromGetMe } from 'grammy/types';
import { accountMiddleware } from './middleware/account';
import { AdminNotifier } from './services/admin-notifier';
import { TelegramBroadcastSender } from './services/broadcast-sender';
import { BackgroundTasks } from './services/background';
import { BuyerNotices } from './services/buyer-notices';
import {
  DEFAULT_BOT_SETTINGS,
  initialSession,
  type BotContext,
  type BotDeps,
  type BotServices,
  type BotSettings,
  type ConvContext,
  type SessionData,
} from './context';
import { createMediaConversation } from './conversations/media';
import { createEditConversation } from './conversations/edit';
import { createQuickConversation } from './conversations/quick';
import { createToolsConversation } from './conversations/tools';
import { linkBase } from '../core/links/link-origins';
import { ResultDelivery } from './services/delivery';
import { I18n } from './i18n';
import { adminFeature } from './features/admin';
import { balanceFeature } from './features/balance';
import { chatFeature } from './features/chat';
import { documentsFeature } from './features/documents';
import { followUpsFeature } from './features/follow-ups';
import { historyFeature } from './features/history';
import { mediaFeature } from './features/media';
import { paymentsFeature } from './features/payments';
import { personaFeature } from './features/persona';
import { redeemFeature } from './features/redeem';
import { referralFeature } from './features/referral';
import { photosFeature } from './features/photos';
import { settingsFeature } from './features/settings';
import { startFeature } from './features/start';
import { statsFeature } from './features/stats';
import { unhandledFeature } from './features/unhandled';
import { voiceFeature } from './features/voice';
import { ButtonOwners } from './group/button-owners';
import { isGroupChat, stateKey } from './group/chats';
import { groupGate } from './group/gate';
import { groupRules } from './group/rules';
import { TelegramStarsGateway } from './transport/stars-gateway';
import { TelegramInvoiceLinks } from './transport/stars-invoice-links';
import { answerStops } from './middleware/stops';
import { topicReplies } from './transport/topics';
import { RunningAnswers } from './services/running-answers';

export const TELEGRAM_API_ROOT = 'https://api.telegram.org';
/** Bump when a conversation's steps change incompatibly: stored conversations of older code are then dropped. */
export const CONVERSATION_VERSION = 1;

export interface BotOptions {
  settings?: Partial<BotSettings>;
  /** Bot API base URL; default TELEGRAM_API_ROOT from the configuration, else api.telegram.org. */
  apiRoot?: string;
  /** Skips the getMe call on start (tests, or a known bot). */
  botInfo?: UserFromGetMe;
  localesDir?: string;
  /** Flood-wait retries of Bot API calls (false: none). */
  autoRetry?: Partial<AutoRetryOptions> | false;
}

/** The bot and what connects it to the core. */
export interface TelegramBot {
  bot: Bot<BotContext>;
  deps: BotDeps;
  /**
   * Connects the bot to the core: result delivery and failure-burst alerts through the notification port, provider
   * outage and recovery alerts, the progress refresher of pending results, and the stops other instances publish.
   * Call once per process.
   */
  attach(): void;
  /** Disconnects from the core and waits for background work (shutdown). */
  stop(): Promise<void>;
}

/**
 * Builds the Telegram bot on the shared core. Nothing happens at import time and nothing runs until the caller
 * starts polling (src/bot/transport/polling.ts) or mounts the webhook (src/bot/transport/webhook.ts).
 */
export function createBot(token: string, services: BotServices, options: BotOptions = {}): TelegramBot {
  const { config, log } = services;
  const apiRoot = (options.apiRoot ?? config.bot.apiRoot ?? TELEGRAM_API_ROOT).replace(/\/+$/, '');
  const bot = new Bot<BotContext>(token, { client: { apiRoot }, botInfo: options.botInfo });
  const retry = options.autoRetry === false ? undefined : { maxRetryAttempts: 3, maxDelaySeconds: 60, ...options.autoRetry };
  if (retry) bot.api.config.use(autoRetry(retry));

  const settings: BotSettings = { ...DEFAULT_BOT_SETTINGS, ...options.settings };
  const i18n = I18n.load(options.localesDir, (locale, key) => log.warn({ locale, key }, 'bot text missing in a locale'));
  const tasks = new BackgroundTasks(log);
  const owners = new ButtonOwners(services.jsonStores.open<number>('owner:'));
  const delivery = new ResultDelivery({
    outbox: services.deliveries,
    owners,
    balanceOf: (userId) => services.profiles.totalTokens(userId),
    storage: services.storage,
    i18n,
    api: bot.api,
    log,
    links: config.links,
    maxMessageLength: settings.maxMessageLength,
    progressIntervalMs: settings.progressIntervalMs,
  });
  const admin = new AdminNotifier({
    api: bot.api,
    languageOf: (telegramId) => services.settings.languageOfTelegramUser(telegramId),
    i18n,
    log,
    tasks,
    chatIds: config.bot.adminChatIds,
    burstThreshold: settings.failureBurstThreshold,
    burstWindowMs: settings.failureBurstWindowMs,
  });
  const buyers = new BuyerNotices({
    api: bot.api,
    plans: services.plans,
    telegramIdOf: async (userId) => (await services.profiles.user(userId))?.telegramId ?? null,
    languageOf: (telegramId) => services.settings.languageOfTelegramUser(telegramId),
    i18n,
    log,
    tasks,
  });
  const answers = new RunningAnswers(services.answerStops, log);
  const deps: BotDeps = {
    services,
    api: bot.api,
    get botUsername() {
      return bot.botInfo.username;
    },
    owners,
    i18n,
    settings,
    token,
    apiRoot,
    ownOrigin: linkBase(config.links, null),
    adminIds: new Set(config.bot.adminChatIds.filter((id) => id > 0)),
    tasks,
    delivery,
    admin,
    answers,
    drafts: { available: true },
  };

  // Private chats, and in groups only what is addressed to the bot; channels get nothing. (`bot.drop` would not do:
  // it only filters the middleware passed to it.)
  bot.use(groupGate<BotContext>(i18n));
  // Before the per-chat queue: the answer a stop ends is still holding its chat's place in it.
  bot.use(answerStops(answers, i18n));
  // Updates of one chat are handled one after another (in order), chats in parallel; in a group, per member (one
  // member's long answer does not hold up the others).
  bot.use(sequentialize(stateKey));
  bot.use((ctx, next) => {
    ctx.deps = deps;
    return next();
  });
  bot.use(topicReplies<BotContext>());
  const sessionStore = services.jsonStores.open<SessionData>('session:');
  const conversationStore = services.jsonStores.open<VersionedState<ConversationData>>('conversation:');
  bot.use(
    session<SessionData, BotContext>({
      initial: initialSession,
      storage: sessionStore,
      getSessionKey: stateKey,
    }),
  );
  bot.use(accountMiddleware());
  bot.use(groupRules());

  // Conversation contexts are built from scratch on every replay: they get the flood-wait retries here.
  const conversationPlugins: Middleware<ConvContext>[] = retry
    ? [
        async (ctx, next) => {
          ctx.api.config.use(autoRetry(retry));
          await next();
        },
      ]
    : [];
  conversationPlugins.push(topicReplies<ConvContext>());
  // In a group, a wizard's buttons belong to the member it runs for (its conversation is keyed by that member).
  conversationPlugins.push(async (ctx, next) => {
    if (ctx.chat && ctx.from && isGroupChat(ctx.chat)) ctx.api.config.use(owners.recorder(ctx.chat.id, ctx.from.id));
    await next();
  });
  bot.use(
    conversations<BotContext, ConvContext>({
      storage: { type: 'key', version: CONVERSATION_VERSION, adapter: conversationStore, getStorageKey: stateKey },
      plugins: conversationPlugins,
    }),
  );
  const conversationOptions = { maxMillisecondsToWait: settings.conversationTimeoutMs };
  bot.use(createConversation<BotContext, ConvContext>(createMediaConversation(i18n), { id: 'media', ...conversationOptions }));
  bot.use(createConversation<BotContext, ConvContext>(createToolsConversation(i18n), { id: 'tools', ...conversationOptions }));
  bot.use(createConversation<BotContext, ConvContext>(createQuickConversation(i18n), { id: 'quick', ...conversationOptions }));
  bot.use(createConversation<BotContext, ConvContext>(createEditConversation(i18n), { id: 'edit', ...conversationOptions }));

  bot
    .errorBoundary(async (err: BotError<BotContext>) => {
      log.error({ err: err.error, update: err.ctx.update.update_id }, 'bot handler failed');
      const t = err.ctx.t ?? i18n.translator(err.ctx.locale ?? 'en');
      if (err.ctx.callbackQuery) await err.ctx.answerCallbackQuery().catch(() => undefined);
      if (err.ctx.chat) await err.ctx.reply(t('error-internal')).catch(() => undefined);
    })
    .use(
      startFeature(),
      adminFeature(),
      paymentsFeature(),
      balanceFeature(),
      referralFeature(),
      redeemFeature(),
      settingsFeature(),
      statsFeature(),
      historyFeature(),
      mediaFeature(),
      followUpsFeature(),
      voiceFeature(),
      photosFeature(),
      documentsFeature(),
      personaFeature(),
      chatFeature(),
      unhandledFeature(),
    );

  bot.catch((err) => log.error({ err: err.error, update: err.ctx.update.update_id }, 'bot update failed'));

  // Abandoned chats: chat context after 90 days, half-finished wizards after a week (their steps time out sooner),
  // the owners of group buttons after 30 days.
  const purgeState = async () => {
    const sessions = await sessionStore.purgeOlderThan(90);
    const wizards = await conversationStore.purgeOlderThan(7);
    const buttons = await owners.purgeOlderThan(30);
    if (sessions + wizards + buttons > 0) log.info({ sessions, wizards, buttons }, 'old bot state removed');
  };
  let purgeTimer: NodeJS.Timeout | undefined;

  let attached = false;
  let registered = false;
  let unlistenStops: (() => void) | undefined;
  return {
    bot,
    deps,
    attach() {
      attached = true;
      unlistenStops ??= answers.listen();
      delivery.start();
      services.broadcastRunner.start(new TelegramBroadcastSender(token, apiRoot));
      purgeTimer ??= setInterval(() => purgeState().catch((err: unknown) => log.warn({ err }, 'bot state purge failed')), 6 * 3600_000);
      purgeTimer.unref();
      if (registered) return;
      registered = true;
      services.notifier.add({ generationFinished: (gen) => (attached ? delivery.generationFinished(gen) : Promise.resolve()) });
      services.notifier.add({ generationFinished: (gen) => (attached ? admin.generationFinished(gen) : Promise.resolve()) });
      services.webhooks.onEndpointFailing((endpoint) => {
        if (attached) admin.webhookFailing(endpoint);
      });
      services.gate.onCircuitChange((event) => {
        if (attached) admin.providerCircuit(event);
      });
      services.catalog.onChange((changes) => {
        if (attached) admin.catalogChanged(changes);
      });
      services.payments.hub.add({
        paymentSucceeded: (e) => (attached ? admin.paymentSucceeded(e) : undefined),
        paymentRefunded: (e) => (attached ? admin.paymentRefunded(e) : undefined),
        refundCanceled: (e) => (attached ? admin.refundCanceled(e) : undefined),
        orphanPayment: (e) => (attached ? admin.orphanPayment(e) : undefined),
      });
      services.payments.hub.add({
        subscriptionReplaced: (e) => (attached ? buyers.subscriptionReplaced(e) : undefined),
        paymentRefunded: (e) => (attached ? buyers.paymentRefunded(e) : undefined),
        referralRewarded: (e) => (attached ? buyers.referralRewarded(e) : undefined),
      });
      // Invitation links become the bot's deep links (getMe once, when first needed).
      services.referrals.useBot(async () => {
        await bot.init();
        return bot.botInfo.username;
      });
      services.payments.refunds.useGateway('stars', new TelegramStarsGateway(bot.api));
      services.payments.stars.useInvoiceLinks(new TelegramInvoiceLinks(bot.api));
    },
    async stop() {
      attached = false;
      unlistenStops?.();
      unlistenStops = undefined;
      delivery.stop();
      await services.broadcastRunner.stop();
      if (purgeTimer) clearInterval(purgeTimer);
      purgeTimer = undefined;
      await tasks.drain(15_000);
    },
  };
}
