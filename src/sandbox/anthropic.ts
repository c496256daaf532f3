import type { ServerResponse } from 'node:http';
import { SandboxHandler, SandboxRequest, sendJson } from './types';
import { failureMarkerIn, hangUntilClosed } from './failures';
import { chooseToolCall, jsonAnswer, OfferedTool, toolResultAnswer } from './tool-play';
import { checkOutputConfig, checkRequestShape, checkThinking, documentProblem } from './anthropic-checks';

/**
 * In-process fake of the Anthropic Messages API (POST /v1/messages, JSON and SSE), speaking the documented wire
 * format. Replies are deterministic and say they come from the sandbox. Markers in the last user message make it
 * fail like the real API: [[fail:overloaded]] 529, [[fail:policy]] stop_reason "refusal", [[fail:timeout]] never
 * answers, [[fail:midstream]] drops the connection after a few deltas, [[fail:stream-error]] sends a mid-stream
 * `error` event (overloaded_error), [[fail:upstream]] 500 api_error.
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
  system: string;
  stream: boolean;
  tools: OfferedTool[];
  toolChoice: 'auto' | 'none' | 'required' | { name: string } | undefined;
  /** output_config.format.schema: the answer is JSON of this shape. */
  outputSchema?: Record<string, unknown>;
  /** Extended thinking is on: a thinking block comes before the answer. */
  thinking: boolean;
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
  const problem =
    checkRequestShape(body) ??
    documentProblem(body.messages as Message[]) ??
    checkThinking(body, tools.toolChoice) ??
    checkOutputConfig(body.output_config);
  if (problem) {
    error(res, 400, 'invalid_request_error', problem);
    return undefined;
  }
  const format = (body.output_config as { format?: { schema?: Record<string, unknown> } } | undefined)?.format;
  return {
    ...(format?.schema ? { outputSchema: format.schema } : {}),
    thinking: (body.thinking as { type?: unknown } | undefined)?.type === 'enabled',
    model: body.model,
    maxTokens: body.max_tokens as number,
    messages: body.messages as Message[],
    system: typeof body.system === 'string' ? body.system : '',
    stream: body.stream === true,
    ...tools,
  };
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

const countImages = (messages: Message[]) => countBlocks(messages, 'image');

function attachments(messages: Message[]): string {
  const said = (n: number, what: string) => (n > 0 ? [`${n} ${what}${n > 1 ? 's' : ''}`] : []);
  const all = [...said(countImages(messages), 'image'), ...said(countBlocks(messages, 'document'), 'document')];
  return all.length > 0 ? ` (with ${all.join(' and ')})` : '';
}

function inputTokens(messages: Message[], system: number): number {
  const chars = messages.reduce(
    (n, m) => n + blocksOf(m.content).reduce((k, b) => k + (typeof b.text === 'string' ? b.text.length : 0), 0),
    system,
  );
  return Math.max(1, Math.ceil(chars / 4)) + countImages(messages) * 85;
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
          .map((b) => (typeof b.text === 'string' ? b.text : ''))
          .join(' ');
  return { name: typeof use?.name === 'string' ? use.name : undefined, text: content };
}

/** The deterministic reply, cut into word pieces (one "token" each) and truncated at max_tokens. */
function reply(input: ValidRequest): { pieces: string[]; stopReason: string; thinking: string[] } {
  const { model, messages } = input;
  const said = lastUserText(messages).replace(/\s+/g, ' ').trim();
  const snippet = said.length > 80 ? `${said.slice(0, 80)}...` : said;
  const toolResult = finalToolResult(messages);
  let text = toolResult
    ? toolResultAnswer(model, toolResult.name, toolResult.text)
    : `Sandbox reply from ${model}: you said "${snippet}"${attachments(messages)}. This text comes from the built-in sandbox, not from Anthropic.`;
  if (input.outputSchema) text = jsonAnswer(input.outputSchema, text);
  // Thinking counts toward max_tokens, as on the real API.
  const thinking = input.thinking ? tokenPieces(`Sandbox thinking: the user wrote "${snippet}", so I answer that.`) : [];
  const room = Math.max(0, input.maxTokens - thinking.length);
  const pieces = input.outputSchema ? [text] : (text.match(/\S+\s*/g) ?? [text]);
  if (pieces.length > room) return { pieces: pieces.slice(0, room), stopReason: 'max_tokens', thinking };
  return { pieces, stopReason: 'end_turn', thinking };
}

const tokenPieces = (text: string) => text.match(/\S+\s*/g) ?? [];
const SIGNATURE = 'c2FuZGJveC10aGlua2luZy1zaWduYXR1cmU=';

let counter = 0;

async function writeEvents(res: ServerResponse, events: Record<string, unknown>[], delayMs: number): Promise<void> {
  for (const ev of events) {
    if (res.destroyed) return;
    res.write(`event: ${String(ev.type)}\ndata: ${JSON.stringify(ev)}\n\n`);
    await sleep(delayMs);
  }
}

let toolUseCounter = 0;

/**
 * A turn that says a few words, then calls the tool (as Claude usually does): a text block, then a tool_use block.
 * A forced tool (tool_choice any or tool) is called at once, without text: the API prefills the call.
 */
async function answerToolUse(
  res: ServerResponse,
  id: string,
  promptTokens: number,
  input: ValidRequest,
  call: { name: string; arguments: Record<string, unknown> },
  delayMs: number,
): Promise<void> {
  toolUseCounter += 1;
  const toolId = `toolu_sandbox${toolUseCounter}${Date.now().toString(36)}`;
  const forced = input.toolChoice === 'required' || typeof input.toolChoice === 'object';
  const preface = forced ? undefined : `Let me call ${call.name}.`;
  const at = preface === undefined ? 0 : 1;
  const json = JSON.stringify(call.arguments);
  const outputTokens = 3 + Math.ceil(json.length / 4);
  const headers = { 'request-id': `req_sandbox_${counter}` };
  if (!input.stream) {
    sendJson(
      res,
      200,
      {
        id,
        type: 'message',
        role: 'assistant',
        model: input.model,
        content: [
          ...(preface === undefined ? [] : [{ type: 'text', text: preface }]),
          { type: 'tool_use', id: toolId, name: call.name, input: call.arguments },
        ],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: promptTokens, output_tokens: outputTokens },
      },
      headers,
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
  const fragments: Record<string, unknown>[] = [];
  for (let i = 0; i < json.length; i += 8) {
    fragments.push({ type: 'content_block_delta', index: at, delta: { type: 'input_json_delta', partial_json: json.slice(i, i + 8) } });
  }
  const prefaceEvents =
    preface === undefined
      ? []
      : [
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: preface } },
          { type: 'content_block_stop', index: 0 },
        ];
  await writeEvents(
    res,
    [
      {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          content: [],
          model: input.model,
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: promptTokens, output_tokens: 1 },
        },
      },
      ...prefaceEvents,
      { type: 'content_block_start', index: at, content_block: { type: 'tool_use', id: toolId, name: call.name, input: {} } },
      { type: 'content_block_delta', index: at, delta: { type: 'input_json_delta', partial_json: '' } },
      ...fragments,
      { type: 'content_block_stop', index: at },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: outputTokens } },
      { type: 'message_stop' },
    ],
    delayMs,
  );
  res.end();
}

export function createAnthropicSandbox(options: AnthropicSandboxOptions = {}): SandboxHandler {
  const delayMs = options.streamDelayMs ?? 5;
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
    const promptTokens = inputTokens(input.messages, input.system.length);
    const call =
      failure === 'policy'
        ? undefined
        : chooseToolCall(input.tools, input.toolChoice, finalToolResult(input.messages) !== undefined, lastUserText(input.messages));
    if (call) return answerToolUse(res, id, promptTokens, input, call, delayMs);
    const { pieces, stopReason, thinking } =
      failure === 'policy' ? { pieces: [] as string[], stopReason: 'refusal', thinking: [] as string[] } : reply(input);
    const outputTokens = pieces.length + thinking.length;

    if (!input.stream) {
      const thought = thinking.length > 0 ? [{ type: 'thinking', thinking: thinking.join(''), signature: SIGNATURE }] : [];
      sendJson(
        res,
        200,
        {
          id,
          type: 'message',
          role: 'assistant',
          model: input.model,
          content: [...thought, ...(pieces.length > 0 ? [{ type: 'text', text: pieces.join('') }] : [])],
          stop_reason: stopReason,
          stop_sequence: null,
          usage: { input_tokens: promptTokens, output_tokens: outputTokens },
        },
        { 'request-id': `req_sandbox_${counter}` },
      );
      return;
    }

    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': `req_sandbox_${counter}`,
    });
    res.flushHeaders();
    const start = {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        content: [],
        model: input.model,
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: promptTokens, output_tokens: 1 },
      },
    };
    if (failure === 'policy') {
      await writeEvents(
        res,
        [
          start,
          { type: 'message_delta', delta: { stop_reason: 'refusal', stop_sequence: null }, usage: { output_tokens: 0 } },
          { type: 'message_stop' },
        ],
        delayMs,
      );
      res.end();
      return;
    }
    // With thinking on, the thinking block is block 0 and the answer block 1.
    const at = thinking.length > 0 ? 1 : 0;
    const thinkingEvents =
      thinking.length > 0
        ? [
            { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
            ...thinking.map((t) => ({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: t } })),
            { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } },
            { type: 'content_block_stop', index: 0 },
          ]
        : [];
    const deltas = pieces.map((text) => ({ type: 'content_block_delta', index: at, delta: { type: 'text_delta', text } }));
    await writeEvents(
      res,
      [start, ...thinkingEvents, { type: 'content_block_start', index: at, content_block: { type: 'text', text: '' } }, { type: 'ping' }],
      delayMs,
    );
    if (failure === 'midstream' || failure === 'stream-error') {
      await writeEvents(res, deltas.slice(0, 3), delayMs);
      if (failure === 'midstream') {
        res.socket?.destroy();
        return;
      }
      await writeEvents(res, [{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }], delayMs);
      res.end();
      return;
    }
    await writeEvents(
      res,
      [
        ...deltas,
        { type: 'content_block_stop', index: at },
        { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } },
        { type: 'message_stop' },
      ],
      delayMs,
    );
    res.end();
  };
}

export const anthropicSandbox: SandboxHandler = createAnthropicSandbox();
