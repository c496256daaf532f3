import fs from 'node:fs';
import path from 'node:path';
import { cycles, importGraph, SRC, sourceFiles, specifiersOf } from './import-graph';

// Checks on the code as written: the import graph has no loop, the HTTP door names the services it may use, the
// core keeps no wire views, and the core reads no application configuration.

const inCore = (file: string) => path.relative(SRC, file).startsWith(`core${path.sep}`);

test('src/ has no import cycle (type-only imports count: a loop of types is a loop of meaning)', () => {
  expect(cycles(importGraph())).toEqual([]);
});

test('the cycle check sees a cycle when there is one (sanity)', () => {
  const graph = new Map([
    ['/a.ts', ['/b.ts']],
    ['/b.ts', ['/a.ts']],
    ['/c.ts', ['/a.ts']],
  ]);
  expect(cycles(graph)).toHaveLength(1);
});

test('no door type is a deny-list of the services (`Omit<Services`): each names what it may use', () => {
  const denyLists = sourceFiles().filter((file) => /Omit<\s*Services\b/.test(fs.readFileSync(file, 'utf8')));
  expect(denyLists.map((f) => path.relative(SRC, f))).toEqual([]);
  expect(fs.readFileSync(path.join(SRC, 'api/api-services.ts'), 'utf8')).toMatch(/export type ApiServices = Pick<\s*Services,/);
});

test('the core keeps no wire views: no snake_case keys in src/core/**/views', () => {
  const views = sourceFiles().filter((file) => inCore(file) && /(^|\/)views?(\.ts$|\/)/.test(path.relative(SRC, file)));
  const snake = views.flatMap((file) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => /^\s*['"]?[a-z][a-z0-9]*_[a-z0-9_]+['"]?\??\s*:/.test(line))
      .map((line) => `${path.relative(SRC, file)}: ${line.trim()}`),
  );
  expect(snake).toEqual([]);
});

test('the core never imports the application configuration (AppConfig, src/config.ts)', () => {
  const readers = sourceFiles()
    .filter(inCore)
    .filter((file) => {
      const text = fs.readFileSync(file, 'utf8');
      const importsConfig = specifiersOf(file).some((spec) => path.resolve(path.dirname(file), spec) === path.join(SRC, 'config'));
      return importsConfig || /\bAppConfig\b/.test(text);
    });
  expect(readers.map((f) => path.relative(SRC, f))).toEqual([]);
});
