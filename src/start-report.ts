import fs from 'node:fs';
import path from 'node:path';

/** What the operator needs to know once the service is up, gathered by main.ts. */
export interface StartFacts {
  /** Where the dashboard (and the API) can be opened. */
  url: string;
  migrationsApplied: number;
  vendors: { provider: string; mode: 'live' | 'sandbox' | 'unavailable' }[];
  /** Web payments run on the built-in YooKassa fake. */
  paymentsSandbox: boolean;
  bot: 'off' | 'polling' | 'webhook';
  mail: 'smtp' | 'log';
  production: boolean;
  /** Models past or near their shutdown that the operator has not been told about yet (see endingNotice). */
  endingModels: EndingModel[];
}

export interface EndingModel {
  slug: string;
  shutdownAt: string | null;
  retired: boolean;
  replacement: string | null;
}

/** "whisper-1 (shuts down 2027-02-26, no replacement)", "grok-3-mini (retired: answers 410)". */
function endingText(m: EndingModel): string {
  if (m.retired) return `${m.slug} (retired: ${m.replacement ? `served by ${m.replacement}` : 'answers 410'})`;
  const when = m.shutdownAt ? `shuts down ${m.shutdownAt}` : 'deprecated';
  return `${m.slug} (${when}, ${m.replacement ? `then served by ${m.replacement}` : 'no replacement'})`;
}

export interface StartLine {
  level: 'info' | 'warn';
  msg: string;
}

const list = (names: string[]) => names.join(', ');

/** The first line, said before the database starts (the first start of the embedded one takes a few seconds). */
export function startingLine(database: { embeddedDir: string } | { url: string }): string {
  if ('embeddedDir' in database)
    return `starting on the embedded PostgreSQL under ${database.embeddedDir} (set DATABASE_URL to use your own)`;
  try {
    const u = new URL(database.url);
    return `starting on PostgreSQL at ${u.host}${u.pathname}`;
  } catch {
    return 'starting on DATABASE_URL';
  }
}

/**
 * The first screen: one line per fact that matters (where to open the dashboard, what runs on the sandbox, what
 * is missing), ending with the address. Everything else the start knows goes to the debug level.
 */
export function startReport(f: StartFacts): StartLine[] {
  const lines: StartLine[] = [];
  if (f.migrationsApplied > 0) lines.push({ level: 'info', msg: `database: ${f.migrationsApplied} migrations applied` });

  const of = (mode: StartFacts['vendors'][number]['mode']) => f.vendors.filter((v) => v.mode === mode).map((v) => v.provider);
  const sandbox = of('sandbox');
  if (sandbox.length > 0) {
    const payments = f.paymentsSandbox ? ' and the YooKassa checkout' : '';
    lines.push({
      level: 'warn',
      msg: `SANDBOX on: ${list(sandbox)}${payments} answer from built-in fakes with synthetic results, nothing is charged (set <VENDOR>_API_KEY for a real vendor)`,
    });
  } else if (f.paymentsSandbox) {
    lines.push({ level: 'warn', msg: 'SANDBOX on: web payments use the built-in YooKassa checkout, nothing is charged' });
  }
  const unavailable = of('unavailable');
  if (unavailable.length > 0) {
    lines.push({
      level: 'warn',
      msg: `no credentials for ${list(unavailable)}: their models answer 503 (set <VENDOR>_API_KEY, or SANDBOX=1 to use the built-in fakes)`,
    });
  }
  if (!f.production && sandbox.length === 0 && unavailable.length === 0) lines.push({ level: 'info', msg: 'every vendor is live' });

  lines.push({
    level: 'info',
    msg: f.bot === 'off' ? 'Telegram bot: off (set BOT_TOKEN to start it)' : `Telegram bot: on (${f.bot})`,
  });
  if (f.mail === 'log') {
    lines.push(
      f.production
        ? { level: 'warn', msg: 'mail: no SMTP_URL, so verification and password-reset mails are not sent (set SMTP_URL)' }
        : { level: 'info', msg: 'mail: no SMTP_URL, so verification and password-reset links are written to this log instead' },
    );
  }
  if (f.endingModels.length > 0) {
    lines.push({
      level: 'warn',
      msg: `catalog: models retired or shutting down within 60 days: ${list(f.endingModels.map(endingText))} (npm run cli -- catalog:check)`,
    });
  }
  lines.push({ level: 'info', msg: `listening on ${f.url} — open it in a browser and create an account` });
  return lines;
}

const NOTICE_FILE = 'start-notices.json';

/**
 * The ending models the operator has not heard of from this data directory yet: each model and its state is
 * told once at warn level (every start repeats them at debug), so a restart does not bury the first screen.
 */
export function endingNotice<M extends EndingModel>(dataDir: string, models: M[]): M[] {
  const file = path.join(dataDir, NOTICE_FILE);
  const keyOf = (m: M) => `${m.slug}:${m.retired ? 'retired' : (m.shutdownAt ?? 'deprecated')}:${m.replacement ?? ''}`;
  let told: string[] = [];
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (Array.isArray(parsed)) told = parsed.filter((x): x is string => typeof x === 'string');
  } catch {
    // First start, or an unreadable file: everything is news.
  }
  const fresh = models.filter((m) => !told.includes(keyOf(m)));
  if (fresh.length > 0) {
    try {
      fs.mkdirSync(dataDir, { recursive: true });
      fs.writeFileSync(file, JSON.stringify(models.map(keyOf)));
    } catch {
      // A read-only data directory: the notice comes again next time, which is harmless.
    }
  }
  return fresh;
}
