import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openaiSandbox } from '../../src/sandbox/openai';
import type { SandboxHandler } from '../../src/sandbox/types';
import { ApiHarness, startApi } from '../api/harness';

// Issue 35: Codex CLI (the real client, @openai/codex pinned in devDependencies) works unchanged against the service
// on the sandbox: `codex exec` with a custom provider on `wire_api = "responses"` completes a task that calls a tool,
// on an OpenAI model (its own model name: the "responses-lite" form with additional_tools and namespace tools), a
// Claude model and a Gemini model (function and namespace tools, the hosted web search). Hermetic: CODEX_HOME and
// HOME in a temporary directory, every outbound connection but the service's refused by a dead proxy.

const CODEX = path.join(__dirname, '../../node_modules/.bin/codex');

const openaiBodies: Record<string, unknown>[] = [];
let api: ApiHarness;
let key: string;
beforeAll(async () => {
  const watched: SandboxHandler = (req, res) => {
    if (req.method === 'POST' && req.path.endsWith('/responses'))
      openaiBodies.push(JSON.parse(req.body.toString('utf8')) as Record<string, unknown>);
    return openaiSandbox(req, res);
  };
  api = await startApi({}, { handlers: { openai: watched } });
  key = await api.apiKey(await api.account('vip', { planTokens: 200_000 }));
});
afterAll(() => api.close());

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  workdir: string;
}

/** `codex exec` in a fresh home and work directory, on `model` through the service, with a shell it may use. */
function codexExec(model: string, prompt: string): Promise<Run> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'codex-home-'));
  const workdir = fs.mkdtempSync(path.join(os.tmpdir(), 'codex-work-'));
  fs.writeFileSync(
    path.join(home, 'config.toml'),
    [
      `model = "${model}"`,
      'model_provider = "nebula"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      'check_for_update_on_startup = false',
      '[model_providers.nebula]',
      'name = "Nebula"',
      `base_url = "${api.baseUrl}/v1"`,
      'env_key = "NEBULA_API_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
    ].join('\n'),
  );
  const dead = 'http://127.0.0.1:9';
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    CODEX_HOME: home,
    NEBULA_API_KEY: key,
    HTTP_PROXY: dead,
    HTTPS_PROXY: dead,
    ALL_PROXY: dead,
    NO_PROXY: '127.0.0.1,localhost',
    RUST_LOG: 'error',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(CODEX, ['exec', '--skip-git-repo-check', '-C', workdir, prompt], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, workdir }));
  });
}

test.each([
  ['claude-sonnet-4-6', 'claude'],
  ['gemini-3.5-flash', 'gemini'],
])(
  '%s: codex runs the shell command the model calls for, then answers with its output',
  async (model, tag) => {
    const run = await codexExec(model, `touch codex-proof-${tag}.txt`);
    expect({ code: run.code, stderr: run.stderr.split('\n').filter((l) => /error/i.test(l)) }).toEqual({ code: 0, stderr: [] });
    expect(fs.existsSync(path.join(run.workdir, `codex-proof-${tag}.txt`))).toBe(true);
    expect(run.stdout).toMatch(/the tool exec_command returned/);
  },
  60_000,
);

test("gpt-6.1-terra (Codex's own model family): the responses-lite request reaches OpenAI's Responses API with its tools", async () => {
  openaiBodies.length = 0;
  const run = await codexExec('gpt-6.1-terra', 'await tools.exec_command({ cmd: "touch codex-proof-gpt.txt" })');
  expect({ code: run.code, stderr: run.stderr.split('\n').filter((l) => /error/i.test(l)) }).toEqual({ code: 0, stderr: [] });
  expect(openaiBodies[0]).toMatchObject({
    model: 'gpt-6.1-terra',
    store: false,
    include: ['reasoning.encrypted_content'],
    text: { verbosity: 'low' },
    tools: expect.arrayContaining([expect.objectContaining({ type: 'namespace', name: 'functions' })]),
  });
  expect(run.stdout).toMatch(/the tool exec returned/);
  expect(fs.existsSync(path.join(run.workdir, 'codex-proof-gpt.txt'))).toBe(true);
}, 60_000);
