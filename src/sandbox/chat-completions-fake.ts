import type { ServerResponse } from 'node:http';
import { sendBytes, sendJson, type SandboxHandler, type SandboxRequest } from './types';
import { failureMarkerIn, hangUntilClosed } from './failures';
import { chooseToolCall, jsonAnswer, OfferedTool, toolResultAnswer } from './tool-play';
import type { AutomaticPromptCache, PrefixPart } from './prefix-cache';

// Shared pieces of the OpenAI, xAI and DeepSeek fakes: all three speak Chat Completions and differ in
// error bodies, reasoning output and small framing details, which each vendor's profile supplies.

export interface ErrorReply {
  status: number;
  body: unknown;
}

/** How a vendor words its errors (status and JSON body). */
export interface VendorErrors {
  missingKey(): ErrorReply;
  invalidKey(key: string): ErrorReply;
  rateLimited(model: string): ErrorReply;
  overloaded(): ErrorReply;
  serverError(): ErrorReply;
  badRequest(message: string, param?: string, code?: string): ErrorReply;
  notFound(method: string, path: string): ErrorReply;
  /** DeepSeek-style 402; vendors without one answer a rate limit. */
  insufficientBalance?(): ErrorReply;
}

export type FailureMarker = 'overloaded' | 'rate_limit' | 'server' | 'policy' | 'timeout' | 'midstream' | 'balance';

const MARKERS: readonly FailureMarker[] = ['overloaded', 'rate_limit', 'server', 'policy', 'timeout', 'midstream', 'balance'];

/** `[[fail:overloaded]]` and friends in a prompt ask the fake to fail the way the vendor would. */
export function failureMarker(text: string | undefined): FailureMarker | undefined {
  return failureMarkerIn(text, MARKERS);
}

export function sendError(res: ServerResponse, reply: ErrorReply): void {
  sendJson(res, reply.status, reply.body);
}

/** Pause between stream chunks: 5 ms unless SANDBOX_CHUNK_DELAY_MS says otherwise. */
export function defaultChunkDelayMs(): number {
  const raw = process.env.SANDBOX_CHUNK_DELAY_MS;
  const value = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : 5;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export { hangUntilClosed };

/** Starts a 200 answer, sends part of it, then breaks the connection. */
export function dropMidBody(res: ServerResponse, contentType: string, fullBody: string): void {
  res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(fullBody) });
  res.write(fullBody.slice(0, Math.floor(fullBody.length / 2)));
  setTimeout(() => res.destroy(), 10);
}

/** `//chat/completions/` → `/chat/completions`: tolerates base URLs that end in a slash. */
export function normalizePath(path: string): string {
  const collapsed = path.replace(/\/{2,}/g, '/');
  return collapsed.length > 1 ? collapsed.replace(/\/$/, '') : collapsed;
}

/** The bearer key, or the vendor's 401/400 reply when it is missing or refused. */
export function checkBearer(req: SandboxRequest, errors: VendorErrors): ErrorReply | undefined {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header.trim()) : null;
  if (!match) return errors.missingKey();
  // Any key works in the sandbox except ones that say they are invalid, so tests can provoke the refusal.
  if (/^(invalid|wrong|bad)/i.test(match[1])) return errors.invalidKey(match[1]);
  return undefined;
}

export function maskKey(key: string): string {
  return key.length <= 6 ? '****' : `${key.slice(0, 3)}***${key.slice(-2)}`;
}

export function parseJsonObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Answers the generic failures every endpoint shares; true when it did. */
export function answerGenericFailure(marker: FailureMarker | undefined, errors: VendorErrors, model: string, res: ServerResponse): boolean {
  if (marker === 'overloaded') sendError(res, errors.overloaded());
  else if (marker === 'rate_limit') sendError(res, errors.rateLimited(model));
  else if (marker === 'server') sendError(res, errors.serverError());
  else if (marker === 'balance') sendError(res, errors.insufficientBalance?.() ?? errors.rateLimited(model));
  else return false;
  return true;
}

// ---------- small in-memory file host, for vendors that hand out result URLs ----------

const hostedFiles = new Map<string, { data: Buffer; mime: string }>();
let hostedCounter = 0;
const MAX_HOSTED = 64;

/** Keeps a result for a later GET and returns its id; the oldest files are forgotten first. */
export function hostFile(data: Buffer, mime: string): string {
  hostedCounter += 1;
  const id = `sandbox-${Date.now().toString(36)}-${hostedCounter}`;
  hostedFiles.set(id, { data, mime });
  if (hostedFiles.size > MAX_HOSTED) hostedFiles.delete(hostedFiles.keys().next().value as string);
  return id;
}

export function hostedFile(id: string): { data: Buffer; mime: string } | undefined {
  return hostedFiles.get(id);
}

// ---------- request routing ----------

/**
 * The front door of an OpenAI-style fake: GET `/v1/sandbox-files/<id>` serves a hosted result without a key
 * (the vendors hand out signed links), the POST `routes` need a bearer key, anything else is the vendor's 404.
 */
export function routeVendorRequests(errors: VendorErrors, routes: ReadonlyMap<string, SandboxHandler>): SandboxHandler {
  return async (req, res) => {
    const path = normalizePath(req.path);
    const file = /^\/v1\/sandbox-files\/([\w-]+)$/.exec(path);
    if (req.method === 'GET' && file) {
      const hosted = hostedFile(file[1]);
      return hosted ? sendBytes(res, 200, hosted.data, hosted.mime) : sendError(res, errors.notFound(req.method, path));
    }
    const handler = req.method === 'POST' ? routes.get(path) : undefined;
    if (!handler) return sendError(res, errors.notFound(req.method, path));
    const denied = checkBearer(req, errors);
    if (denied) return sendError(res, denied);
    await handler(req, res);
  };
}

// ---------- POST /chat/completions ----------

export interface ChatFakeProfile {
  vendor: 'openai' | 'xai' | 'deepseek';
  errors: VendorErrors;
  /** Pause between two stream chunks, so streaming is observable. */
  chunkDelayMs: number;
  /** How the model reasons (given the request): hidden (token count only), visible (`reasoning_content`), or not at all. */
  reasoning(model: string, body: Record<string, unknown>): 'hidden' | 'visible' | undefined;
  /** Whether `file` content parts (PDF documents as base64 `file_data`) are read. */
  acceptsFiles?: boolean;
  /** xAI reports reasoning tokens beside completion tokens rather than inside them. */
  reasoningTokensOutsideCompletion: boolean;
  /** Vendor-specific request checks (unsupported parameters and the like). */
  validate?(body: Record<string, unknown>): ErrorReply | undefined;
  /** A model that refuses flagged prompts with an HTTP error instead of a `content_filter` finish. */
  policyError?(model: string): ErrorReply | undefined;
  /** DeepSeek keeps queued requests alive with blank lines / `: keep-alive` comments. */
  keepAlive?: boolean;
  /**
   * The vendor's automatic prompt cache and how its usage reports hits: `prompt_tokens_details.cached_tokens` (OpenAI,
   * xAI) or `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens` (DeepSeek); `keyed`: `prompt_cache_key` routes.
   */
  promptCache?: { cache: AutomaticPromptCache; reports: 'details' | 'hit-miss'; keyed: boolean };
  systemFingerprint: string | null;
}

interface ParsedMessage {
  role: string;
  text: string;
  images: number;
  documents?: number;
  /** tool messages: the name of the function whose result this is. */
  toolName?: string;
}

/** Assistant tool calls and tool answers, checked the way the API checks them; the tool name, or an error text. */
function checkToolTurn(i: number, m: Record<string, unknown>, calls: Map<string, string>): string | undefined | { toolName: string } {
  if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
    for (const call of m.tool_calls as Array<{ id?: unknown; function?: { name?: unknown } }>) {
      if (typeof call?.id !== 'string' || typeof call.function?.name !== 'string')
        return `messages[${i}].tool_calls: each call needs an id and a function name`;
      calls.set(call.id, call.function.name);
    }
  }
  if (m.role === 'tool') {
    const name = typeof m.tool_call_id === 'string' ? calls.get(m.tool_call_id) : undefined;
    if (name === undefined)
      return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
    return { toolName: name };
  }
  return undefined;
}

/** A `file` part: a base64 PDF as a `data:` URI with its filename, the only kind sent inline. */
function filePartProblem(i: number, part: Record<string, unknown>): string | undefined {
  const file = part.file as { file_data?: unknown; filename?: unknown; file_id?: unknown } | undefined;
  if (!file || typeof file !== 'object') return `Missing required parameter: 'messages[${i}].content[].file'.`;
  if (typeof file.file_id === 'string') return `Invalid 'messages[${i}].content[].file.file_id': no such file.`;
  if (typeof file.file_data !== 'string') return `Missing required parameter: 'messages[${i}].content[].file.file_data'.`;
  if (typeof file.filename !== 'string' || !file.filename) return `Missing required parameter: 'messages[${i}].content[].file.filename'.`;
  const uri = /^data:application\/pdf;base64,(.*)$/s.exec(file.file_data);
  const bytes = uri ? Buffer.from(uri[1], 'base64') : Buffer.alloc(0);
  if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-')
    return `Invalid file data: 'messages[${i}].content[].file.file_data'. Expected a base64-encoded PDF data URL.`;
  return undefined;
}

function parseMessages(raw: unknown, acceptsFiles: boolean): ParsedMessage[] | string {
  if (!Array.isArray(raw) || raw.length === 0) return "'messages' must be a non-empty array";
  const out: ParsedMessage[] = [];
  const calls = new Map<string, string>();
  for (const [i, m] of raw.entries()) {
    if (!m || typeof m !== 'object') return `messages[${i}] must be an object`;
    const { role, content } = m as { role?: unknown; content?: unknown };
    if (typeof role !== 'string') return `messages[${i}].role is required`;
    const tool = checkToolTurn(i, m as Record<string, unknown>, calls);
    if (typeof tool === 'string') return tool;
    if (tool) {
      out.push({ role, text: typeof content === 'string' ? content : JSON.stringify(content), images: 0, toolName: tool.toolName });
    } else if (
      (content === null || content === undefined) &&
      role === 'assistant' &&
      Array.isArray((m as { tool_calls?: unknown }).tool_calls)
    ) {
      out.push({ role, text: '', images: 0 });
    } else if (typeof content === 'string') {
      out.push({ role, text: content, images: 0 });
    } else if (Array.isArray(content)) {
      let text = '';
      let images = 0;
      let documents = 0;
      for (const part of content as Array<Record<string, unknown>>) {
        if (part?.type === 'text' && typeof part.text === 'string') text += (text ? '\n' : '') + part.text;
        else if (part?.type === 'file' && acceptsFiles) {
          const problem = filePartProblem(i, part);
          if (problem) return problem;
          documents += 1;
        } else if (part?.type === 'image_url') {
          const url = (part.image_url as { url?: unknown } | undefined)?.url;
          if (typeof url !== 'string' || !/^(data:image\/[a-z+.-]+;base64,|https?:\/\/)/.test(url)) {
            return `messages[${i}]: image_url.url must be an http(s) URL or a base64 image data URI`;
          }
          images += 1;
        } else return `messages[${i}]: unsupported content part`;
      }
      out.push({ role, text, images, ...(documents > 0 ? { documents } : {}) });
    } else return `messages[${i}].content must be a string or an array of content parts`;
  }
  return out;
}

/** Word-sized pieces; each counts as one token and is one stream delta. */
export function tokenPieces(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [];
}

const messageTokens = (m: ParsedMessage) => Math.ceil(m.text.length / 4) + 4 + m.images * 85;

function promptTokens(messages: ParsedMessage[]): number {
  return messages.reduce((sum, m) => sum + messageTokens(m), 3);
}

/** The prompt's cached tokens, by the vendor's automatic cache (the tools, then each message, make the prefix). */
function cachedTokens(profile: ChatFakeProfile, model: string, messages: ParsedMessage[], body: Record<string, unknown>): number {
  const cache = profile.promptCache;
  if (!cache) return 0;
  const parts: PrefixPart[] = [
    { content: `tools:${JSON.stringify(body.tools ?? [])}`, tokens: 3 },
    ...messages.map((m) => ({ content: `${m.role}:${m.text}:${m.images}:${m.documents ?? 0}`, tokens: messageTokens(m) })),
  ];
  const key = cache.keyed && typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : '';
  return cache.cache.account(`${model}\n${key}`, parts, promptTokens(messages));
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 60 ? `${flat.slice(0, 60)}...` : flat;
}

interface Plan {
  model: string;
  answer: string[];
  reasoning: string[];
  reasoningMode: 'hidden' | 'visible' | undefined;
  finish: 'stop' | 'length' | 'content_filter' | 'tool_calls';
  prompt: number;
  /** Of `prompt`, tokens read from the prompt cache. */
  cached: number;
  toolCall?: { id: string; name: string; arguments: string };
}

/** What the request asks of the model besides a plain answer. */
interface Asked {
  tools: OfferedTool[];
  toolChoice: 'auto' | 'none' | 'required' | { name: string } | undefined;
  json: { schema?: unknown } | undefined;
  /** The request body, for vendor-specific reasoning switches. */
  body: Record<string, unknown>;
}

let callCounter = 0;

function plan(
  profile: ChatFakeProfile,
  model: string,
  messages: ParsedMessage[],
  limit: number | undefined,
  policy: boolean,
  asked: Asked,
  choice = 0,
): Plan {
  const last = [...messages].reverse().find((m) => m.role === 'user') ?? messages[messages.length - 1];
  const final = messages[messages.length - 1];
  const docs = last.documents ?? 0;
  const seen =
    (last.images ? ` I received ${last.images} image${last.images > 1 ? 's' : ''}.` : '') +
    (docs ? ` I received ${docs} document${docs > 1 ? 's' : ''}.` : '');
  const reasoningMode = profile.reasoning(model, asked.body);
  const prompt = promptTokens(messages);
  const cached = cachedTokens(profile, model, messages, asked.body);
  if (policy) return { model, answer: [], reasoning: [], reasoningMode, finish: 'content_filter', prompt, cached };
  const call = chooseToolCall(asked.tools, asked.toolChoice, final.role === 'tool', last.text);
  if (call) {
    callCounter += 1;
    const id = `call_sandbox${callCounter}${Date.now().toString(36)}`;
    // A reasoning model thinks before it calls, too.
    const thought = `Sandbox reasoning: to answer "${excerpt(last.text)}" I call ${call.name}.`;
    return {
      model,
      answer: [],
      reasoning: reasoningMode ? reasoningPieces(thought, asked.body.reasoning_effort) : [],
      reasoningMode,
      finish: 'tool_calls',
      prompt,
      cached,
      toolCall: { id, name: call.name, arguments: JSON.stringify(call.arguments) },
    };
  }
  let answerText =
    final.role === 'tool'
      ? toolResultAnswer(model, final.toolName, final.text)
      : `Sandbox reply${choice > 0 ? ` #${choice + 1}` : ''} from ${model}: you said "${excerpt(last.text)}".${seen} This text comes from the built-in sandbox, not a real model.`;
  if (asked.json) answerText = jsonAnswer(asked.json.schema, answerText);
  const reasoningText = `Sandbox reasoning: the user wrote "${excerpt(last.text)}", so I echo it back.`;
  let answer = tokenPieces(answerText);
  let reasoning = reasoningMode ? reasoningPieces(reasoningText, asked.body.reasoning_effort) : [];
  let finish: Plan['finish'] = 'stop';
  if (limit !== undefined) {
    // Reasoning spends the same budget first (except at xAI, which counts it apart).
    const budget = profile.reasoningTokensOutsideCompletion ? limit : Math.max(0, limit - reasoning.length);
    if (!profile.reasoningTokensOutsideCompletion && reasoning.length > limit) reasoning = reasoning.slice(0, limit);
    if (answer.length > budget) {
      answer = answer.slice(0, budget);
      finish = 'length';
    }
  }
  return { model, answer, reasoning, reasoningMode, finish, prompt, cached };
}

/** How long the sandbox model reasons: an explicit effort scales it (minimal, none: not at all), so a test sees it arrive. */
function reasoningPieces(text: string, effort: unknown): string[] {
  const once = tokenPieces(text);
  const times: Record<string, number> = { none: 0, minimal: 0, low: 1, medium: 2, high: 3, max: 4 };
  const n = typeof effort === 'string' && effort in times ? times[effort] : 1;
  return Array.from({ length: n }, () => once).flat();
}

function usageOf(profile: ChatFakeProfile, plans: Plan[]): Record<string, unknown> {
  let answerTokens = 0;
  let reasoningTokens = 0;
  for (const p of plans) {
    answerTokens += p.answer.length + (p.toolCall ? Math.ceil((p.toolCall.name.length + p.toolCall.arguments.length) / 4) : 0);
    reasoningTokens += p.reasoning.length;
  }
  const prompt = plans[0].prompt;
  const completion = profile.reasoningTokensOutsideCompletion ? answerTokens : answerTokens + reasoningTokens;
  const cache =
    profile.promptCache?.reports === 'hit-miss'
      ? { prompt_cache_hit_tokens: plans[0].cached, prompt_cache_miss_tokens: prompt - plans[0].cached }
      : profile.promptCache
        ? { prompt_tokens_details: { cached_tokens: plans[0].cached } }
        : {};
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + answerTokens + reasoningTokens,
    ...cache,
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
}

/** Log probabilities of answer pieces, as `logprobs.content` carries them: the piece, then `top` likely alternatives. */
function logprobsOf(pieces: string[], top: number): Record<string, unknown>[] {
  const bytes = (t: string) => [...Buffer.from(t, 'utf8')];
  return pieces.map((token, k) => {
    const logprob = -((k % 7) + 1) / 100;
    const alternatives = [token, token.toUpperCase(), token.trim(), `${token.trim()}s `, ` ${token}`].slice(0, top);
    return {
      token,
      logprob,
      bytes: bytes(token),
      top_logprobs: alternatives.map((t, a) => ({ token: t, logprob: logprob - a * 1.5, bytes: bytes(t) })),
    };
  });
}

/** What `logprobs` and `top_logprobs` ask for: undefined when no log probabilities. */
function logprobsAsked(body: Record<string, unknown>): { top: number } | undefined {
  if (body.logprobs !== true) return undefined;
  return { top: typeof body.top_logprobs === 'number' ? body.top_logprobs : 0 };
}

let completionCounter = 0;

function completionId(vendor: ChatFakeProfile['vendor']): string {
  completionCounter += 1;
  return vendor === 'openai' ? `chatcmpl-sandbox${completionCounter}` : `sandbox-${completionCounter}-${Date.now().toString(36)}`;
}

function choiceBody(profile: ChatFakeProfile, p: Plan, index: number, logprobs: { top: number } | undefined): Record<string, unknown> {
  const content = p.finish === 'content_filter' || p.toolCall ? null : p.answer.join('');
  const message: Record<string, unknown> = { role: 'assistant', content };
  if (p.toolCall) {
    message.tool_calls = [{ id: p.toolCall.id, type: 'function', function: { name: p.toolCall.name, arguments: p.toolCall.arguments } }];
  }
  if (p.reasoningMode === 'visible') message.reasoning_content = p.reasoning.join('');
  if (profile.vendor === 'openai') message.refusal = null;
  const lp = logprobs && content !== null ? { content: logprobsOf(p.answer, logprobs.top), refusal: null } : null;
  return { index, message, logprobs: lp, finish_reason: p.finish };
}

function completionBody(profile: ChatFakeProfile, plans: Plan[], logprobs: { top: number } | undefined): Record<string, unknown> {
  return {
    id: completionId(profile.vendor),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: plans[0].model,
    choices: plans.map((p, index) => choiceBody(profile, p, index, logprobs)),
    usage: usageOf(profile, plans),
    system_fingerprint: profile.systemFingerprint,
  };
}

async function streamCompletion(
  profile: ChatFakeProfile,
  plans: Plan[],
  stream: { includeUsage: boolean; breakMidway: boolean; logprobs: { top: number } | undefined },
  res: ServerResponse,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  const base = {
    id: completionId(profile.vendor),
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: plans[0].model,
    system_fingerprint: profile.systemFingerprint,
  };
  const frames: string[] = [];
  let answerStart = -1;
  // Each choice streams its deltas under its index (one after the other here; the API may interleave them).
  for (const [index, p] of plans.entries()) {
    const chunk = (delta: Record<string, unknown>, finish: string | null, logprobs: unknown = null) =>
      JSON.stringify({
        ...base,
        choices: [{ index, delta, logprobs, finish_reason: finish }],
        ...(stream.includeUsage ? { usage: null } : {}),
      });
    const visible = p.reasoningMode === 'visible';
    frames.push(chunk(visible ? { role: 'assistant', content: null, reasoning_content: '' } : { role: 'assistant', content: '' }, null));
    if (visible) for (const piece of p.reasoning) frames.push(chunk({ content: null, reasoning_content: piece }, null));
    if (answerStart < 0) answerStart = frames.length;
    for (const piece of p.answer) {
      const lp = stream.logprobs ? { content: logprobsOf([piece], stream.logprobs.top), refusal: null } : null;
      frames.push(chunk(visible ? { content: piece, reasoning_content: null } : { content: piece }, null, lp));
    }
    if (p.toolCall) {
      const { id, name, arguments: args } = p.toolCall;
      frames.push(chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] }, null));
      // Argument text arrives in fragments, as the API streams it.
      for (let at = 0; at < args.length; at += 8)
        frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(at, at + 8) } }] }, null));
    }
    frames.push(chunk({}, p.finish));
  }
  if (stream.includeUsage) frames.push(JSON.stringify({ ...base, choices: [], usage: usageOf(profile, plans) }));
  frames.push('[DONE]');

  if (profile.keepAlive) res.write(': keep-alive\n\n');
  for (const [i, frame] of frames.entries()) {
    if (res.destroyed) return;
    if (stream.breakMidway && i === answerStart + 2) {
      res.destroy();
      return;
    }
    res.write(`data: ${frame}\n\n`);
    if (i < frames.length - 1) await sleep(profile.chunkDelayMs);
  }
  res.end();
}

/** tools, tool_choice and response_format as the API validates them; an error text when they are malformed. */
function readAsked(body: Record<string, unknown>, messages: ParsedMessage[]): Asked | string {
  const tools: OfferedTool[] = [];
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return "Invalid type for 'tools': expected an array";
    for (const [i, t] of (body.tools as Array<{ type?: unknown; function?: { name?: unknown; parameters?: unknown } }>).entries()) {
      if (t?.type !== 'function' || typeof t.function?.name !== 'string') return `Missing required parameter: 'tools[${i}].function.name'.`;
      tools.push({ name: t.function.name, parameters: t.function.parameters });
    }
  }
  let toolChoice: Asked['toolChoice'];
  const rawChoice = body.tool_choice as unknown;
  if (rawChoice === 'auto' || rawChoice === 'none' || rawChoice === 'required') toolChoice = rawChoice;
  else if (rawChoice && typeof rawChoice === 'object') {
    const name = (rawChoice as { function?: { name?: unknown } }).function?.name;
    if (typeof name !== 'string' || !tools.some((t) => t.name === name))
      return "Invalid value for 'tool_choice': the named function is not among the tools.";
    toolChoice = { name };
  } else if (rawChoice !== undefined) return "Invalid value for 'tool_choice'.";
  if (toolChoice !== undefined && tools.length === 0)
    return "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.";
  const format = body.response_format as { type?: unknown; json_schema?: { schema?: unknown } } | undefined;
  let json: Asked['json'];
  if (format?.type === 'json_object') {
    if (!messages.some((m) => /json/i.test(m.text))) {
      return "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.";
    }
    json = {};
  } else if (format?.type === 'json_schema') {
    if (!format.json_schema || typeof format.json_schema !== 'object') return "Missing required parameter: 'response_format.json_schema'.";
    json = { schema: format.json_schema.schema ?? { type: 'object' } };
  }
  return { tools, toolChoice, json, body };
}

/** POST /chat/completions for one vendor profile (auth already checked). */
export async function handleChatCompletions(profile: ChatFakeProfile, req: SandboxRequest, res: ServerResponse): Promise<void> {
  const { errors } = profile;
  const body = parseJsonObject(req.body);
  if (!body) return sendError(res, errors.badRequest('We could not parse the JSON body of your request.'));
  if (typeof body.model !== 'string' || !body.model) {
    return sendError(res, errors.badRequest('you must provide a model parameter', 'model'));
  }
  const messages = parseMessages(body.messages, profile.acceptsFiles === true);
  if (typeof messages === 'string') return sendError(res, errors.badRequest(messages, 'messages'));
  if (body.stream_options !== undefined && body.stream !== true) {
    return sendError(res, errors.badRequest("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options'));
  }
  const invalid = profile.validate?.(body);
  if (invalid) return sendError(res, invalid);

  const model = body.model;
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const marker = failureMarker(lastUser?.text);
  if (answerGenericFailure(marker, errors, model, res)) return;
  if (marker === 'timeout') return hangUntilClosed(res);
  const policyError = marker === 'policy' ? profile.policyError?.(model) : undefined;
  if (policyError) return sendError(res, policyError);

  const asked = readAsked(body, messages);
  if (typeof asked === 'string') return sendError(res, errors.badRequest(asked));
  const rawLimit = body.max_completion_tokens ?? body.max_tokens;
  const limit = typeof rawLimit === 'number' ? rawLimit : undefined;
  const n = body.n === undefined || body.n === null ? 1 : body.n;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 128) {
    return sendError(res, errors.badRequest(`Invalid 'n': expected an integer between 1 and 128.`, 'n'));
  }
  const top = body.top_logprobs;
  if (top !== undefined && top !== null) {
    if (typeof top !== 'number' || !Number.isInteger(top) || top < 0 || top > 20) {
      return sendError(res, errors.badRequest(`Invalid 'top_logprobs': expected an integer between 0 and 20.`, 'top_logprobs'));
    }
    if (body.logprobs !== true) {
      return sendError(res, errors.badRequest("'logprobs' must be true when 'top_logprobs' is used.", 'top_logprobs'));
    }
  }
  const plans = Array.from({ length: n }, (_v, choice) => plan(profile, model, messages, limit, marker === 'policy', asked, choice));
  const stream = body.stream === true;
  const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  const logprobs = logprobsAsked(body);

  if (stream) return streamCompletion(profile, plans, { includeUsage, breakMidway: marker === 'midstream', logprobs }, res);
  // DeepSeek may send blank lines before the JSON while a request waits; JSON parsers skip them.
  const text = (profile.keepAlive ? '\n' : '') + JSON.stringify(completionBody(profile, plans, logprobs));
  if (marker === 'midstream') return dropMidBody(res, 'application/json', text);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
