import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { ApiKeyService } from './core/accounts/api-keys';
import { emailSchema, phoneSchema } from './core/accounts/identifiers';
import { hashPassword, MIN_PASSWORD_LENGTH } from './core/accounts/passwords';
import { PlanDirectory } from './core/accounts/plans';
import { createUser, findUserById } from './core/accounts/users';
import { summarizeAccount } from './core/accounts/summaries';
import { setAdmin } from './core/admin/admins';
import { AdminAuditLog, adminActors } from './core/admin/audit-log';
import { toUserBody } from './api/views/account';
import { getBalance } from './core/billing/ledger';
import { ArticleCatalog, toArticleView } from './core/payments/articles';
import { listModels, toPublicModel } from './core/catalog/catalog';
import { ParamError } from './core/catalog/errors';
import { connectionsFor } from './core/catalog/live/check';
import { LiveCatalog } from './core/catalog/live/live-catalog';
import { auditedCatalogSet } from './core/admin/catalog-console';
import { AdminUserDesk, MAX_GRANT_TOKENS } from './core/admin/user-desk';
import { ProviderConnections } from './core/providers/connections';
import { PROVIDER_NAMES, providerAdapters } from './core/providers/registry';
import { sandboxHandlers } from './sandbox/handlers';
import { startSandbox } from './sandbox/server';
import { CatalogStore } from './core/catalog/live/store';
import type { PlanSlug } from './core/catalog/types';
import { commandUsage, overview, type CommandHelp } from './cli/help';
import { pricesReport, setPrice } from './cli/price-commands';
import { PLAN_CHOICES, PLAN_NOTE, planSlugOf } from './cli/plan-names';
import { loadConfig } from './config';
import { connectDatabase } from './db/connect';
import { migrateUnderLock } from './db/startup-lock';
import { createLogger } from './logger';

class UsageError extends Error {}

const nonNegativeInt = (flag: string) =>
  z.coerce
    .number({ error: `--${flag} must be a whole number` })
    .int(`--${flag} must be a whole number`)
    .min(0, `--${flag} must not be negative`);
const positiveId = (flag: string) =>
  z.coerce
    .number({ error: `--${flag} must be a user id` })
    .int()
    .positive(`--${flag} must be a user id`);

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new UsageError(r.error.issues.map((i) => i.message).join('; '));
  return r.data;
}

function requirePlan(value: string | undefined): PlanSlug {
  if (!value) throw new UsageError('--plan is required');
  const slug = planSlugOf(value);
  if (!slug) throw new UsageError(`unknown plan "${value}": ${PLAN_NOTE}`);
  return slug;
}

/** The spec's User object, plus the plan's name as the dashboard and the bot show it (`plan: "free"` is Starter). */
async function userView(ds: DataSource, plans: PlanDirectory, id: number): Promise<ReturnType<typeof toUserBody> & { plan_name: string }> {
  const user = await findUserById(ds, id);
  if (!user) throw new UsageError(`no user with id ${id}`);
  const plan = await plans.get(user.planSlug);
  return { ...toUserBody(summarizeAccount(user, plan, await getBalance(ds, id))), plan_name: plan.name };
}

/** What the ledger and the audit log say of a CLI grant given no --reason. */
const CLI_GRANT_REASON = 'granted by operator (CLI)';

/** The console's account desk as the CLI uses it: grants and plan changes, each audited as `cli`. */
function operatorDesk(ds: DataSource, plans: PlanDirectory): AdminUserDesk {
  return new AdminUserDesk(ds, plans, new AdminAuditLog(ds));
}

type Command = (ds: DataSource, args: Record<string, string | undefined>) => Promise<unknown>;

const commands: Record<string, { options: string[]; help: CommandHelp; run: Command }> = {
  'user:create': {
    help: {
      args: `--email E [--password P | --password-stdin] [--phone P] [--telegram-id N] [--name N] --plan ${PLAN_CHOICES} [--tokens N] [--bonus N]`,
      summary: 'create an account; prints its User object (plan_name: the plan as the dashboard shows it)',
      notes: [
        "--email, --phone or --telegram-id names the account (at least one); --name defaults to the email's local part",
        '--password-stdin reads the password from the first line of stdin (kept out of the process list and shell history)',
        '--tokens sets the plan tokens; --bonus the bonus tokens (a starter account otherwise gets its one-time 50)',
        PLAN_NOTE,
      ],
    },
    options: ['email', 'password', 'phone', 'telegram-id', 'name', 'plan', 'tokens', 'bonus'],
    run: async (ds, a) => {
      const plan = requirePlan(a.plan);
      if (!a.email && !a.phone && !a['telegram-id']) throw new UsageError('--email (or --phone / --telegram-id) is required');
      const email = a.email !== undefined ? parse(emailSchema, a.email) : undefined;
      const phone = a.phone !== undefined ? parse(phoneSchema, a.phone) : undefined;
      const telegramId = a['telegram-id'] !== undefined ? parse(positiveId('telegram-id'), a['telegram-id']) : undefined;
      if (a.password !== undefined && a.password.length < MIN_PASSWORD_LENGTH) {
        throw new UsageError(`--password must be at least ${MIN_PASSWORD_LENGTH} characters`);
      }
      const plans = new PlanDirectory(ds);
      const user = await createUser(ds, plans, {
        name: a.name ?? email?.split('@')[0] ?? phone ?? `user${telegramId}`,
        email,
        phone,
        telegramId,
        passwordHash: a.password !== undefined ? await hashPassword(a.password) : null,
        plan,
        planTokens: a.tokens !== undefined ? parse(nonNegativeInt('tokens'), a.tokens) : undefined,
        bonusTokens: a.bonus !== undefined ? parse(nonNegativeInt('bonus'), a.bonus) : undefined,
      });
      return userView(ds, plans, user.id);
    },
  },
  'user:grant': {
    help: {
      args: '--user ID --bonus N [--reason R]',
      summary: 'add N bonus tokens (a ledger row, in the audit log as user.grant); prints the User object',
      notes: [`N is 1 to ${MAX_GRANT_TOKENS}; --reason (at most 500 characters) defaults to "${CLI_GRANT_REASON}"`],
    },
    options: ['user', 'bonus', 'reason'],
    run: async (ds, a) => {
      const id = parse(positiveId('user'), a.user);
      const bonus = parse(
        nonNegativeInt('bonus').positive('--bonus must be positive').max(MAX_GRANT_TOKENS, `--bonus is at most ${MAX_GRANT_TOKENS}`),
        a.bonus,
      );
      const plans = new PlanDirectory(ds);
      await userView(ds, plans, id);
      await operatorDesk(ds, plans).grant(id, bonus, a.reason ?? CLI_GRANT_REASON, adminActors.cli());
      return userView(ds, plans, id);
    },
  },
  'user:plan': {
    help: {
      args: `--user ID --plan ${PLAN_CHOICES} [--expires-at ISO]`,
      summary: 'move an account to a plan (its allowance from now on; in the audit log as user.plan); prints the User object',
      notes: [PLAN_NOTE, '--expires-at (in the future): the plan lapses to Starter at the first period end after it; without, it renews'],
    },
    options: ['user', 'plan', 'expires-at'],
    run: async (ds, a) => {
      const id = parse(positiveId('user'), a.user);
      const plan = requirePlan(a.plan);
      const expiresAt =
        a['expires-at'] !== undefined
          ? new Date(
              parse(
                z.iso.datetime({ offset: true, message: '--expires-at is an ISO date-time, e.g. 2027-01-31T00:00:00Z' }),
                a['expires-at'],
              ),
            )
          : null;
      const plans = new PlanDirectory(ds);
      await userView(ds, plans, id);
      await operatorDesk(ds, plans).setPlan(id, plan, expiresAt, adminActors.cli());
      return userView(ds, plans, id);
    },
  },
  'user:admin': {
    help: {
      args: '--user ID --on | --off',
      summary: "make an account an admin of the operator's console (or no longer one); prints the User object",
      notes: ['the accounts linked to a Telegram id of ADMIN_CHAT_IDS are made admins at each start (never revoked there)'],
    },
    options: ['user', 'on', 'off'],
    run: async (ds, a) => {
      const id = parse(positiveId('user'), a.user);
      if ((a.on === undefined) === (a.off === undefined)) throw new UsageError('give --on or --off');
      const plans = new PlanDirectory(ds);
      await userView(ds, plans, id);
      await setAdmin(ds, new AdminAuditLog(ds), adminActors.cli(), id, a.on !== undefined);
      return userView(ds, plans, id);
    },
  },
  'key:create': {
    help: { args: '--user ID --name N', summary: 'create an API key; prints {id, name, key, created_at}, the full key only this once' },
    options: ['user', 'name'],
    run: async (ds, a) => {
      const id = parse(positiveId('user'), a.user);
      const name = parse(z.string({ error: '--name is required' }).trim().min(1, '--name is required').max(100), a.name);
      await userView(ds, new PlanDirectory(ds), id);
      // The operator contract prints exactly {id, name, key, created_at}; the key's limits are the API's business.
      const { id: keyId, name: keyName, key, created_at } = await new ApiKeyService(ds, loadConfig().apiKeyPepper).create(id, name);
      return { id: keyId, name: keyName, key, created_at };
    },
  },
  'articles:list': {
    help: { args: '', summary: 'what is sold (token packages and plans), with RUB and Stars prices' },
    options: [],
    run: async (ds) => ({ articles: (await new ArticleCatalog(ds).all()).map((a) => ({ ...toArticleView(a), active: a.active })) }),
  },
  'articles:set': {
    help: {
      args: '--id ID [--price RUBLES] [--stars N] [--title T] [--active true|false]',
      summary: 'change an article: its price (rubles, two decimals at most), Stars price, title, or whether it is sold',
    },
    options: ['id', 'price', 'stars', 'title', 'active'],
    run: async (ds, a) => {
      const id = parse(z.string({ error: '--id is required' }).min(1, '--id is required'), a.id);
      const price =
        a.price !== undefined
          ? parse(
              z.coerce.number({ error: '--price must be a number of rubles' }).positive('--price must be positive').max(10_000_000),
              a.price,
            )
          : undefined;
      if (price !== undefined && Math.round(price * 100) !== price * 100) throw new UsageError('--price has at most two decimals');
      const stars =
        a.stars !== undefined ? parse(nonNegativeInt('stars').positive('--stars must be positive').max(100_000), a.stars) : undefined;
      const title =
        a.title !== undefined
          ? parse(
              z.string().trim().min(1, '--title must not be empty').max(32, '--title is at most 32 characters (Telegram invoices)'),
              a.title,
            )
          : undefined;
      if (a.active !== undefined && a.active !== 'true' && a.active !== 'false') throw new UsageError('--active is true or false');
      const catalog = new ArticleCatalog(ds);
      const known = (await catalog.all()).some((x) => x.id === id);
      if (!known) throw new UsageError(`no article with id "${id}" (see articles:list)`);
      const updated = await catalog.update(id, {
        priceMinor: price !== undefined ? Math.round(price * 100) : undefined,
        stars,
        title,
        active: a.active === undefined ? undefined : a.active === 'true',
      });
      return { ...toArticleView(updated), active: updated.active };
    },
  },
  'catalog:set': {
    help: {
      args: '--slug S [--replacement R] [--shutdown-at YYYY-MM-DD] [--enabled true|false]',
      summary: "change a model's lifecycle (kept in the database, applied by every instance); prints its state",
    },
    options: ['slug', 'replacement', 'shutdown-at', 'enabled'],
    run: async (ds, a) => {
      const slug = parse(z.string({ error: '--slug is required' }).trim().min(1, '--slug is required'), a.slug);
      if (a.enabled !== undefined && a.enabled !== 'true' && a.enabled !== 'false') throw new UsageError('--enabled is true or false');
      if (a.replacement === undefined && a['shutdown-at'] === undefined && a.enabled === undefined) {
        throw new UsageError('give at least one of --replacement, --shutdown-at, --enabled');
      }
      const catalog = new LiveCatalog(new CatalogStore(ds), createLogger('silent'));
      await catalog.load();
      try {
        return await auditedCatalogSet(catalog, new AdminAuditLog(ds), adminActors.cli(), slug, {
          replacement: a.replacement,
          shutdownAt: a['shutdown-at'],
          enabled: a.enabled === undefined ? undefined : a.enabled === 'true',
        });
      } catch (err) {
        if (err instanceof ParamError) throw new UsageError(err.message);
        throw err;
      }
    },
  },
  'catalog:check': {
    help: { args: '', summary: 'ask every vendor for its model list; prints {checked_at, models}' },
    options: [],
    run: async (ds) => {
      const config = loadConfig();
      const log = createLogger('silent');
      // Providers without credentials are asked through the built-in sandbox (outside production).
      const needed = PROVIDER_NAMES.some((p) => p !== 'local' && config.providers.vendors[p].length === 0);
      const sandbox = needed && config.sandboxAllowed ? await startSandbox(sandboxHandlers) : undefined;
      try {
        const connections = new ProviderConnections(config.providers, providerAdapters, sandbox?.mountUrl);
        const catalog = new LiveCatalog(new CatalogStore(ds), log);
        await catalog.load();
        return (await catalog.check(connectionsFor(connections))).report;
      } finally {
        await sandbox?.close();
      }
    },
  },
  'catalog:price': {
    help: {
      args: '--slug S (--factor F | --tokens N) --reason R | --slug S --clear',
      summary: "override a model's price (kept in the database, applied by every instance); prints its prices",
      notes: [
        '--factor scales every rate of the model (1 is the price rule); --tokens sets the price of a per-request model',
        "(speech-to-text, music, tools); --clear goes back to the rule and the catalog's own overrides",
      ],
    },
    options: ['slug', 'factor', 'tokens', 'reason'],
    run: async (ds, a) => {
      try {
        return await setPrice(ds, createLogger('silent'), a);
      } catch (err) {
        if (err instanceof ParamError) throw new UsageError(err.message);
        throw err;
      }
    },
  },
  'catalog:prices': {
    help: {
      args: '',
      summary: "each model's vendor cost (USD) and what it charges, valued at the cheapest token sold; flags models sold below cost",
      notes: ['rubles and Stars are valued with PRICES_RUB_PER_USD (default 90) and PRICES_USD_PER_STAR (default 0.013)'],
    },
    options: [],
    run: async (ds) => pricesReport(ds, createLogger('silent'), loadConfig().currencyRates),
  },
  'models:list': {
    help: { args: '', summary: 'the model catalog, as GET /api/v2/models answers it' },
    options: [],
    run: async (ds) => {
      // The operator's catalog:set and catalog:price live in the database, as the running service applies them.
      await new LiveCatalog(new CatalogStore(ds), createLogger('silent')).load();
      const models = listModels().map(toPublicModel);
      return { models, total: models.length };
    },
  },
};

async function readFirstLine(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0];
}

const HELP_FLAGS = new Set(['--help', '-h']);
const helpOf = Object.fromEntries(Object.entries(commands).map(([n, c]) => [n, c.help]));

/** The usage that `help [command]`, `--help` or `<command> --help` asks for; null when the call asks for none. */
function helpFor(name: string, rest: string[]): string | null {
  if (name === 'help' || HELP_FLAGS.has(name)) {
    const topic = rest[0];
    if (topic === undefined || HELP_FLAGS.has(topic)) return overview(helpOf);
    const command = commands[topic];
    return command ? commandUsage(topic, command.help) : null;
  }
  const command = commands[name];
  return command && rest.some((a) => HELP_FLAGS.has(a)) ? commandUsage(name, command.help) : null;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(overview(helpOf));
    return 2;
  }
  const help = helpFor(name, rest);
  if (help !== null) {
    process.stdout.write(help);
    return 0;
  }
  const unknown = name === 'help' || HELP_FLAGS.has(name) ? rest[0] : name;
  const command = commands[name];
  if (!command) {
    process.stderr.write(`unknown command "${unknown}"\n\n${overview(helpOf)}`);
    return 2;
  }
  // --password-stdin: the password is the first line of stdin (kept out of the process list and shell history).
  const passwordFromStdin = name === 'user:create' && rest.includes('--password-stdin');
  // catalog:price --clear, user:admin --on / --off take no value.
  const clear = name === 'catalog:price' && rest.includes('--clear');
  const switches: string[] = name === 'user:admin' ? rest.filter((a) => a === '--on' || a === '--off') : [];
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({
      args: rest.filter((a) => a !== '--password-stdin' && !(clear && a === '--clear') && !switches.includes(a)),
      options: Object.fromEntries(command.options.map((o) => [o, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    }).values as Record<string, string | undefined>;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${commandUsage(name, command.help)}`);
    return 2;
  }
  if (clear) values.clear = 'true';
  for (const s of switches) values[s.slice(2)] = 'true';
  if (passwordFromStdin) {
    if (values.password !== undefined) {
      process.stderr.write('give --password or --password-stdin, not both\n');
      return 2;
    }
    values.password = await readFirstLine(process.stdin);
  }
  const config = loadConfig();
  const log = createLogger('silent');
  const db = await connectDatabase(config, log, { poolSize: 2 });
  try {
    await migrateUnderLock(db.dataSource);
    const result = await command.run(db.dataSource, values);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError || err instanceof ParamError || (err as Error).name === 'AccountConflictError') {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch((err: Error) => {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(1);
  });
