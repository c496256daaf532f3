import { PLAN_NOTE } from './plan-names';

/** What `help` says about one command: its arguments, one line on what it does, and notes on its options. */
export interface CommandHelp {
  args: string;
  summary: string;
  notes?: string[];
}

const INVOCATION = `usage: nebula-gen <command> [options]
  in a checkout: npx nebula-gen <command> [options]   (or: npm run -s cli -- <command> [options])`;

/** The whole usage: every command with its arguments and what it does. */
export function overview(commands: Readonly<Record<string, CommandHelp>>): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  const lines = Object.entries(commands).flatMap(([name, c]) => [
    `  ${name.padEnd(width)}  ${c.summary}`,
    ...(c.args ? [`  ${' '.repeat(width)}    ${c.args}`] : []),
  ]);
  return [
    INVOCATION,
    '',
    'Operator commands against the service database (DATABASE_URL, else the embedded one). Each prints JSON on',
    'stdout; bad input exits non-zero with a message on stderr.',
    '',
    'commands:',
    ...lines,
    '',
    PLAN_NOTE,
    'nebula-gen help <command> (or nebula-gen <command> --help) tells more about one command.',
    '',
  ].join('\n');
}

/** The usage of one command. */
export function commandUsage(name: string, c: CommandHelp): string {
  return [
    `usage: nebula-gen ${name}${c.args ? ` ${c.args}` : ''}`,
    '',
    c.summary,
    ...(c.notes && c.notes.length > 0 ? ['', ...c.notes.map((n) => `  ${n}`)] : []),
    '',
  ].join('\n');
}
