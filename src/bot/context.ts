import type { Conversation, ConversationFlavor } from '@grammyjs/conversations';
import type { Api, Context, SessionFlavor } from 'grammy';
import type { Plan } from '../core/accounts/plans';
import type { SettingsView } from '../core/accounts/settings';
import type { DocumentKind } from '../core/documents/read';
import type { Actor } from '../core/generations/service';
import type { ChatMessage } from '../core/providers/types';
import type { UserRecord } from '../core/records';
import type { Services } from '../services';
import type { AdminNotifier } from './services/admin-notifier';
import type { BackgroundTasks } from './services/background';
import type { ButtonOwners } from './group/button-owners';
import type { ResultDelivery } from './services/delivery';
import type { RunningAnswers } from './services/running-answers';
import type { I18n, Locale, Translate } from './i18n';

/** A document that joined the conversation: its text goes with every question until /new (a PDF itself, to models that read PDFs). */
export interface ChatDocument {
  name: string;
  kind: DocumentKind;
  fileId: string;
  fileSize?: number;
  pages?: number;
  /** The text (a PDF's text layer; empty for a scanned PDF, which only models that read PDFs see). */
  text: string;
}

/** Per-chat state kept in PostgreSQL (bot_sessions) between updates. */
export interface SessionData {
  /** Chat context sent to the text model: bounded, reset by /new; documents stay until /new. */
  chat: { messages: ChatMessage[]; documents?: ChatDocument[] };
  /** Speech-to-text model for voice messages (default: the catalog's default STT model). */
  sttModel?: string;
  /** The assistant the chat speaks as (/mode): its instructions open every turn. */
  persona?: ChatPersonaRef;
  /** The latest answered question, for the retry button (`turn` tells an older answer's button apart). */
  lastTurn?: LastTurn;
}

export interface ChatPersonaRef {
  id: number;
  name: string;
  systemPrompt: string;
}

export interface LastTurn {
  turn: number;
  text: string;
  /** The photo a vision question was about (Telegram file). */
  image?: { fileId: string; fileSize?: number };
  replyTo?: number;
}

export function initialSession(): SessionData {
  return { chat: { messages: [] } };
}

/** Tunables; the defaults suit production, tests make them fast. */
export interface BotSettings {
  /** Minimum pause between two edits of a streamed chat reply in one chat (Telegram allows about one per second). */
  streamEditIntervalMs: number;
  /** Longest message text; Telegram's limit is 4096 characters. */
  maxMessageLength: number;
  /** Chat context kept per chat: messages and characters. */
  historyMessages: number;
  historyCharacters: number;
  /** How often pending results' progress messages are refreshed (and undelivered results swept up). */
  progressIntervalMs: number;
  /** Items per history page. */
  historyPageSize: number;
  /** How long a conversation waits for the user's next step before it is dropped. */
  conversationTimeoutMs: number;
  /** Largest Telegram file the bot downloads (the Bot API serves at most 20 MB). */
  maxDownloadBytes: number;
  /** Documents: the largest file read, the most pages of a PDF, and the text a conversation holds in all. */
  maxDocumentBytes: number;
  maxDocumentPages: number;
  maxDocumentCharacters: number;
  /** Failed generations within `failureBurstWindowMs` that make an admin alert. */
  failureBurstThreshold: number;
  failureBurstWindowMs: number;
}

export const DEFAULT_BOT_SETTINGS: BotSettings = {
  streamEditIntervalMs: 1000,
  maxMessageLength: 4096,
  historyMessages: 20,
  historyCharacters: 16_000,
  progressIntervalMs: 15_000,
  historyPageSize: 5,
  conversationTimeoutMs: 60 * 60_000,
  maxDownloadBytes: 20 * 1024 * 1024,
  maxDocumentBytes: 10 * 1024 * 1024,
  maxDocumentPages: 100,
  // About 25,000 tokens of input with every question: a long report, without a question costing a fortune.
  maxDocumentCharacters: 100_000,
  failureBurstThreshold: 5,
  failureBurstWindowMs: 5 * 60_000,
};

/** Everything the handlers need, shared by all updates of one bot. */
/** The core services the bot uses: never the database handle, never the whole bag. */
export type BotServices = Pick<
  Services,
  | 'config'
  | 'log'
  | 'plans'
  | 'generations'
  | 'chat'
  | 'gate'
  | 'notifier'
  | 'storage'
  | 'settings'
  | 'profiles'
  | 'usage'
  | 'accountAdmin'
  | 'adminUsers'
  | 'adminOrders'
  | 'deliveries'
  | 'jsonStores'
  | 'groupChats'
  | 'answerStops'
  | 'payments'
  | 'webhooks'
  | 'assistants'
  | 'referrals'
  | 'promos'
  | 'broadcastRunner'
  | 'preflight'
  | 'catalog'
>;

export interface BotDeps {
  services: BotServices;
  /** The bot's Bot API client (with its transformers), for work outside an update (deliveries, background). */
  api: Api;
  /** The bot's @username (known once the bot is initialised, before any update is handled). */
  readonly botUsername: string;
  /** Who may press the buttons of the bot's messages in groups. */
  owners: ButtonOwners;
  i18n: I18n;
  settings: BotSettings;
  token: string;
  /** Base URL of Telegram's Bot API (files are downloaded from `<apiRoot>/file/bot<token>/<path>`). */
  apiRoot: string;
  /** The origin of this service's own result URLs in what the bot's users send (PUBLIC_URL, else the listen address). */
  ownOrigin: string;
  adminIds: ReadonlySet<number>;
  tasks: BackgroundTasks;
  delivery: ResultDelivery;
  admin: AdminNotifier;
  /** Chat answers being written, so a stop can end them. */
  answers: RunningAnswers;
  /** Whether the Bot API takes drafts (sendMessageDraft); turned off for the process when it refuses them. */
  drafts: { available: boolean };
}

/** The caller's account, loaded (or created) for every update from a user. */
export interface Account extends Actor {
  user: UserRecord;
  plan: Plan;
  locale: Locale;
  settings: SettingsView;
  /** Created by this very update (first contact). */
  isNew: boolean;
}

interface BotFlavor {
  deps: BotDeps;
  /** Absent only for updates without a user (channel posts and the like). */
  account?: Account;
  locale: Locale;
  t: Translate;
}

/** Context of the outside middleware tree. */
export type BotContext = ConversationFlavor<Context & SessionFlavor<SessionData> & BotFlavor>;

/** Context inside conversations: plain, rebuilt on every replay (see conversations/). */
export type ConvContext = Context;

export type BotConversation = Conversation<BotContext, ConvContext>;
