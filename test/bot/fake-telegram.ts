import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { EntityParseError, parseTelegramHtml, trim, type ParsedEntity } from './telegram-html';

// A fake Telegram Bot API server on loopback (TELEGRAM_API_ROOT points the real grammY client at it). It records
// every call and answers with correctly shaped results: real Message objects with message ids, File objects,
// `true` where the Bot API answers `true`, and Bot API error bodies ({ok:false, error_code, description,
// parameters}) for the failures a bot must handle (message not modified, 429 with retry_after, bad file id).

export interface UploadedFile {
  name: string;
  type: string;
  data: Buffer;
}

export interface RecordedCall {
  method: string;
  /** Parameters as the client sent them (JSON, or multipart fields decoded from JSON where they were JSON). */
  payload: Record<string, unknown>;
  /** Files uploaded with the call, by parameter name (`photo`, `video`, `document`…). */
  files: Record<string, UploadedFile>;
  at: number;
  /** When the answer was sent back. */
  answeredAt?: number;
  /** What the fake answered (`result` of a successful call). */
  result?: unknown;
}

export interface FakeFailure {
  error_code: number;
  description: string;
  parameters?: { retry_after?: number };
}

/** A draft as the user's client shows it (sendMessageDraft): one per chat, topic and draft id. */
export interface StoredDraft {
  chatId: number;
  threadId?: number;
  draftId: number;
  /** The text as the client shows it (formatting parsed away); empty: the "Thinking…" placeholder. */
  text: string;
  canStop: boolean;
  keepOnStop: boolean;
  /** The user pressed the stop button. */
  stopped: boolean;
  /** Drafts the bot sent after the stop (the client shows none of them). */
  afterStop: number;
  /** A message the bot sent to the chat took the draft's place. */
  replaced: boolean;
}

interface StoredMessage {
  chatId: number;
  messageId: number;
  /** The topic it was sent to. */
  threadId?: number;
  /** The text as Telegram keeps it: after parsing the formatting (parse_mode) and trimming. */
  text?: string;
  entities?: ParsedEntity[];
  /** The text as the bot sent it (HTML when parse_mode was HTML). */
  sent?: string;
  markup?: string;
  deleted?: boolean;
}

/** Telegram's longest message text, counted after entity parsing in UTF-16 units. */
export const MAX_MESSAGE_LENGTH = 4096;

/** A message text as Telegram would keep it, or the Bot API's refusal. */
function messageText(p: Record<string, unknown>): { text: string; entities: ParsedEntity[] } | { error: string } {
  const raw = String(p.text ?? '');
  let parsed;
  if (p.parse_mode === 'HTML') {
    try {
      parsed = parseTelegramHtml(raw);
    } catch (err) {
      if (err instanceof EntityParseError) return { error: `Bad Request: can't parse entities: ${err.message}` };
      throw err;
    }
  } else if (p.parse_mode !== undefined) {
    return { error: `Bad Request: unsupported parse_mode` };
  } else {
    parsed = trim({ text: raw, entities: [] });
  }
  if (parsed.text === '') return { error: 'Bad Request: message text is empty' };
  if (parsed.text.length > MAX_MESSAGE_LENGTH) return { error: 'Bad Request: message is too long' };
  return parsed;
}

/** A draft's text as the client shows it: like a message's, except that an empty text is the "Thinking…" placeholder. */
function draftText(p: Record<string, unknown>): { text: string; entities: ParsedEntity[] } | { error: string } {
  if (p.text === undefined || p.text === '') return { text: '', entities: [] };
  const content = messageText(p);
  if ('error' in content && content.error === 'Bad Request: message text is empty') return { text: '', entities: [] };
  if ('error' in content && content.error === 'Bad Request: message is too long') return { error: 'Bad Request: text is too long' };
  return content;
}

/** A recorded Bot API error body (test/fixtures/telegram). */
export function telegramError(name: string): FakeFailure {
  const body = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../fixtures/telegram', `${name}.json`), 'utf8')) as FakeFailure & {
    ok: false;
  };
  const { ok: _ok, ...failure } = body;
  return failure;
}

/** The recorded 429, with a shorter wait (same wording) so tests do not sleep 15 s. */
export function floodWait(seconds: number): FakeFailure {
  const recorded = telegramError('error-429-too-many-requests');
  return { ...recorded, description: recorded.description.replace(/\d+$/, String(seconds)), parameters: { retry_after: seconds } };
}

export const BOT_USER = { id: 777000111, is_bot: true, first_name: 'Nebula', username: 'nebula_test_bot' } as const;

export const BOT_INFO = {
  ...BOT_USER,
  can_join_groups: true,
  can_read_all_group_messages: false,
  supports_inline_queries: false,
  can_connect_to_business: false,
  has_main_web_app: false,
  has_topics_enabled: false,
  allows_users_to_create_topics: false,
  can_manage_bots: false,
  supports_join_request_queries: false,
} as const;

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface Part {
  name: string;
  filename?: string;
  type?: string;
  data: Buffer;
}

/** A small multipart/form-data reader (grammY writes headers without spaces, which some parsers refuse). */
function parseMultipart(body: Buffer, boundary: string): Part[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Part[] = [];
  let pos = body.indexOf(delimiter);
  while (pos >= 0) {
    const start = pos + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const headerEnd = body.indexOf('\r\n\r\n', start);
    const next = body.indexOf(delimiter, headerEnd);
    if (headerEnd < 0 || next < 0) break;
    const headers = body.subarray(start, headerEnd).toString('utf8');
    const data = body.subarray(headerEnd + 4, next - 2);
    const name = /name="([^"]*)"/i.exec(headers)?.[1] ?? '';
    const filename = /filename="?([^";\r\n]*)"?/i.exec(headers)?.[1];
    const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1];
    parts.push({ name, filename, type, data: Buffer.from(data) });
    pos = next;
  }
  return parts;
}

function decodeField(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * Update types Telegram leaves out unless a bot names them in `allowed_updates` (the Bot API's default). The fake
 * also holds back `stopped_message_generation` unless asked for: a bot that streams drafts must subscribe to it.
 */
export const OPT_IN_UPDATE_TYPES = ['chat_member', 'message_reaction', 'message_reaction_count', 'stopped_message_generation'] as const;

/** The type of an update: its one field besides `update_id`. */
export function updateType(update: { update_id: number }): string {
  const keys = Object.keys(update).filter((k) => k !== 'update_id');
  if (keys.length !== 1) throw new Error(`an update has exactly one field besides update_id; got ${keys.join(', ') || 'none'}`);
  return keys[0];
}

/** The audio container of an upload, by its first bytes: what Telegram's players take (undefined for anything else). */
function audioKind(data: Buffer | undefined): 'mp3' | 'm4a' | 'ogg' | undefined {
  if (!data || data.length < 12) return undefined;
  if (data.toString('latin1', 0, 4) === 'OggS') return 'ogg';
  if (data.toString('latin1', 4, 8) === 'ftyp') return 'm4a';
  if (data.toString('latin1', 0, 3) === 'ID3' || (data[0] === 0xff && (data[1] & 0xe0) === 0xe0 && (data[1] & 0x06) !== 0)) return 'mp3';
  return undefined;
}

/** The Bot API methods that put something into a chat and take `message_thread_id`. */
const THREADED = new Set([
  'sendMessage',
  'sendMessageDraft',
  'sendPhoto',
  'sendDocument',
  'sendVideo',
  'sendAudio',
  'sendVoice',
  'sendAnimation',
  'sendSticker',
  'sendMediaGroup',
  'sendInvoice',
  'sendChatAction',
  'copyMessage',
  'forwardMessage',
]);

/** What an invoice link sells: the user's client shows it when the link is opened (openInvoice in a Mini App). */
export interface InvoiceOfLink {
  title: string;
  description: string;
  payload: string;
  currency: string;
  totalAmount: number;
  subscriptionPeriod?: number;
}

export class FakeTelegram {
  readonly calls: RecordedCall[] = [];
  private server?: http.Server;
  private nextMessageId = 1000;
  private nextFileId = 1;
  private readonly messages = new Map<string, StoredMessage>();
  private readonly files = new Map<string, { path: string; data: Buffer }>();
  private readonly failures: { method: string; failure: FakeFailure }[] = [];
  /** Users who blocked the bot: a message to their private chat is refused with 403, as Telegram refuses it. */
  private readonly blockedBy = new Set<number>();
  private readonly pendingUpdates: { update_id: number }[] = [];
  /**
   * The update types the bot last asked for (getUpdates or setWebhook `allowed_updates`); undefined until it names
   * some (an empty list resets it): then every type but OPT_IN_UPDATE_TYPES. Like Telegram, the fake delivers
   * nothing else.
   */
  private allowedUpdates?: readonly string[];
  /** The webhook Telegram would POST updates to (setWebhook); getUpdates is refused while one is set. */
  private webhook?: { url: string; secret?: string };
  /** Updates Telegram would never have delivered under the bot's `allowed_updates`. */
  readonly withheld: { update_id: number }[] = [];
  /** Members' statuses in groups (getChatMember), by `<chat id>:<user id>`; anyone else is a plain `member`. */
  private readonly memberStatuses = new Map<string, string>();
  private readonly drafts = new Map<string, StoredDraft>();
  /** Forum supergroups, and the topics of each chat (forum topics, or topics of private chats with the bot). */
  private readonly forums = new Set<number>();
  private readonly topics = new Map<number, Set<number>>();
  private nextThreadId = 100;
  /** The bot has topics in private chats (BotFather's threaded mode): getMe says so, and users' chats may have topics. */
  private privateTopics = false;
  private nextUpdateId = 900_000_000;
  /** Stars charges refunded so far: a second refundStarPayment answers CHARGE_ALREADY_REFUNDED, as Telegram does. */
  readonly refundedCharges = new Set<string>();
  /** The invoices behind the links createInvoiceLink made, by link. */
  private readonly invoiceLinks = new Map<string, InvoiceOfLink>();
  /** Menu buttons set with setChatMenuButton: `default` (no chat_id) or by chat id. */
  private readonly menuButtons = new Map<string, Record<string, unknown>>();
  url = '';

  constructor(readonly token: string) {}

  static async start(token: string): Promise<FakeTelegram> {
    const fake = new FakeTelegram(token);
    await fake.listen();
    return fake;
  }

  private async listen(): Promise<void> {
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err: Error) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false, error_code: 500, description: `fake: ${err.message}` }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Queues an update for getUpdates (long polling). */
  queueUpdate(update: { update_id: number }): void {
    this.pendingUpdates.push(update);
  }

  /** Whether Telegram would deliver this update to the bot, under the `allowed_updates` it last gave. */
  delivers(update: { update_id: number }): boolean {
    const type = updateType(update);
    if (this.allowedUpdates === undefined) return !(OPT_IN_UPDATE_TYPES as readonly string[]).includes(type);
    return this.allowedUpdates.includes(type);
  }

  /** The update types the bot subscribed to last (undefined: never named any). */
  get subscribedUpdates(): readonly string[] | undefined {
    return this.allowedUpdates;
  }

  get webhookUrl(): string | undefined {
    return this.webhook?.url;
  }

  /**
   * Delivers an update as Telegram does in webhook mode: a POST to the URL given to setWebhook with the secret token
   * header, only when the bot asked for its type. Answers the webhook's HTTP status, or 'withheld'.
   */
  async pushUpdate(update: { update_id: number }): Promise<number | 'withheld'> {
    if (!this.webhook) throw new Error('no webhook is set (setWebhook was not called)');
    if (!this.delivers(update)) {
      this.withheld.push(update);
      return 'withheld';
    }
    const res = await fetch(this.webhook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(this.webhook.secret ? { 'X-Telegram-Bot-Api-Secret-Token': this.webhook.secret } : {}),
      },
      body: JSON.stringify(update),
    });
    await res.arrayBuffer();
    return res.status;
  }

  /** `allowed_updates` as the Bot API takes it: absent keeps the previous setting, an empty list restores the default. */
  private subscribe(allowed: unknown): void {
    if (allowed === undefined) return;
    if (!Array.isArray(allowed)) throw new Error('allowed_updates must be a JSON array');
    this.allowedUpdates = allowed.length === 0 ? undefined : allowed.map(String);
  }

  /** A member's status in a group, as getChatMember reports it (`creator`, `administrator`, `member`, `left`…). */
  setChatMember(chatId: number, userId: number, status: string): void {
    this.memberStatuses.set(`${chatId}:${userId}`, status);
  }

  /** The user blocks the bot: every later sendMessage to their chat answers 403 "bot was blocked by the user". */
  blockBot(userId: number): void {
    this.blockedBy.add(userId);
  }

  /** The user unblocks the bot: messages reach their chat again. */
  unblockBot(userId: number): void {
    this.blockedBy.delete(userId);
  }

  /** Makes the next call of `method` fail with a Bot API error. */
  failNext(method: string, failure: FakeFailure): void {
    this.failures.push({ method, failure });
  }

  /** A file the user "sent": it can be fetched with getFile and downloaded from /file/bot<token>/<path>. */
  addFile(
    data: Buffer,
    folder: 'photos' | 'voice' | 'music' | 'documents',
    ext: string,
  ): { file_id: string; file_unique_id: string; file_size: number } {
    const n = this.nextFileId++;
    const fileId = `AgAC-file-${n}-${Math.random().toString(36).slice(2, 10)}`;
    this.files.set(fileId, { path: `${folder}/file_${n}.${ext}`, data });
    return { file_id: fileId, file_unique_id: `uniq${n}`, file_size: data.length };
  }

  /** A new topic of a forum supergroup (the chat becomes a forum): its `message_thread_id`. */
  createForumTopic(chatId: number): number {
    if (chatId > 0) throw new Error('forum topics are created in supergroups');
    this.forums.add(chatId);
    return this.addTopic(chatId);
  }

  /** Turns on topics in private chats for the bot (BotFather's setting): getMe's `has_topics_enabled`. */
  enablePrivateTopics(): void {
    this.privateTopics = true;
  }

  /** A topic the user opened in their private chat with the bot: its `message_thread_id`. */
  createPrivateTopic(userId: number): number {
    if (!this.privateTopics) throw new Error('the bot has no topics in private chats (enablePrivateTopics)');
    return this.addTopic(userId);
  }

  private addTopic(chatId: number): number {
    const threadId = this.nextThreadId++;
    this.topics.set(chatId, new Set([...(this.topics.get(chatId) ?? []), threadId]));
    return threadId;
  }

  /** The topic a message of the bot was sent to (undefined: none). */
  threadOf(chatId: number, messageId: number): number | undefined {
    return this.messages.get(`${chatId}:${messageId}`)?.threadId;
  }

  /** The chat of a message the bot sent: a private chat for a positive id, else a supergroup (a forum when it has topics). */
  private chatObject(chatId: number): Record<string, unknown> {
    if (chatId > 0) return { id: chatId, type: 'private', first_name: 'Tester' };
    return { id: chatId, type: 'supergroup', title: 'Group', ...(this.forums.has(chatId) ? { is_forum: true } : {}) };
  }

  /** The draft a chat shows for a draft id (in a topic when given). */
  draftOf(chatId: number, draftId: number, threadId?: number): StoredDraft | undefined {
    return this.drafts.get(`${chatId}:${threadId ?? 0}:${draftId}`);
  }

  /**
   * The user presses the stop button of a draft: marks it stopped and returns the update Telegram sends the bot
   * (`stopped_message_generation`; delivered only to a bot that asked for it). Only a draft sent with `can_stop`
   * has the button.
   */
  stopDraft(chatId: number, draftId: number, threadId?: number): { update_id: number } {
    const draft = this.draftOf(chatId, draftId, threadId);
    if (!draft) throw new Error(`chat ${chatId} shows no draft ${draftId}`);
    if (!draft.canStop) throw new Error(`draft ${draftId} was sent without can_stop: it has no stop button`);
    draft.stopped = true;
    return {
      update_id: this.nextUpdateId++,
      stopped_message_generation: {
        chat: { id: chatId, type: 'private', first_name: 'Tester' },
        ...(threadId !== undefined ? { message_thread_id: threadId } : {}),
        draft_id: draftId,
      },
    } as { update_id: number };
  }

  /** The invoice an invoice link opens (undefined: the fake never made that link). */
  invoiceOfLink(link: string): InvoiceOfLink | undefined {
    return this.invoiceLinks.get(link);
  }

  /** The menu button a chat shows (setChatMenuButton; the bot's default when the chat has none of its own). */
  menuButtonOf(chatId?: number): Record<string, unknown> | undefined {
    return (chatId !== undefined ? this.menuButtons.get(String(chatId)) : undefined) ?? this.menuButtons.get('default');
  }

  /**
   * The `initData` Telegram hands a Mini App opened by `user` (WebAppInitData as a query string), signed as Telegram
   * documents it: hash = hex(HMAC-SHA-256(data_check_string, HMAC-SHA-256("WebAppData", bot token))), where the
   * data-check-string is every field but `hash`, as `key=value` sorted by key and joined by line feeds. Written
   * from the documentation, not with the service's code.
   */
  webAppInitData(
    user: { id: number; first_name?: string; last_name?: string; username?: string; language_code?: string },
    options: { authDate?: number; startParam?: string; queryId?: string; token?: string } = {},
  ): string {
    const fields: Record<string, string> = {
      query_id: options.queryId ?? `AAH${crypto.randomBytes(8).toString('base64url')}`,
      user: JSON.stringify({ first_name: 'Tester', allows_write_to_pm: true, ...user }),
      auth_date: String(options.authDate ?? Math.floor(Date.now() / 1000)),
      ...(options.startParam ? { start_param: options.startParam, chat_type: 'sender', chat_instance: '-4011' } : {}),
    };
    const checkString = Object.keys(fields)
      .sort()
      .map((key) => `${key}=${fields[key]}`)
      .join('\n');
    const secret = crypto
      .createHmac('sha256', 'WebAppData')
      .update(options.token ?? this.token)
      .digest();
    const hash = crypto.createHmac('sha256', secret).update(checkString).digest('hex');
    return new URLSearchParams({ ...fields, hash }).toString();
  }

  callsOf(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** Texts of sendMessage calls to a chat, in order. */
  sentTexts(chatId: number): string[] {
    return this.callsOf('sendMessage')
      .filter((c) => Number(c.payload.chat_id) === chatId)
      .map((c) => String(c.payload.text));
  }

  /** The current text of a message (after edits), as the user sees it: formatting parsed away. */
  textOf(chatId: number, messageId: number): string | undefined {
    return this.messages.get(`${chatId}:${messageId}`)?.text;
  }

  /** The formatting of a message's current text (bold, code, pre with its language…), in UTF-16 offsets. */
  entitiesOf(chatId: number, messageId: number): ParsedEntity[] {
    return this.messages.get(`${chatId}:${messageId}`)?.entities ?? [];
  }

  /** The current text of a message as the bot last sent it (HTML when it was sent with parse_mode HTML). */
  sentTextOf(chatId: number, messageId: number): string | undefined {
    return this.messages.get(`${chatId}:${messageId}`)?.sent;
  }

  isDeleted(chatId: number, messageId: number): boolean {
    return this.messages.get(`${chatId}:${messageId}`)?.deleted === true;
  }

  /** Waits until a recorded call satisfies `predicate`. */
  async waitForCall(predicate: (c: RecordedCall) => boolean, timeoutMs = 20_000): Promise<RecordedCall> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = this.calls.find(predicate);
      if (found) return found;
      if (Date.now() > until)
        throw new Error(`no matching Bot API call within ${timeoutMs} ms; calls: ${this.calls.map((c) => c.method).join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const filePrefix = `/file/bot${this.token}/`;
    if (url.pathname.startsWith(filePrefix)) {
      const path = decodeURIComponent(url.pathname.slice(filePrefix.length));
      const file = [...this.files.values()].find((f) => f.path === path);
      if (!file) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false, error_code: 404, description: 'Not Found' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.data.length });
      res.end(file.data);
      return;
    }
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!match || match[1] !== this.token) {
      this.reply(res, 401, { ok: false, ...telegramError('error-401-unauthorized') });
      return;
    }
    const method = match[2];
    const { payload, files } = await this.parse(req);
    const call: RecordedCall = { method, payload, files, at: Date.now() };
    this.calls.push(call);
    res.on('finish', () => (call.answeredAt = Date.now()));
    const failureIndex = this.failures.findIndex((f) => f.method === method);
    if (failureIndex >= 0) {
      const { failure } = this.failures.splice(failureIndex, 1)[0];
      this.reply(res, failure.error_code, { ok: false, ...failure });
      return;
    }
    if (method === 'getUpdates') {
      if (this.webhook) {
        this.reply(res, 409, {
          ok: false,
          error_code: 409,
          description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        });
        return;
      }
      this.subscribe(payload.allowed_updates);
      // Long polling: confirmed updates (below `offset`) are dropped, and so are the types the bot did not ask for
      // (stricter than Telegram, which may still hand out updates created before the call); waits briefly when
      // there is nothing new.
      const offset = Number(payload.offset ?? 0);
      for (let i = this.pendingUpdates.length - 1; i >= 0; i--) {
        const update = this.pendingUpdates[i];
        if (update.update_id < offset) this.pendingUpdates.splice(i, 1);
        else if (!this.delivers(update)) this.withheld.push(...this.pendingUpdates.splice(i, 1));
      }
      if (this.pendingUpdates.length === 0) await new Promise((r) => setTimeout(r, 50));
      call.result = [...this.pendingUpdates];
      this.reply(res, 200, { ok: true, result: call.result });
      return;
    }
    const result = this.answer(method, payload, files);
    this.placeInTopic(method, payload, result);
    if ('error_code' in result && result.ok === false) {
      this.reply(res, Number(result.error_code), result);
      return;
    }
    call.result = result.result;
    this.reply(res, 200, result);
  }

  /** A message sent with `message_thread_id` belongs to that topic, as Telegram's Message object says. */
  private placeInTopic(method: string, p: Record<string, unknown>, answer: Record<string, unknown>): void {
    const message = answer.result as { message_id?: number; chat?: { id: number } } | undefined;
    if (!THREADED.has(method) || p.message_thread_id === undefined || answer.ok !== true || typeof message?.message_id !== 'number') return;
    const threadId = Number(p.message_thread_id);
    Object.assign(message, { message_thread_id: threadId, is_topic_message: true });
    const stored = this.messages.get(`${Number(p.chat_id)}:${message.message_id}`);
    if (stored) stored.threadId = threadId;
  }

  private reply(res: http.ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  private async parse(req: http.IncomingMessage): Promise<{ payload: Record<string, unknown>; files: Record<string, UploadedFile> }> {
    const body = await readBody(req);
    const type = String(req.headers['content-type'] ?? '');
    if (body.length === 0) return { payload: {}, files: {} };
    if (type.startsWith('application/json')) return { payload: JSON.parse(body.toString('utf8')) as Record<string, unknown>, files: {} };
    if (type.startsWith('multipart/form-data')) {
      const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(type);
      const parts = parseMultipart(body, boundary?.[1] ?? boundary?.[2] ?? '');
      const payload: Record<string, unknown> = {};
      const uploads = new Map<string, UploadedFile>();
      for (const part of parts) {
        if (part.filename !== undefined) uploads.set(part.name, { name: part.filename, type: part.type ?? '', data: part.data });
        else payload[part.name] = decodeField(part.data.toString('utf8'));
      }
      const files: Record<string, UploadedFile> = {};
      for (const [name, value] of Object.entries(payload)) {
        const ref = typeof value === 'string' ? /^attach:\/\/(.+)$/.exec(value) : null;
        if (ref && uploads.has(ref[1])) files[name] = uploads.get(ref[1])!;
      }
      for (const [name, upload] of uploads) if (!Object.values(files).includes(upload)) files[name] = upload;
      return { payload, files };
    }
    return { payload: Object.fromEntries(new URLSearchParams(body.toString('utf8'))), files: {} };
  }

  private message(
    chatId: number,
    extra: Record<string, unknown>,
    content?: { text: string; entities: ParsedEntity[]; sent: string },
  ): Record<string, unknown> {
    const messageId = this.nextMessageId++;
    const stored: StoredMessage = { chatId, messageId, ...content };
    if (extra.reply_markup) stored.markup = JSON.stringify(extra.reply_markup);
    this.messages.set(`${chatId}:${messageId}`, stored);
    return {
      message_id: messageId,
      from: BOT_USER,
      chat: this.chatObject(chatId),
      date: Math.floor(Date.now() / 1000),
      ...extra,
    };
  }

  private documentOf(file: UploadedFile | undefined) {
    return { ...this.fileMeta(file), file_name: file?.name, mime_type: file?.type || 'application/octet-stream' };
  }

  /** A file the bot uploaded: like Telegram, the bot can get it back later by its file id (getFile). */
  private fileMeta(file: UploadedFile | undefined) {
    const n = this.nextFileId++;
    const fileId = `BQAC-sent-${n}`;
    if (file) this.files.set(fileId, { path: `sent/file_${n}_${file.name.replace(/[^\w.-]/g, '_')}`, data: file.data });
    return { file_id: fileId, file_unique_id: `sent${n}`, file_size: file?.data.length ?? 0 };
  }

  private answer(method: string, p: Record<string, unknown>, files: Record<string, UploadedFile>): Record<string, unknown> {
    const ok = (result: unknown) => ({ ok: true, result });
    const fail = (fixture: string) => ({ ok: false, ...telegramError(fixture) });
    const chatId = Number(p.chat_id);
    const caption = typeof p.caption === 'string' ? { caption: p.caption } : {};
    // "for forum supergroups and private chats of bots with forum topic mode enabled only": a topic the chat has.
    if (THREADED.has(method) && p.message_thread_id !== undefined) {
      const known = this.topics.get(chatId)?.has(Number(p.message_thread_id)) === true;
      if (!known) return { ok: false, error_code: 400, description: 'Bad Request: message thread not found' };
    }
    // A message from the bot takes the place of the chat's drafts.
    if (method.startsWith('send') && method !== 'sendMessageDraft' && method !== 'sendChatAction') {
      for (const draft of this.drafts.values()) if (draft.chatId === chatId) draft.replaced = true;
    }
    switch (method) {
      case 'sendMessageDraft': {
        // "Unique identifier for the target private chat"; "must be non-zero"; "0-4096 characters after entities
        // parsing" (the refusals' wording is the fake's own).
        if (!(chatId > 0)) return { ok: false, error_code: 400, description: 'Bad Request: drafts can be sent to private chats only' };
        const draftId = Number(p.draft_id);
        if (!Number.isInteger(draftId) || draftId === 0)
          return { ok: false, error_code: 400, description: 'Bad Request: draft_id must be non-zero' };
        const content = draftText(p);
        if ('error' in content) return { ok: false, error_code: 400, description: content.error };
        const threadId = p.message_thread_id !== undefined ? Number(p.message_thread_id) : undefined;
        const key = `${chatId}:${threadId ?? 0}:${draftId}`;
        const known = this.drafts.get(key);
        if (known?.stopped) {
          known.afterStop++;
          return ok(true);
        }
        this.drafts.set(key, {
          chatId,
          threadId,
          draftId,
          text: content.text,
          canStop: p.can_stop === true,
          keepOnStop: p.keep_on_stop === true,
          stopped: false,
          afterStop: 0,
          replaced: false,
        });
        return ok(true);
      }
      case 'getMe':
        return ok({ ...BOT_INFO, has_topics_enabled: this.privateTopics });
      case 'sendMessage': {
        if (this.blockedBy.has(chatId)) return { ok: false, ...telegramError('error-403-bot-blocked') };
        const content = messageText(p);
        if ('error' in content) return { ok: false, error_code: 400, description: content.error };
        const entities = content.entities.length > 0 ? { entities: content.entities } : {};
        return ok(
          this.message(
            chatId,
            { text: content.text, ...entities, ...(p.reply_markup ? { reply_markup: p.reply_markup } : {}) },
            { ...content, sent: String(p.text) },
          ),
        );
      }
      case 'editMessageText':
      case 'editMessageReplyMarkup': {
        const stored = this.messages.get(`${chatId}:${Number(p.message_id)}`);
        if (!stored || stored.deleted) return fail('error-400-message-to-edit-not-found');
        const content = method === 'editMessageText' ? messageText(p) : { text: stored.text ?? '', entities: stored.entities ?? [] };
        if ('error' in content) return { ok: false, error_code: 400, description: content.error };
        const text = content.text;
        const markup = p.reply_markup ? JSON.stringify(p.reply_markup) : undefined;
        // Telegram compares what the user would see: the text, its formatting and the buttons.
        if (
          text === stored.text &&
          JSON.stringify(content.entities) === JSON.stringify(stored.entities ?? []) &&
          markup === stored.markup
        ) {
          return fail('error-400-message-not-modified');
        }
        stored.text = text;
        stored.entities = content.entities;
        if (method === 'editMessageText') stored.sent = String(p.text);
        stored.markup = markup;
        return ok({
          message_id: stored.messageId,
          from: BOT_USER,
          chat: this.chatObject(chatId),
          date: Math.floor(Date.now() / 1000),
          edit_date: Math.floor(Date.now() / 1000),
          text,
          ...(content.entities.length > 0 ? { entities: content.entities } : {}),
          ...(p.reply_markup ? { reply_markup: p.reply_markup } : {}),
        });
      }
      case 'deleteMessage': {
        const stored = this.messages.get(`${chatId}:${Number(p.message_id)}`);
        if (!stored || stored.deleted) return { ok: false, error_code: 400, description: 'Bad Request: message to delete not found' };
        stored.deleted = true;
        return ok(true);
      }
      case 'sendPhoto': {
        const meta = this.fileMeta(files.photo);
        // Both sizes of the photo can be fetched again (the large one is the upload itself).
        const stored = this.files.get(meta.file_id);
        if (stored) this.files.set(`${meta.file_id}-l`, stored);
        return ok(
          this.message(chatId, {
            photo: [
              { ...meta, width: 90, height: 90 },
              { ...meta, file_id: `${meta.file_id}-l`, width: 1024, height: 1024 },
            ],
            ...caption,
          }),
        );
      }
      case 'sendDocument':
        return ok(this.message(chatId, { document: this.documentOf(files.document), ...caption }));
      case 'sendVideo':
        return ok(
          this.message(chatId, {
            video: { ...this.fileMeta(files.video), width: 1280, height: 720, duration: 4, mime_type: 'video/mp4' },
            ...caption,
          }),
        );
      case 'sendAudio': {
        // "Your audio must be in the .MP3 or .M4A format": anything else is kept as a plain file.
        const kind = audioKind(files.audio?.data);
        if (kind !== 'mp3' && kind !== 'm4a') return ok(this.message(chatId, { document: this.documentOf(files.audio), ...caption }));
        return ok(
          this.message(chatId, {
            audio: {
              ...this.fileMeta(files.audio),
              duration: p.duration !== undefined ? Number(p.duration) : 0,
              mime_type: kind === 'mp3' ? 'audio/mpeg' : 'audio/mp4',
              file_name: files.audio?.name,
              ...(typeof p.title === 'string' ? { title: p.title } : {}),
              ...(typeof p.performer === 'string' ? { performer: p.performer } : {}),
            },
            ...caption,
          }),
        );
      }
      case 'sendVoice': {
        // A voice message must be OGG/Opus, MP3 or M4A ("other formats may be sent as Audio or Document").
        const kind = audioKind(files.voice?.data);
        if (kind === undefined) return ok(this.message(chatId, { document: this.documentOf(files.voice), ...caption }));
        const mime = { ogg: 'audio/ogg', mp3: 'audio/mpeg', m4a: 'audio/mp4' }[kind];
        return ok(
          this.message(chatId, {
            voice: { ...this.fileMeta(files.voice), duration: p.duration !== undefined ? Number(p.duration) : 0, mime_type: mime },
            ...caption,
          }),
        );
      }
      case 'getFile': {
        const file = this.files.get(String(p.file_id));
        if (!file) return fail('error-400-invalid-file-id');
        return ok({
          file_id: String(p.file_id),
          file_unique_id: `u-${String(p.file_id)}`,
          file_size: file.data.length,
          file_path: file.path,
        });
      }
      case 'sendInvoice': {
        // Stars invoices: currency XTR, exactly one price, an empty (or absent) provider token.
        const prices = p.prices as { label: string; amount: number }[] | undefined;
        if (p.currency === 'XTR' && (prices?.length !== 1 || (p.provider_token !== undefined && p.provider_token !== ''))) {
          return { ok: false, error_code: 400, description: 'Bad Request: STARS_INVOICE_INVALID' };
        }
        const total = (prices ?? []).reduce((sum, x) => sum + x.amount, 0);
        return ok(
          this.message(chatId, {
            invoice: {
              title: String(p.title),
              description: String(p.description),
              start_parameter: '',
              currency: String(p.currency),
              total_amount: total,
            },
          }),
        );
      }
      case 'createInvoiceLink': {
        // "title: 1-32 characters", "description: 1-255 characters", "payload: 1-128 bytes"; Stars ("XTR"): an empty
        // provider token and exactly one price; "subscription_period ... must always be 2592000", Stars only.
        const prices = p.prices as { label?: string; amount: number }[] | undefined;
        const title = String(p.title ?? '');
        const description = String(p.description ?? '');
        const payload = String(p.payload ?? '');
        if (title.length < 1 || title.length > 32) return { ok: false, error_code: 400, description: 'Bad Request: INVOICE_TITLE_INVALID' };
        if (description.length < 1 || description.length > 255)
          return { ok: false, error_code: 400, description: 'Bad Request: INVOICE_DESCRIPTION_INVALID' };
        if (Buffer.byteLength(payload) < 1 || Buffer.byteLength(payload) > 128)
          return { ok: false, error_code: 400, description: 'Bad Request: INVOICE_PAYLOAD_INVALID' };
        if (!Array.isArray(prices) || prices.length === 0)
          return { ok: false, error_code: 400, description: 'Bad Request: prices are empty' };
        if (p.currency === 'XTR' && (prices.length !== 1 || (p.provider_token !== undefined && p.provider_token !== ''))) {
          return { ok: false, error_code: 400, description: 'Bad Request: STARS_INVOICE_INVALID' };
        }
        if (
          p.subscription_period !== undefined &&
          (p.currency !== 'XTR' || Number(p.subscription_period) !== 2592000 || prices?.length !== 1)
        ) {
          return { ok: false, error_code: 400, description: 'Bad Request: SUBSCRIPTION_PERIOD_INVALID' };
        }
        const link = `https://t.me/$${Buffer.from(payload).toString('base64url')}`;
        this.invoiceLinks.set(link, {
          title,
          description,
          payload,
          currency: String(p.currency),
          totalAmount: prices.reduce((sum, x) => sum + x.amount, 0),
          ...(p.subscription_period !== undefined ? { subscriptionPeriod: Number(p.subscription_period) } : {}),
        });
        return ok(link);
      }
      case 'setChatMenuButton': {
        // No chat_id: the bot's default button. A Web App button: a text and "an HTTPS URL of a Web App" (the
        // refusal's wording is the fake's own).
        const button = (p.menu_button ?? { type: 'default' }) as { type?: string; text?: string; web_app?: { url?: string } };
        if (!['commands', 'web_app', 'default'].includes(String(button.type)))
          return { ok: false, error_code: 400, description: 'Bad Request: menu button type is invalid' };
        if (button.type === 'web_app') {
          if (!button.text) return { ok: false, error_code: 400, description: 'Bad Request: menu button text is empty' };
          const url = String(button.web_app?.url ?? '');
          if (!/^https:\/\/[^/]+/.test(url)) return { ok: false, error_code: 400, description: 'Bad Request: WEBAPP_URL_INVALID' };
        }
        this.menuButtons.set(p.chat_id === undefined ? 'default' : String(p.chat_id), button);
        return ok(true);
      }
      case 'getChatMenuButton':
        return ok(
          this.menuButtons.get(p.chat_id === undefined ? 'default' : String(p.chat_id)) ??
            this.menuButtons.get('default') ?? { type: 'commands' },
        );
      case 'refundStarPayment': {
        const charge = String(p.telegram_payment_charge_id);
        if (this.refundedCharges.has(charge)) return { ok: false, error_code: 400, description: 'Bad Request: CHARGE_ALREADY_REFUNDED' };
        this.refundedCharges.add(charge);
        return ok(true);
      }
      case 'setWebhook': {
        const url = String(p.url ?? '');
        if (url === '') {
          this.webhook = undefined;
          return ok(true);
        }
        this.subscribe(p.allowed_updates);
        this.webhook = { url, secret: typeof p.secret_token === 'string' ? p.secret_token : undefined };
        return ok(true);
      }
      case 'deleteWebhook':
        this.webhook = undefined;
        return ok(true);
      case 'getChatMember': {
        if (chatId > 0)
          return { ok: false, error_code: 400, description: "Bad Request: chat member status can't be requested in private chats" };
        const userId = Number(p.user_id);
        const status = this.memberStatuses.get(`${chatId}:${userId}`) ?? 'member';
        const user = { id: userId, is_bot: false, first_name: 'Member' };
        if (status === 'creator') return ok({ status, user, is_anonymous: false });
        if (status === 'administrator') {
          return ok({ status, user, can_be_edited: false, is_anonymous: false, can_manage_chat: true, can_delete_messages: true });
        }
        return ok({ status, user });
      }
      case 'answerPreCheckoutQuery':
      case 'editUserStarSubscription':
      case 'answerCallbackQuery':
      case 'sendChatAction':
      case 'setMyCommands':
        return ok(true);
      default:
        return { ok: false, error_code: 404, description: 'Not Found' };
    }
  }
}
