import fs from 'node:fs';
import path from 'node:path';
import { endingNotice, startReport, type StartFacts } from '../../src/start-report';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { buildOnce, startServiceProcess, tempDir, type ServiceProcess } from './service-process';

// The first screen of `npm start`: one line per fact that matters, ending with where to open the dashboard; the
// per-vendor and per-model details go to the debug level.

const SANDBOXED = ['openai', 'anthropic', 'google', 'xai', 'deepseek', 'bfl', 'replicate', 'elevenlabs'];

function facts(overrides: Partial<StartFacts> = {}): StartFacts {
  return {
    url: 'http://localhost:3000',
    migrationsApplied: 0,
    vendors: [...SANDBOXED.map((provider) => ({ provider, mode: 'sandbox' as const })), { provider: 'local', mode: 'live' }],
    paymentsSandbox: true,
    bot: 'off',
    mail: 'log',
    production: false,
    endingModels: [],
    ...overrides,
  };
}

describe('the start report', () => {
  test('a bare first start: sandbox on in one line, bot and mail missing, the address last', () => {
    const lines = startReport(facts({ migrationsApplied: 24 }));
    expect(lines.map((l) => l.msg)).toEqual([
      'database: 24 migrations applied',
      `SANDBOX on: ${SANDBOXED.join(', ')} and the YooKassa checkout answer from built-in fakes with synthetic results, nothing is charged (set <VENDOR>_API_KEY for a real vendor)`,
      'Telegram bot: off (set BOT_TOKEN to start it)',
      'mail: no SMTP_URL, so verification and password-reset links are written to this log instead',
      'listening on http://localhost:3000 — open it in a browser and create an account',
    ]);
    expect(lines[1]!.level).toBe('warn');
  });

  test('production without credentials says which vendors answer 503 and that mail is not sent', () => {
    const lines = startReport(
      facts({
        production: true,
        paymentsSandbox: false,
        vendors: [
          { provider: 'openai', mode: 'live' },
          { provider: 'bfl', mode: 'unavailable' },
        ],
        bot: 'webhook',
        url: 'https://nebula.example.com',
      }),
    );
    expect(lines).toEqual([
      {
        level: 'warn',
        msg: 'no credentials for bfl: their models answer 503 (set <VENDOR>_API_KEY, or SANDBOX=1 to use the built-in fakes)',
      },
      { level: 'info', msg: 'Telegram bot: on (webhook)' },
      { level: 'warn', msg: 'mail: no SMTP_URL, so verification and password-reset mails are not sent (set SMTP_URL)' },
      { level: 'info', msg: 'listening on https://nebula.example.com — open it in a browser and create an account' },
    ]);
  });

  test('ending models are told once per data directory, again when their state changes', () => {
    const dir = tempDir('ng-notice-');
    try {
      const whisper = { slug: 'whisper-1', shutdownAt: '2027-02-26', retired: false, replacement: null };
      expect(endingNotice(dir, [whisper])).toEqual([whisper]);
      expect(endingNotice(dir, [whisper])).toEqual([]);
      const retired = { ...whisper, retired: true };
      expect(endingNotice(dir, [retired])).toEqual([retired]);
      const ending = startReport(facts({ endingModels: [whisper, { ...whisper, slug: 'gpt-x', replacement: 'gpt-y' }] }));
      expect(ending.find((l) => l.msg.startsWith('catalog:'))?.msg).toBe(
        'catalog: models retired or shutting down within 60 days: whisper-1 (shuts down 2027-02-26, no replacement), ' +
          'gpt-x (shuts down 2027-02-26, then served by gpt-y) (npm run cli -- catalog:check)',
      );
      const line = startReport(facts({ endingModels: [retired] })).find((l) => l.msg.startsWith('catalog:'));
      expect(line).toEqual({
        level: 'warn',
        msg: 'catalog: models retired or shutting down within 60 days: whisper-1 (retired: answers 410) (npm run cli -- catalog:check)',
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm start', () => {
  let db: TestDatabase;
  const dirs: string[] = [];
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    buildOnce();
    db = await createTestDatabase();
  });
  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    await db?.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  test('the log names the dashboard URL (PUBLIC_URL when set) and keeps per-vendor lines at debug', async () => {
    const dataDir = tempDir('ng-start-log-');
    dirs.push(dataDir);
    service = await startServiceProcess({ DATABASE_URL: db.url, DATA_DIR: dataDir, PUBLIC_URL: 'https://nebula.example.com/' }, 60_000);
    const messages = service.lines.map((l) => (JSON.parse(l) as { msg: string; level: number }).msg);
    expect(messages.at(-1)).toBe('listening on https://nebula.example.com — open it in a browser and create an account');
    // The address answers: PUBLIC_URL is where users come in, the process itself listens on the port it printed.
    expect(service.baseUrl).toBe('https://nebula.example.com');
    expect(messages.some((m) => /^starting on PostgreSQL at /.test(m))).toBe(true);
    expect(messages.filter((m) => m.includes('SANDBOX'))).toHaveLength(1);
    expect(messages.some((m) => /^openai: /.test(m))).toBe(false);
    expect(messages.length).toBeLessThanOrEqual(8);
    // A second line about the models past their shutdown would only come with news; the state is kept in DATA_DIR.
    expect(fs.existsSync(path.join(dataDir, 'start-notices.json'))).toBe(true);
  }, 90_000);
});
