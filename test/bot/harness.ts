import type { Update } from 'grammy/types';
import { GenerationEntity, UserEntity } from '../../src/db/entities';
import { createBot, registerWebhook, type BotOptions, type TelegramBot } from '../../src/bot';
import type { BotSettings } from '../../src/bot/context';
import { createGoogleSandbox } from '../../src/sandbox/google';
import type { SandboxHandlers } from '../../src/sandbox/server';
import { Engine, startEngine } from '../support/engine';
import { BOT_INFO, FakeTelegram, type RecordedCall } from './fake-telegram';
import { TestUser, type TestUserOptions } from './updates';

export const TOKEN = '123456789:AAtest-bot-token-for-the-fake-server';
/** Where the harness's bot tells Telegram to send updates; `send` stands in for Telegram's POST there. */
export const HARNESS_WEBHOOK_URL = 'https://bot.example.test/telegram/webhook';
export const HARNESS_WEBHOOK_SECRET = 'harness-webhook-secret-0123456789';

/** Fast pacing for tests; production defaults live in DEFAULT_BOT_SETTINGS. */
export const TEST_SETTINGS: Partial<BotSettings> = {
  streamEditIntervalMs: 40,
  progressIntervalMs: 3_600_000,
};

export interface BotHarness {
  engine: Engine;
  telegram: FakeTelegram;
  app: TelegramBot;
  /**
   * Delivers one update as Telegram would (only a type the bot subscribed to: anything else is withheld, as
   * Telegram withholds it), handles it like the webhook does, then waits for the background work it started.
   */
  send(update: Update): Promise<void>;
  user(id: number, options?: TestUserOptions): TestUser;
  /** A second bot process on the same database and Telegram (a restart, or another instance). */
  newBot(options?: BotOptions): TelegramBot;
  close(): Promise<void>;
}

export async function startBotHarness(
  options: { adminIds?: number[]; env?: Record<string, string>; bot?: BotOptions; handlers?: SandboxHandlers } = {},
): Promise<BotHarness> {
  const telegram = await FakeTelegram.start(TOKEN);
  const engine = await startEngine(
    {
      BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: telegram.url,
      ...(options.adminIds ? { ADMIN_CHAT_IDS: options.adminIds.join(',') } : {}),
      ...options.env,
    },
    {
      // Slow videos (several polls before the result) so a pending job's progress can be watched reliably.
      handlers: { google: createGoogleSandbox({ pendingPolls: 6 }), ...options.handlers },
    },
  );
  const bots: TelegramBot[] = [];
  const newBot = (extra: BotOptions = {}) => {
    const bot = createBot(TOKEN, engine.services, {
      botInfo: BOT_INFO,
      settings: TEST_SETTINGS,
      autoRetry: { maxDelaySeconds: 5 },
      ...options.bot,
      ...extra,
    });
    bots.push(bot);
    return bot;
  };
  const app = newBot();
  app.attach();
  // Subscribed as production subscribes (the update types the bot asks for go to the fake with setWebhook).
  await registerWebhook(app, HARNESS_WEBHOOK_URL, HARNESS_WEBHOOK_SECRET);
  return {
    engine,
    telegram,
    app,
    async send(update) {
      if (!telegram.delivers(update)) {
        telegram.withheld.push(update);
        return;
      }
      await app.bot.handleUpdate(update);
      await app.deps.tasks.drain();
    },
    user: (id, opts) => new TestUser(id, opts),
    newBot,
    async close() {
      for (const b of bots) await b.stop();
      await engine.close();
      await telegram.close();
    },
  };
}

export interface Button {
  text: string;
  callback_data: string;
}

/** The inline buttons of a sent or edited message. */
export function buttonsOf(call: RecordedCall): Button[] {
  const markup = call.payload.reply_markup as { inline_keyboard?: Button[][] } | undefined;
  return (markup?.inline_keyboard ?? []).flat();
}

/** The message id a recorded send or edit refers to. */
export function messageIdOf(call: RecordedCall): number {
  if (call.payload.message_id !== undefined) return Number(call.payload.message_id);
  return (call.result as { message_id: number }).message_id;
}

/** The newest call that showed buttons to the chat (a new message or an edit). */
export function lastKeyboard(telegram: FakeTelegram, chatId: number): RecordedCall {
  const calls = telegram.calls.filter(
    (c) =>
      (c.method === 'sendMessage' || c.method === 'editMessageText' || c.method === 'editMessageReplyMarkup') &&
      Number(c.payload.chat_id) === chatId &&
      buttonsOf(c).length > 0,
  );
  if (calls.length === 0) throw new Error('no keyboard was shown');
  return calls[calls.length - 1];
}

/** Presses the button of the newest keyboard whose callback data matches. */
export async function press(h: BotHarness, user: TestUser, match: RegExp | ((b: Button) => boolean)): Promise<void> {
  const call = lastKeyboard(h.telegram, user.id);
  const test = typeof match === 'function' ? match : (b: Button) => match.test(b.callback_data);
  const button = buttonsOf(call).find(test);
  if (!button)
    throw new Error(
      `no such button among: ${buttonsOf(call)
        .map((b) => `${b.text} [${b.callback_data}]`)
        .join(' | ')}`,
    );
  await h.send(user.press(button.callback_data, { message_id: messageIdOf(call), text: String(call.payload.text ?? '') }));
}

/** Calls made after `mark` (a length of telegram.calls taken earlier). */
export function callsSince(telegram: FakeTelegram, mark: number): RecordedCall[] {
  return telegram.calls.slice(mark);
}

/** The account a Telegram user has (fails when there is none). */
export function accountOf(h: BotHarness, telegramId: number): Promise<UserEntity> {
  return h.engine.db.dataSource.getRepository(UserEntity).findOneByOrFail({ telegramId: String(telegramId) });
}

/** Every generation of a Telegram user's account, oldest first. */
export async function generationsOf(h: BotHarness, telegramId: number): Promise<GenerationEntity[]> {
  const account = await accountOf(h, telegramId);
  return h.engine.db.dataSource.getRepository(GenerationEntity).find({ where: { userId: account.id }, order: { id: 'ASC' } });
}
