import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import { GenerationEntity } from '../../src/db/entities';
import { createAnthropicSandbox } from '../../src/sandbox/anthropic';
import { ApiHarness, startApi } from '../api/harness';
import { recording } from '../compat/recording';

// Claude Code itself (the pinned @anthropic-ai/claude-code devDependency, its native binary) against the service on
// the sandbox: `claude -p` with ANTHROPIC_BASE_URL pointing at /v1/messages and a VIP account's API key completes a
// task that calls a tool, reasoning with adaptive thinking that reaches the Anthropic fake, and its second turn
// replays the signed thinking block exactly as the fake issued it. Hermetic: HOME and the config directory in a
// temporary directory, no telemetry, error reports or auto-update (CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC), stdin
// closed, no other environment.

const CLAUDE = path.resolve(__dirname, '../../node_modules/.bin/claude');
const MODEL = 'claude-sonnet-4-6';

const fake = recording(createAnthropicSandbox({ streamDelayMs: 0 }));
let api: ApiHarness;
beforeAll(async () => {
  api = await startApi(undefined, { handlers: { anthropic: fake.handler } });
});
afterAll(() => api.close());

function runClaude(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLAUDE, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 90_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The thinking block of a streamed Messages answer, assembled from its events as a client does. */
function streamedThinking(sse: string): { type: 'thinking'; thinking: string; signature: string } {
  let thinking = '';
  let signature = '';
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const ev = JSON.parse(line.slice(6)) as { type: string; delta?: { type: string; thinking?: string; signature?: string } };
    if (ev.type !== 'content_block_delta') continue;
    if (ev.delta?.type === 'thinking_delta') thinking += ev.delta.thinking;
    if (ev.delta?.type === 'signature_delta') signature += ev.delta.signature;
  }
  return { type: 'thinking', thinking, signature };
}

type Body = {
  model: string;
  thinking?: unknown;
  output_config?: unknown;
  messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
};

test('claude -p reads a file with its Read tool, thinking on the fake vendor, the signed block replayed unchanged', async () => {
  const account = await api.account('vip', { planTokens: 100_000, bonusTokens: 0 });
  const key = await api.apiKey(account);
  const home = mkdtempSync(path.join(os.tmpdir(), 'claude-code-'));
  try {
    const notes = path.join(home, 'notes.txt');
    writeFileSync(notes, 'The lighthouse keeper is called Ada.\n');
    const out = await runClaude(
      [
        '-p',
        notes,
        '--model',
        MODEL,
        '--effort',
        'high',
        '--tools',
        'Read',
        '--allowedTools',
        'Read',
        '--output-format',
        'json',
        '--no-session-persistence',
      ],
      home,
      {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
        ANTHROPIC_BASE_URL: api.baseUrl,
        ANTHROPIC_API_KEY: key,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
      },
    );
    expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
    const result = JSON.parse(out.stdout) as { is_error: boolean; num_turns: number; result: string; usage: Record<string, number> };
    expect(result.is_error).toBe(false);
    expect(result.num_turns).toBe(2);
    // The answer is built on what the Read tool returned: Claude Code ran the tool the model called.
    expect(result.result).toMatch(/The lighthouse keeper is called Ada/);

    const turns = fake.bodies as unknown as Body[];
    expect(turns).toHaveLength(2);
    for (const turn of turns) {
      expect(turn).toMatchObject({ model: MODEL, thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
    }
    const [first, second] = turns;
    const issued = streamedThinking(fake.answers[0]);
    expect(issued.thinking).toMatch(/Sandbox thinking/);
    expect(issued.signature.length).toBeGreaterThan(20);
    const replayedTurn = second.messages[second.messages.length - 2];
    expect(replayedTurn.role).toBe('assistant');
    expect(JSON.stringify(replayedTurn.content[0])).toBe(JSON.stringify(issued));
    const call = replayedTurn.content.find((b) => b.type === 'tool_use');
    expect(call).toMatchObject({ name: 'Read', input: { file_path: notes } });
    const answer = second.messages[second.messages.length - 1].content.find((b) => b.type === 'tool_result');
    expect(answer).toMatchObject({ tool_use_id: call!.id, content: expect.stringMatching(/Ada/) });

    // Its cache breakpoints reached the vendor, and the second turn read what the first wrote.
    expect(JSON.stringify(first)).toContain('"cache_control":{"type":"ephemeral"');
    expect(result.usage.cache_read_input_tokens).toBeGreaterThan(0);

    // Both turns billed once each, the books balanced.
    const generations = await api.db.dataSource.getRepository(GenerationEntity).findBy({ userId: account.user.id });
    expect(generations.map((g) => g.status)).toEqual(['completed', 'completed']);
    const balance = await getBalance(api.db.dataSource, account.user.id);
    expect(balance.total).toBe(100_000 - generations.reduce((n, g) => n + g.tokensSpent, 0));
    expect(await ledgerTotals(api.db.dataSource, account.user.id)).toEqual({ plan: balance.planTokens, bonus: balance.bonusTokens });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}, 120_000);
