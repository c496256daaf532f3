import fs from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every module specifier a file imports or requires, resolved to a path under src/ when relative. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*|^import\s+)'([^']+)'/gm)].map((m) => m[1]);
  return specs.map((s) => (s.startsWith('.') ? path.relative(SRC, path.resolve(path.dirname(file), s)) : s));
}

function violations(area: string, forbidden: (spec: string) => boolean): string[] {
  return sourceFiles(path.join(SRC, area)).flatMap((file) =>
    importsOf(file)
      .filter(forbidden)
      .map((spec) => `${path.relative(SRC, file)} -> ${spec}`),
  );
}

const DOOR_PACKAGES = /^(koa|koa-[\w-]+|@koa\/.+|grammy|@grammyjs\/.+)$/;
const PERSISTENCE = (spec: string) => spec === 'typeorm' || spec === 'pg' || spec === 'db' || spec.startsWith('db/');
const CORE_FROM_DOOR = (spec: string) => spec === 'api' || spec.startsWith('api/') || spec === 'bot' || spec.startsWith('bot/');

test('the import scan sees imports (sanity)', () => {
  expect(violations('api', (s) => s === 'koa').length).toBeGreaterThan(0);
});

test('src/core imports no door: neither koa nor grammy, nor src/api or src/bot', () => {
  expect(violations('core', (s) => DOOR_PACKAGES.test(s) || CORE_FROM_DOOR(s))).toEqual([]);
});

test('src/api never imports typeorm, pg or src/db', () => {
  expect(violations('api', PERSISTENCE)).toEqual([]);
});

test('src/bot never imports typeorm, pg or src/db', () => {
  expect(violations('bot', PERSISTENCE)).toEqual([]);
});

test('the doors never reach the DataSource: no `ds`, no DataSource, no SQL in src/api or src/bot', () => {
  const leaks = ['api', 'bot'].flatMap((area) =>
    sourceFiles(path.join(SRC, area)).flatMap((file) => {
      const text = fs.readFileSync(file, 'utf8');
      const found = [/\.ds\b/, /\{[^}]*\bds\b[^}]*\}\s*=/, /\bDataSource\b/, /\b(SELECT|UPDATE|INSERT INTO|DELETE FROM)\s+\w+/].filter(
        (re) => re.test(text),
      );
      return found.map((re) => `${path.relative(SRC, file)} matches ${re}`);
    }),
  );
  expect(leaks).toEqual([]);
});

test('the bot takes narrow core services, not the whole bag', () => {
  const context = fs.readFileSync(path.join(SRC, 'bot/context.ts'), 'utf8');
  expect(context).toMatch(/export type BotServices = Pick</);
  expect(context).not.toMatch(/services: Services;/);
});
