import { Client } from 'pg';
import type { AccountChangeFeed, AccountChangeListener } from '../core/accounts/account-changes';
import type { ChangeChannelListener } from '../core/catalog/live/changes';
import type { Logger } from '../logger';

export const ACCOUNT_CHANGES_CHANNEL = 'account_changes';
const MAX_RECONNECT_DELAY_MS = 5000;

/**
 * LISTEN account_changes on a dedicated connection (a pooled one would drop the LISTEN). On any connection loss the
 * listeners are reset at once (caches drop everything and stop caching), and again once listening resumes, since
 * changes in between were not heard.
 */
export class PgAccountChangeFeed implements AccountChangeFeed {
  private client?: Client;
  private listening = false;
  private closed = false;
  private attempt = 0;
  private timer?: NodeJS.Timeout;
  private readonly listeners: AccountChangeListener[] = [];
  /** Other NOTIFY channels heard on the same connection (the catalog's changes). */
  private readonly channels = new Map<string, ChangeChannelListener[]>();
  private readonly waiting = new Map<number, Set<() => void>>();

  constructor(
    private readonly url: string,
    private readonly log: Logger,
  ) {}

  get live(): boolean {
    return this.listening;
  }

  subscribe(listener: AccountChangeListener): void {
    this.listeners.push(listener);
  }

  /**
   * Also LISTEN on `channel` (a plain identifier), on the same connection and with the same reconnects: `reset` runs
   * each time listening (re)starts, since changes in between were not heard. Call before `start`.
   */
  listen(channel: string, listener: ChangeChannelListener): void {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
    this.channels.set(channel, [...(this.channels.get(channel) ?? []), listener]);
  }

  /** Connects in the background; `live` turns true once LISTEN is in place. */
  start(): this {
    void this.connect();
    return this;
  }

  expect(userId: number, timeoutMs = 1000): Promise<void> {
    if (!this.listening) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.waiting.get(userId) ?? new Set<() => void>();
      this.waiting.set(userId, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiting.get(userId) === waiters) this.waiting.delete(userId);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      waiters.add(done);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.lost();
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.url, application_name: 'nebula-gen-account-changes' });
    this.client = client;
    client.on('error', (err) => this.disconnected(client, err));
    client.on('end', () => this.disconnected(client));
    client.on('notification', (msg) => {
      if (msg.channel === ACCOUNT_CHANGES_CHANNEL) this.heard(msg.payload ?? '*');
      else for (const l of this.channels.get(msg.channel) ?? []) l.heard(msg.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${ACCOUNT_CHANGES_CHANNEL}`);
      for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      this.disconnected(client, err as Error);
      return;
    }
    if (this.client !== client || this.closed) return;
    if (this.attempt > 0) this.log.info('account change feed listening again');
    this.attempt = 0;
    for (const l of this.listeners) l.feedReset();
    this.listening = true;
    for (const l of [...this.channels.values()].flat()) l.reset();
  }

  private heard(payload: string): void {
    const userId = payload === '*' ? null : Number(payload);
    for (const l of this.listeners) l.accountChanged(Number.isInteger(userId) ? userId : null);
    const wake = (waiters: Set<() => void> | undefined) => waiters && [...waiters].forEach((w) => w());
    if (userId === null || !Number.isInteger(userId)) for (const w of [...this.waiting.values()]) wake(w);
    else wake(this.waiting.get(userId));
  }

  private lost(): void {
    this.listening = false;
    for (const l of this.listeners) l.feedReset();
    for (const waiters of [...this.waiting.values()]) [...waiters].forEach((w) => w());
  }

  private disconnected(client: Client, err?: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.lost();
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
    if (this.closed) return;
    if (this.attempt === 0)
      this.log.warn({ err: err?.message }, 'account change feed lost its connection: API keys are looked up uncached');
    const delay = Math.min(100 * 2 ** this.attempt++, MAX_RECONNECT_DELAY_MS);
    this.timer = setTimeout(() => void this.connect(), delay);
    this.timer.unref();
  }
}
