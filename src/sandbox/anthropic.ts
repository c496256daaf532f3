import type { ServerResponse } from 'node:http';
import { SandboxHandler, SandboxRequest, sendJson } from './types';
import { failureMarkerIn, hangUntilClosed } from './failures';
import { chooseToolCall, jsonAnswer, OfferedTool, toolResultAnswer } from './tool-play';
import { checkOutputConfig, checkRequestShape, checkThinking, documentProblem } from './anthropic-checks';
import { breakpointOf, CacheUsage, MAX_BREAKPOINTS, PromptCache, PromptSegment } from './anthropic-cache';
import {
  REDACTED_THINKING_TRIGGER,
  redactThinking,
  replayProblem,
  signThinking,
  thinkingModeProblem,
  thinkingRounds,
  toolUseId,
} from './anthropic-thinking';

/**
 * In-process fake of the Anthropic Messages API (POST /v1/messages, JSON and SSE), speaking the documented wire
 * format. Replies are deterministic and say they come from the sandbox. Markers in the last user message make it
 * fail like the real API: [[fail:overloaded]] 529, [[fail:policy]] stop_reason "refusal", [[fail:timeout]] never
 * answers, [[fail:midstream]] drops the connection after a few deltas, [[fail:stream-error]] sends a mid-stream
 * `error` event (overloaded_error), [[fail:upstream]] 500 api_error.
 *
 * It thinks as the models do (anthropic-thinking.ts: signed thinking blocks, redacted thinking on Anthropic's test
 * string, replays checked) and caches prompts (anthropic-cache.ts: cache_control breakpoints, cache reads and writes in
 * the usage).
 */

export interface AnthropicSandboxOptions {
  /** Pause between two SSE events, so streaming is observable. */
  streamDelayMs?: number;
}

const FAILURES = ['overloaded', 'policy', 'timeout', 'midstream', 'stream-error', 'upstream'] as const;
type Failure = (typeof FAILURES)[number];

interface Block {
  type?: unknown;
  text?: unknown;
  source?: { type?: unknown; media_type?: unknown; data?: unknown };
  id?: unknown;
  name?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  content?: unknown;
  title?: unknown;
}
interface Message {
  role?: unknown;
  content?: unknown;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function error(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { type: 'error', error: { type, message } }, { 'request-id': 'req_sandbox' });
}

function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

function failureIn(text: string): Failure | undefined {
  return failureMarkerIn(text, FAILURES);
}

/** Checks headers and body the way the API does; answers the error itself and returns undefined when invalid. */
interface ValidRequest {
  model: string;
  maxTokens: number;
  messages: Message[];
  stream: boolean;
  tools: OfferedTool[];
  toolChoice: 'auto' | 'none' | 'required' | { name: string } | undefined;
  /** output_config.format.schema: the answer is JSON of this shape. */
  outputSchema?: Record<string, unknown>;
  /** How many rounds of thinking come before the answer (0: thinking is off). */
  thinkingRounds: number;
  /** The prompt block by block, for the prompt cache. */
  segments: PromptSegment[];
  /** Text the prompt shows beside the messages (system), for the redacted-thinking trigger. */
  system: string;
}

/** tool_result blocks answer the tool_use blocks of the assistant turn just before; the error text if not. */
function checkToolResults(messages: Message[]): string | undefined {
  for (const [i, m] of messages.entries()) {
    const results = blocksOf(m.content).filter((b) => b.type === 'tool_result');
    if (results.length === 0) continue;
    const previous = i > 0 ? blocksOf(messages[i - 1].content) : [];
    const uses = new Set(previous.filter((b) => b.type === 'tool_use').map((b) => b.id));
    const orphan = results.find((b) => !uses.has(b.tool_use_id));
    if (orphan) {
      return `messages.${i}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(orphan.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
  }
  return undefined;
}

/** tools and tool_choice as the API checks them; the error text when malformed. */
function readTools(body: Record<string, unknown>): { tools: OfferedTool[]; toolChoice: ValidRequest['toolChoice'] } | string {
  const tools: OfferedTool[] = [];
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return 'tools: Input should be a valid list';
    for (const [i, t] of (body.tools as Array<{ name?: unknown; input_schema?: unknown }>).entries()) {
      if (typeof t?.name !== 'string') return `tools.${i}.name: Field required`;
      if (!t.input_schema || typeof t.input_schema !== 'object') return `tools.${i}.input_schema: Field required`;
      tools.push({ name: t.name, parameters: t.input_schema });
    }
  }
  const choice = body.tool_choice as { type?: unknown; name?: unknown } | undefined;
  if (choice === undefined) return { tools, toolChoice: undefined };
  if (choice.type === 'auto') return { tools, toolChoice: 'auto' };
  if (choice.type === 'none') return { tools, toolChoice: 'none' };
  if (choice.type === 'any') return { tools, toolChoice: 'required' };
  if (choice.type === 'tool' && typeof choice.name === 'string') {
    if (!tools.some((t) => t.name === choice.name)) return `tool_choice: tool '${choice.name}' not found in tools`;
    return { tools, toolChoice: { name: choice.name } };
  }
  return "tool_choice: Input tag does not match any of the expected tags: 'auto', 'any', 'tool', 'none'";
}

function validate(req: SandboxRequest, res: ServerResponse): ValidRequest | undefined {
  // The API takes the key as `x-api-key`, or as `Authorization: Bearer` (what current official clients send
  // when given an auth token).
  const key = req.headers['x-api-key'];
  const bearer = /^Bearer\s+\S+/i.test(String(req.headers.authorization ?? ''));
  if ((typeof key !== 'string' || key === '') && !bearer) {
    error(res, 401, 'authentication_error', 'x-api-key header is required');
    return undefined;
  }
  if (!req.headers['anthropic-version']) {
    error(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
    return undefined;
  }
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    error(res, 400, 'invalid_request_error', 'There was an issue with the format of your request: invalid JSON');
    return undefined;
  }
  if (typeof body.model !== 'string' || body.model === '') {
    error(res, 400, 'invalid_request_error', 'model: Field required');
    return undefined;
  }
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) {
    error(res, 400, 'invalid_request_error', 'max_tokens: Field required');
    return undefined;
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    error(res, 400, 'invalid_request_error', 'messages: at least one message is required');
    return undefined;
  }
  for (const m of body.messages as Message[]) {
    if (m.role !== 'user' && m.role !== 'assistant') {
      error(
        res,
        400,
        'invalid_request_error',
        `messages: Unexpected role "${String(m.role)}". The Messages API accepts a top-level \`system\` parameter, not "system" as an input message role.`,
      );
      return undefined;
    }
  }
  if (body.temperature !== undefined && (typeof body.temperature !== 'number' || body.temperature < 0 || body.temperature > 1)) {
    error(res, 400, 'invalid_request_error', 'temperature: Input should be less than or equal to 1');
    return undefined;
  }
  const toolProblem = checkToolResults(body.messages as Message[]);
  const tools = readTools(body);
  if (toolProblem || typeof tools === 'string') {
    error(res, 400, 'invalid_request_error', toolProblem ?? (tools as string));
    return undefined;
  }
  const segments = promptSegments(body);
  const problem =
    checkRequestShape(body) ??
    documentProblem(body.messages as Message[]) ??
    checkThinking(body, tools.toolChoice) ??
    thinkingModeProblem(body.model, body) ??
    replayProblem(body.messages as Message[], (body.thinking as { type?: unknown } | undefined)?.type === 'enabled') ??
    checkOutputConfig(body.output_config) ??
    (typeof segments === 'string' ? segments : undefined);
  if (problem || typeof segments === 'string') {
    error(res, 400, 'invalid_request_error', problem ?? 'invalid request');
    return undefined;
  }
  const format = (body.output_config as { format?: { schema?: Record<string, unknown> } } | undefined)?.format;
  return {
    ...(format?.schema ? { outputSchema: format.schema } : {}),
    thinkingRounds: thinkingRounds(body),
    segments,
    system: segments
      .filter((s) => s.content.startsWith('system:'))
      .map((s) => s.content)
      .join(' '),
    model: body.model,
    maxTokens: body.max_tokens as number,
    messages: body.messages as Message[],
    stream: body.stream === true,
    ...tools,
  };
}

/** Tokens of a block as this fake counts them: text at four characters a token, 85 an image, 100 a document. */
function blockTokens(block: Block & { thinking?: unknown; data?: unknown; input_schema?: unknown; description?: unknown }): number {
  const chars = (text: unknown) => (typeof text === 'string' ? Math.ceil(text.length / 4) : 0);
  switch (block.type) {
    case 'image':
      return 85;
    case 'document':
      return 100;
    case 'tool_use':
      return chars(String(block.name ?? '') + JSON.stringify(block.input ?? {}));
    case 'tool_result':
      return blocksOf(block.content).reduce((n, b) => n + blockTokens(b), 1);
    case 'thinking':
      return chars(block.thinking);
    case 'redacted_thinking':
      return Math.ceil(String(block.data ?? '').length / 8);
    default:
      return chars(block.text);
  }
}

/** A block's content for the cache key: everything but its cache_control. */
function contentKey(kind: string, block: unknown): string {
  const { cache_control: _mark, ...rest } = (block && typeof block === 'object' ? block : {}) as Record<string, unknown>;
  return `${kind}:${JSON.stringify(rest)}`;
}

/** The prompt in cache order (tools, system, messages), one segment a block; the error text for bad breakpoints. */
function promptSegments(body: Record<string, unknown>): PromptSegment[] | string {
  const segments: PromptSegment[] = [];
  const add = (kind: string, block: unknown, tokens: number, at: string): string | undefined => {
    const ttl = breakpointOf(block, at);
    if (typeof ttl === 'object') return ttl.problem;
    segments.push({ tokens, content: contentKey(kind, block), ...(ttl ? { ttl } : {}) });
    return undefined;
  };
  const problems: Array<string | undefined> = [];
  for (const [i, tool] of (Array.isArray(body.tools) ? (body.tools as unknown[]) : []).entries()) {
    problems.push(add('tool', tool, Math.ceil(JSON.stringify(tool).length / 4), `tools.${i}`));
  }
  for (const [i, block] of blocksOf(body.system).entries()) problems.push(add('system', block, blockTokens(block), `system.${i}`));
  for (const [i, m] of (body.messages as Message[]).entries()) {
    for (const [j, block] of blocksOf(m.content).entries()) {
      problems.push(add(String(m.role), block, blockTokens(block), `messages.${i}.content.${j}`));
    }
  }
  const problem = problems.find((p) => p !== undefined);
  if (problem) return problem;
  const marks = segments.filter((s) => s.ttl !== undefined).length;
  if (marks > MAX_BREAKPOINTS) return `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${marks}.`;
  return segments;
}

function lastUserText(messages: Message[]): string {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return last
    ? blocksOf(last.content)
        .flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : []))
        .join(' ')
    : '';
}

function countBlocks(messages: Message[], type: string): number {
  return messages.reduce((n, m) => n + blocksOf(m.content).filter((b) => b.type === type).length, 0);
}

/** Blocks of a type inside the tool results of the final user turn (what a tool answered with). */
function countToolResultBlocks(messages: Message[], type: string): number {
  const results = blocksOf(messages[messages.length - 1]?.content).filter((b) => b.type === 'tool_result');
  return results.reduce((n, r) => n + blocksOf(r.content).filter((b) => b.type === type).length, 0);
}

function attachments(messages: Message[]): string {
  const said = (n: number, what: string) => (n > 0 ? [`${n} ${what}${n > 1 ? 's' : ''}`] : []);
  const all = [
    ...said(countBlocks(messages, 'image'), 'image'),
    ...said(countBlocks(messages, 'document'), 'document'),
    ...said(countBlocks(messages, 'search_result') + countToolResultBlocks(messages, 'search_result'), 'search result'),
  ];
  return all.length > 0 ? ` (with ${all.join(' and ')})` : '';
}

/** The tool_result blocks of the final user turn, with the names of the calls they answer. */
function finalToolResult(messages: Message[]): { name?: string; text: string } | undefined {
  const last = messages[messages.length - 1];
  const result = blocksOf(last?.content).find((b) => b.type === 'tool_result');
  if (!result) return undefined;
  const use =
    messages.length > 1
      ? blocksOf(messages[messages.length - 2].content).find((b) => b.type === 'tool_use' && b.id === result.tool_use_id)
      : undefined;
  const content =
    typeof result.content === 'string'
      ? result.content
      : blocksOf(result.content)
          .map((b) => (typeof b.text === 'string' ? b.text : b.type === 'search_result' ? `[search result: ${String(b.title)}]` : ''))
          .join(' ');
  return { name: typeof use?.name === 'string' ? use.name : undefined, text: content };
}

const tokenPieces = (text: string) => text.match(/\S+\s*/g) ?? [];

/** One content block of the answer; text and thinking keep their word pieces (one "token" each, one delta each). */
type AnswerBlock =
  | { type: 'thinking'; pieces: string[]; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'text'; pieces: string[] }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

interface Answer {
  blocks: AnswerBlock[];
  stopReason: string;
  outputTokens: number;
}

let toolUseCounter = 0;

/** The thinking blocks that open an answer: redacted thinking when the prompt has Anthropic's test string, then thinking. */
function thinkingBlocks(input: ValidRequest, snippet: string): AnswerBlock[] {
  if (input.thinkingRounds === 0) return [];
  const sentence = `Sandbox thinking: the user wrote "${snippet}", so I answer that. `;
  const text = sentence.repeat(input.thinkingRounds).trimEnd();
  const blocks: AnswerBlock[] = [{ type: 'thinking', pieces: tokenPieces(text), signature: signThinking(text) }];
  const prompt = `${input.system} ${JSON.stringify(input.messages)}`;
  if (prompt.includes(REDACTED_THINKING_TRIGGER)) blocks.unshift({ type: 'redacted_thinking', data: redactThinking(`hidden: ${snippet}`) });
  return blocks;
}

const outputOf = (blocks: AnswerBlock[]) =>
  blocks.reduce((n, b) => {
    if (b.type === 'thinking' || b.type === 'text') return n + b.pieces.length;
    if (b.type === 'tool_use') return n + 3 + Math.ceil(JSON.stringify(b.input).length / 4);
    return n + Math.ceil(b.data.length / 8);
  }, 0);

/**
 * The deterministic answer. A tool call says a few words first, then calls (as Claude usually does); a forced tool is
 * called at once, without text (the API prefills the call). Thinking counts toward max_tokens, as on the real API.
 */
function answer(input: ValidRequest, failure: Failure | undefined): Answer {
  if (failure === 'policy') return { blocks: [], stopReason: 'refusal', outputTokens: 0 };
  const { model, messages } = input;
  const said = lastUserText(messages).replace(/\s+/g, ' ').trim();
  const snippet = said.length > 80 ? `${said.slice(0, 80)}...` : said;
  const toolResult = finalToolResult(messages);
  const thinking = thinkingBlocks(input, snippet);
  // The model reads the user's own words: the last text block (clients put reminders before it).
  const asked = blocksOf([...messages].reverse().find((m) => m.role === 'user')?.content).filter(
    (b) => b.type === 'text' && typeof b.text === 'string',
  );
  const call = chooseToolCall(input.tools, input.toolChoice, toolResult !== undefined, String(asked[asked.length - 1]?.text ?? ''));
  if (call) {
    const forced = input.toolChoice === 'required' || typeof input.toolChoice === 'object';
    const id = toolUseId(++toolUseCounter, thinking.length > 0);
    const blocks: AnswerBlock[] = [
      ...thinking,
      ...(forced ? [] : [{ type: 'text' as const, pieces: [`Let me call ${call.name}.`] }]),
      { type: 'tool_use', id, name: call.name, input: call.arguments },
    ];
    return { blocks, stopReason: 'tool_use', outputTokens: outputOf(blocks) };
  }
  let text = toolResult
    ? toolResultAnswer(model, toolResult.name, toolResult.text)
    : `Sandbox reply from ${model}: you said "${snippet}"${attachments(messages)}. This text comes from the built-in sandbox, not from Anthropic.`;
  if (input.outputSchema) text = jsonAnswer(input.outputSchema, text);
  const room = Math.max(0, input.maxTokens - outputOf(thinking));
  const all = input.outputSchema ? [text] : (text.match(/\S+\s*/g) ?? [text]);
  const pieces = all.slice(0, room);
  const blocks: AnswerBlock[] = [...thinking, ...(pieces.length > 0 ? [{ type: 'text' as const, pieces }] : [])];
  return { blocks, stopReason: all.length > room ? 'max_tokens' : 'end_turn', outputTokens: outputOf(blocks) };
}

function wireBlock(block: AnswerBlock): Record<string, unknown> {
  switch (block.type) {
    case 'thinking':
      return { type: 'thinking', thinking: block.pieces.join(''), signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'text':
      return { type: 'text', text: block.pieces.join('') };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
  }
}

/** The events of one block: its start, its deltas (thinking ends with its signature), its stop. */
function blockEvents(block: AnswerBlock, index: number): Record<string, unknown>[] {
  const delta = (d: Record<string, unknown>) => ({ type: 'content_block_delta', index, delta: d });
  const start = (content_block: Record<string, unknown>) => ({ type: 'content_block_start', index, content_block });
  const stop = { type: 'content_block_stop', index };
  switch (block.type) {
    case 'thinking':
      return [
        start({ type: 'thinking', thinking: '', signature: '' }),
        ...block.pieces.map((thinking) => delta({ type: 'thinking_delta', thinking })),
        delta({ type: 'signature_delta', signature: block.signature }),
        stop,
      ];
    case 'redacted_thinking':
      return [start({ type: 'redacted_thinking', data: block.data }), stop];
    case 'text':
      return [start({ type: 'text', text: '' }), ...block.pieces.map((text) => delta({ type: 'text_delta', text })), stop];
    case 'tool_use': {
      const json = JSON.stringify(block.input);
      const fragments: Record<string, unknown>[] = [delta({ type: 'input_json_delta', partial_json: '' })];
      for (let i = 0; i < json.length; i += 8) fragments.push(delta({ type: 'input_json_delta', partial_json: json.slice(i, i + 8) }));
      return [start({ type: 'tool_use', id: block.id, name: block.name, input: {} }), ...fragments, stop];
    }
  }
}

let counter = 0;

async function writeEvents(res: ServerResponse, events: Record<string, unknown>[], delayMs: number): Promise<boolean> {
  for (const ev of events) {
    if (res.destroyed) return false;
    res.write(`event: ${String(ev.type)}\ndata: ${JSON.stringify(ev)}\n\n`);
    await sleep(delayMs);
  }
  return !res.destroyed;
}

function sendMessage(res: ServerResponse, id: string, input: ValidRequest, out: Answer, cache: CacheUsage): void {
  sendJson(
    res,
    200,
    {
      id,
      type: 'message',
      role: 'assistant',
      model: input.model,
      content: out.blocks.map(wireBlock),
      stop_reason: out.stopReason,
      stop_sequence: null,
      usage: { ...cache, output_tokens: out.outputTokens },
    },
    { 'request-id': `req_sandbox_${counter}` },
  );
}

/**
 * The documented event sequence: message_start, each block's events (a ping after the first block opens),
 * message_delta with the final usage, message_stop. `midstream` drops the connection a few deltas into the answer
 * text; `stream-error` sends an `error` event there instead.
 */
async function streamMessage(
  res: ServerResponse,
  id: string,
  input: ValidRequest,
  out: Answer,
  cache: CacheUsage,
  failure: Failure | undefined,
  delayMs: number,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': `req_sandbox_${counter}`,
  });
  res.flushHeaders();
  const message = { id, type: 'message', role: 'assistant', content: [], model: input.model, stop_reason: null, stop_sequence: null };
  const events: Record<string, unknown>[] = [{ type: 'message_start', message: { ...message, usage: { ...cache, output_tokens: 1 } } }];
  const cutAt = out.blocks.findIndex((b) => b.type === 'text');
  for (const [index, block] of out.blocks.entries()) {
    const own = blockEvents(block, index);
    if (index === 0) own.splice(1, 0, { type: 'ping' });
    if (index === cutAt && (failure === 'midstream' || failure === 'stream-error')) {
      // The block's start (and the ping), then three deltas.
      if (!(await writeEvents(res, [...events, ...own.slice(0, (index === 0 ? 2 : 1) + 3)], delayMs))) return;
      if (failure === 'midstream') return void res.socket?.destroy();
      await writeEvents(res, [{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }], delayMs);
      return void res.end();
    }
    events.push(...own);
  }
  events.push(
    {
      type: 'message_delta',
      delta: { stop_reason: out.stopReason, stop_sequence: null },
      usage: { ...cache, output_tokens: out.outputTokens },
    },
    { type: 'message_stop' },
  );
  if (await writeEvents(res, events, delayMs)) res.end();
}

export function createAnthropicSandbox(options: AnthropicSandboxOptions = {}): SandboxHandler {
  const delayMs = options.streamDelayMs ?? 5;
  const cache = new PromptCache();
  return async (req, res) => {
    if (req.method !== 'POST' || req.path !== '/v1/messages') {
      error(res, 404, 'not_found_error', 'Not found');
      return;
    }
    const input = validate(req, res);
    if (!input) return;
    const failure = failureIn(lastUserText(input.messages));

    if (failure === 'overloaded') return error(res, 529, 'overloaded_error', 'Overloaded');
    if (failure === 'upstream') return error(res, 500, 'api_error', 'Internal server error');
    if (failure === 'timeout') return hangUntilClosed(res);
    if (failure === 'midstream' && !input.stream) {
      res.socket?.destroy();
      return;
    }
    const id = `msg_sandbox_${++counter}`;
    const usage = cache.account(input.model, input.segments, 3 + input.messages.length * 4);
    const out = answer(input, failure);
    if (!input.stream) return sendMessage(res, id, input, out, usage);
    await streamMessage(res, id, input, out, usage, failure, delayMs);
  };
}

export const anthropicSandbox: SandboxHandler = createAnthropicSandbox();
