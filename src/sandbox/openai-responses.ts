import crypto from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { AutomaticPromptCache } from './prefix-cache';
import { ErrorReply, failureMarker, parseJsonObject, sendError, sleep, tokenPieces, VendorErrors } from './chat-completions-fake';
import { hangUntilClosed } from './failures';
import { chooseToolCall, jsonAnswer, OfferedTool, toolResultAnswer } from './tool-play';
import { sendJson, type SandboxRequest } from './types';

// The OpenAI fake's Responses API, from the API reference: POST /v1/responses (input items, function, custom and
// namespace tools, `additional_tools` items, hosted web search, reasoning items with encrypted content, text.format,
// streaming events), stored responses (`store`, default true) continued with `previous_response_id` or referenced
// item by item, GET /v1/responses/{id}, GET /v1/responses/{id}/input_items (OpenAI's list and cursor), DELETE, and
// `background` responses (queued, in_progress, completed) with POST /v1/responses/{id}/cancel.

type Json = Record<string, unknown>;

export interface ResponsesFakeOptions {
  errors: VendorErrors;
  /** Pause between two stream events (and between a background response's steps). */
  chunkDelayMs: number;
  /** Model checks shared with Chat Completions (a model past its shutdown): the error, or undefined. */
  modelProblem(model: string): ErrorReply | undefined;
  /** The model's reasoning efforts; undefined for a model that does not reason. */
  efforts(model: string): readonly string[] | undefined;
  /** Whether the model runs the hosted web search tool. */
  webSearch(model: string): boolean;
}

const TOP_LEVEL = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_tool_calls',
  'text',
  'reasoning',
  'max_output_tokens',
  'temperature',
  'top_p',
  'top_logprobs',
  'stream',
  'stream_options',
  'store',
  'background',
  'previous_response_id',
  'conversation',
  'include',
  'metadata',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'service_tier',
  'truncation',
  'prompt',
  'context_management',
  'client_metadata',
]);

/** Tool types the API hosts; web search is the one the sandbox model runs, the others it is offered and leaves. */
const HOSTED_TOOLS = new Set([
  'web_search',
  'web_search_preview',
  'web_search_2025_08_26',
  'web_search_preview_2025_03_11',
  'file_search',
  'code_interpreter',
  'image_generation',
  'mcp',
  'computer_use_preview',
  'local_shell',
  'shell',
  'apply_patch',
  'tool_search',
]);
const WEB_SEARCH = new Set(['web_search', 'web_search_preview', 'web_search_2025_08_26', 'web_search_preview_2025_03_11']);

const ENCRYPTION_KEY = crypto.createHash('sha256').update('openai-sandbox-reasoning').digest();

/** Opaque reasoning state, as the API hands it out with include `reasoning.encrypted_content`: only it can read it back. */
function sealReasoning(model: string, text: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', ENCRYPTION_KEY, iv);
  const body = Buffer.concat([cipher.update(JSON.stringify({ model, text }), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

function openReasoning(sealed: string): { model: string; text: string } | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = crypto.createDecipheriv('aes-256-gcm', ENCRYPTION_KEY, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as { model: string; text: string };
  } catch {
    return undefined;
  }
}

const newId = (prefix: string) => `${prefix}_${crypto.randomBytes(16).toString('hex')}`;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalid(errors: VendorErrors, message: string, param: string | null, code: string | null = null): ErrorReply {
  return errors.badRequest(message, param ?? undefined, code ?? undefined);
}

// ---------- tools ----------

interface Callable extends OfferedTool {
  kind: 'function' | 'custom';
  namespace?: string;
}

interface Tools {
  callable: Callable[];
  webSearch: boolean;
}

function readToolList(raw: unknown, at: string, out: Tools, errors: VendorErrors): ErrorReply | undefined {
  if (!Array.isArray(raw)) return invalid(errors, `Invalid type for '${at}': expected an array.`, at, 'invalid_type');
  for (const [i, t] of (raw as unknown[]).entries()) {
    const where = `${at}[${i}]`;
    if (!isObject(t) || typeof t.type !== 'string') return invalid(errors, `Missing required parameter: '${where}.type'.`, `${where}.type`);
    if (t.type === 'function' || t.type === 'custom') {
      if (typeof t.name !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(t.name)) {
        return invalid(errors, `Invalid '${where}.name': expected a string of letters, digits, _ or -.`, `${where}.name`);
      }
      out.callable.push({ kind: t.type, name: t.name, parameters: t.type === 'function' ? t.parameters : undefined });
    } else if (t.type === 'namespace') {
      if (typeof t.name !== 'string' || !t.name) return invalid(errors, `Missing required parameter: '${where}.name'.`, `${where}.name`);
      const inner: Tools = { callable: [], webSearch: false };
      const problem = readToolList(t.tools, `${where}.tools`, inner, errors);
      if (problem) return problem;
      if (inner.webSearch)
        return invalid(errors, `Invalid '${where}.tools': a namespace holds function and custom tools.`, `${where}.tools`);
      out.callable.push(...inner.callable.map((c) => ({ ...c, namespace: t.name as string })));
    } else if (HOSTED_TOOLS.has(t.type)) {
      if (t.type === 'file_search' && !Array.isArray(t.vector_store_ids)) {
        return invalid(errors, `Missing required parameter: '${where}.vector_store_ids'.`, `${where}.vector_store_ids`);
      }
      if (WEB_SEARCH.has(t.type)) out.webSearch = true;
    } else {
      return invalid(
        errors,
        `Invalid value: '${t.type}'. Supported values are: 'function', 'custom', 'namespace' and the hosted tools.`,
        `${where}.type`,
        'invalid_value',
      );
    }
  }
  return undefined;
}

// ---------- input items ----------

/** A conversation item as stored: the item the client sent (or the model wrote), with its id. */
type Item = Json & { id: string; type: string };

interface Conversation {
  items: Item[];
  /** The text of the last user message. */
  userText: string;
  /** The last item answers a call (function or custom tool output), with the name of the tool it answers. */
  toolResult?: { name?: string; text: string };
  images: number;
}

function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Json[])
    .map((p) => (typeof p?.text === 'string' ? p.text : typeof p?.refusal === 'string' ? p.refusal : ''))
    .filter(Boolean)
    .join('\n');
}

const ITEM_PREFIX: Record<string, string> = {
  message: 'msg',
  function_call: 'fc',
  function_call_output: 'fco',
  custom_tool_call: 'ctc',
  custom_tool_call_output: 'ctco',
  reasoning: 'rs',
  web_search_call: 'ws',
  additional_tools: 'at',
};

interface StoredResponse {
  response: Json;
  /** Every item the response was generated from (the chain before it, then its own input), in order. */
  inputItems: Item[];
  background: boolean;
  cancel?: () => void;
}

function readInput(
  raw: unknown,
  prior: Item[],
  stored: ReadonlyMap<string, StoredResponse>,
  errors: VendorErrors,
): { items: Item[]; tools: unknown[] } | ErrorReply {
  const list: unknown[] = typeof raw === 'string' ? [{ type: 'message', role: 'user', content: raw }] : (raw as unknown[]);
  if (!Array.isArray(list))
    return invalid(errors, "Invalid type for 'input': expected a string or an array of items.", 'input', 'invalid_type');
  const seen = new Set(prior.map((i) => i.id));
  const items: Item[] = [];
  const additionalTools: unknown[] = [];
  for (const [i, rawItem] of list.entries()) {
    const at = `input[${i}]`;
    if (!isObject(rawItem)) return invalid(errors, `Invalid type for '${at}': expected an object.`, at, 'invalid_type');
    let item: Json = 'type' in rawItem ? rawItem : { ...rawItem, type: 'message' };
    if (item.type === 'item_reference') {
      const found = findStoredItem(stored, String(item.id));
      if (!found) return invalid(errors, `Item with id '${String(item.id)}' not found.`, `${at}.id`, 'not_found');
      item = found;
    }
    const type = String(item.type);
    if (!(type in ITEM_PREFIX)) {
      return invalid(
        errors,
        `Invalid value: '${type}'. Supported values are: ${Object.keys(ITEM_PREFIX)
          .map((k) => `'${k}'`)
          .join(', ')} and 'item_reference'.`,
        `${at}.type`,
        'invalid_value',
      );
    }
    const problem = itemProblem(item, at, errors);
    if (problem) return problem;
    if (type === 'additional_tools') additionalTools.push(...(item.tools as unknown[]));
    const id = typeof item.id === 'string' && item.id ? item.id : newId(ITEM_PREFIX[type]);
    if (typeof item.id === 'string' && seen.has(item.id) && type !== 'additional_tools') {
      return invalid(errors, `Duplicate item found with id ${item.id}. Remove duplicate items from your input and try again.`, 'input');
    }
    seen.add(id);
    items.push({ ...normalized(item), id, type });
  }
  return { items, tools: additionalTools };
}

/** A message as the API keeps it: content as parts (a string is one text part), with a status. */
function normalized(item: Json): Json {
  if (item.type !== 'message') return item;
  const content =
    typeof item.content === 'string'
      ? [{ type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.content }]
      : item.content;
  return { ...item, content, status: item.status ?? 'completed' };
}

function findStoredItem(stored: ReadonlyMap<string, StoredResponse>, id: string): Item | undefined {
  for (const s of stored.values()) {
    const found = [...s.inputItems, ...(s.response.output as Item[])].find((i) => i.id === id);
    if (found) return found;
  }
  return undefined;
}

function itemProblem(item: Json, at: string, errors: VendorErrors): ErrorReply | undefined {
  switch (item.type) {
    case 'message':
      if (!['user', 'assistant', 'system', 'developer'].includes(String(item.role))) {
        return invalid(
          errors,
          `Invalid value: '${String(item.role)}'. Supported values are: 'user', 'assistant', 'system', and 'developer'.`,
          `${at}.role`,
          'invalid_value',
        );
      }
      if (typeof item.content !== 'string' && !Array.isArray(item.content))
        return invalid(errors, `Missing required parameter: '${at}.content'.`, `${at}.content`);
      return undefined;
    case 'function_call':
      if (typeof item.call_id !== 'string' || typeof item.name !== 'string' || typeof item.arguments !== 'string') {
        return invalid(errors, `Missing required parameter: '${at}.call_id', '${at}.name' and '${at}.arguments' are required.`, at);
      }
      return undefined;
    case 'custom_tool_call':
      if (typeof item.call_id !== 'string' || typeof item.name !== 'string' || typeof item.input !== 'string') {
        return invalid(errors, `Missing required parameter: '${at}.call_id', '${at}.name' and '${at}.input' are required.`, at);
      }
      return undefined;
    case 'function_call_output':
    case 'custom_tool_call_output':
      if (typeof item.call_id !== 'string') return invalid(errors, `Missing required parameter: '${at}.call_id'.`, `${at}.call_id`);
      return undefined;
    case 'reasoning':
      if (!Array.isArray(item.summary)) return invalid(errors, `Missing required parameter: '${at}.summary'.`, `${at}.summary`);
      return undefined;
    case 'additional_tools':
      if (item.role !== 'developer')
        return invalid(errors, `Invalid value: '${String(item.role)}'. Supported values are: 'developer'.`, `${at}.role`, 'invalid_value');
      return undefined;
    default:
      return undefined;
  }
}

/**
 * The conversation as the model reads it: calls answered by outputs of earlier calls, reasoning items replayed
 * with the state they were given (their encrypted content, or as stored items), in order.
 */
function readConversation(items: Item[], storedIds: ReadonlySet<string>, errors: VendorErrors): Conversation | ErrorReply {
  const calls = new Map<string, string>();
  let userText = '';
  let images = 0;
  let toolResult: Conversation['toolResult'];
  for (const [i, item] of items.entries()) {
    toolResult = undefined;
    if (item.type === 'message' && item.role === 'user') {
      userText = partsText(item.content);
      images = Array.isArray(item.content) ? (item.content as Json[]).filter((p) => p?.type === 'input_image').length : 0;
    } else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      calls.set(String(item.call_id), String(item.name));
    } else if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      const name = calls.get(String(item.call_id));
      if (name === undefined) {
        const kind = item.type === 'function_call_output' ? 'function call' : 'custom tool call';
        return invalid(errors, `No tool call found for ${kind} output with call_id ${String(item.call_id)}.`, `input[${i}].call_id`);
      }
      toolResult = { name, text: partsText(item.output) };
    } else if (item.type === 'reasoning') {
      const sealed = item.encrypted_content;
      if (typeof sealed === 'string' && sealed) {
        if (!openReasoning(sealed)) {
          return invalid(
            errors,
            'The encrypted content for item ' + item.id + ' could not be verified.',
            `input[${i}].encrypted_content`,
            'invalid_encrypted_content',
          );
        }
      } else if (!storedIds.has(item.id)) {
        return {
          status: 404,
          body: {
            error: {
              message: `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
              type: 'invalid_request_error',
              param: 'input',
              code: null,
            },
          },
        };
      }
    }
  }
  return { items, userText, toolResult, images };
}

// ---------- the answer ----------

interface Plan {
  output: Item[];
  text: string;
  reasoning: string[];
  usage: Json;
  status: 'completed' | 'incomplete';
  incomplete?: string;
}

interface Asked {
  model: string;
  tools: Tools;
  toolChoice: 'auto' | 'none' | 'required' | { name: string } | { hosted: 'web_search' } | undefined;
  json?: { schema?: unknown };
  effort?: string;
  summary: boolean;
  encrypted: boolean;
  maxOutputTokens?: number;
}

const excerpt = (text: string, max = 60) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
};

function plan(asked: Asked, conv: Conversation, promptTokens: number): Plan {
  const reasoningPieces =
    asked.effort !== undefined && asked.effort !== 'none'
      ? tokenPieces(`Sandbox reasoning: the user wrote "${excerpt(conv.userText)}", so I answer that.`)
      : [];
  const output: Item[] = [];
  if (reasoningPieces.length > 0) {
    const text = reasoningPieces.join('');
    output.push({
      id: newId('rs'),
      type: 'reasoning',
      summary: asked.summary ? [{ type: 'summary_text', text }] : [],
      ...(asked.encrypted ? { encrypted_content: sealReasoning(asked.model, text) } : {}),
    });
  }
  let answerTokens = 0;
  const searched = conv.items.some((i) => i.type === 'web_search_call');
  const forcedSearch = typeof asked.toolChoice === 'object' && 'hosted' in asked.toolChoice;
  const wantsSearch = asked.tools.webSearch && !searched && !conv.toolResult && asked.toolChoice !== 'none';
  let searchedNow = false;
  if (wantsSearch && (forcedSearch || /\b(search|look up|latest|news)\b/i.test(conv.userText))) {
    searchedNow = true;
    output.push({
      id: newId('ws'),
      type: 'web_search_call',
      status: 'completed',
      action: { type: 'search', query: excerpt(conv.userText, 80), sources: [{ type: 'url', url: 'https://example.com/sandbox-result' }] },
    });
  }
  const choice = typeof asked.toolChoice === 'object' && 'hosted' in asked.toolChoice ? 'auto' : asked.toolChoice;
  const call = searchedNow ? undefined : chooseToolCall(asked.tools.callable, choice, conv.toolResult !== undefined, conv.userText);
  let text = '';
  if (call) {
    const tool = asked.tools.callable.find((t) => t.name === call.name)!;
    const common = {
      id: '',
      call_id: newId('call'),
      name: tool.name,
      ...(tool.namespace ? { namespace: tool.namespace } : {}),
      status: 'completed',
    };
    if (tool.kind === 'custom') {
      output.push({ ...common, id: newId('ctc'), type: 'custom_tool_call', input: conv.userText });
      answerTokens += Math.ceil(conv.userText.length / 4);
    } else {
      const args = JSON.stringify(call.arguments);
      output.push({ ...common, id: newId('fc'), type: 'function_call', arguments: args });
      answerTokens += Math.ceil((tool.name.length + args.length) / 4);
    }
  } else {
    text = conv.toolResult
      ? toolResultAnswer(asked.model, conv.toolResult.name, conv.toolResult.text)
      : `Sandbox reply from ${asked.model}: you said "${excerpt(conv.userText)}".${conv.images ? ` I received ${conv.images} image${conv.images > 1 ? 's' : ''}.` : ''}${searchedNow ? ' I searched the web for it.' : ''} This text comes from the built-in sandbox, not a real model.`;
    if (asked.json) text = jsonAnswer(asked.json.schema, text);
  }
  let pieces = tokenPieces(text);
  let status: Plan['status'] = 'completed';
  let incomplete: string | undefined;
  if (asked.maxOutputTokens !== undefined && pieces.length + reasoningPieces.length > asked.maxOutputTokens) {
    pieces = pieces.slice(0, Math.max(0, asked.maxOutputTokens - reasoningPieces.length));
    status = 'incomplete';
    incomplete = 'max_output_tokens';
  }
  text = pieces.join('');
  if (!call && text !== '') {
    const annotations = searchedNow
      ? [
          {
            type: 'url_citation',
            start_index: 0,
            end_index: text.length,
            url: 'https://example.com/sandbox-result',
            title: 'Sandbox result',
          },
        ]
      : [];
    output.push({
      id: newId('msg'),
      type: 'message',
      status: status === 'completed' ? 'completed' : 'incomplete',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations, logprobs: [] }],
    });
    answerTokens += pieces.length;
  }
  const outputTokens = answerTokens + reasoningPieces.length;
  return {
    output,
    text,
    reasoning: reasoningPieces,
    status,
    ...(incomplete ? { incomplete } : {}),
    usage: {
      input_tokens: promptTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: reasoningPieces.length },
      total_tokens: promptTokens + outputTokens,
    },
  };
}

function promptTokensOf(items: Item[], instructions: string): number {
  const chars = items.reduce((n, i) => n + JSON.stringify(i).length, instructions.length);
  return Math.max(1, Math.ceil(chars / 4));
}

// ---------- the fake ----------

export interface ResponsesFake {
  /** Handles a Responses API request; false when the path is not one of its routes. */
  handle(req: SandboxRequest, res: ServerResponse): Promise<boolean>;
}

export function createResponsesFake(options: ResponsesFakeOptions): ResponsesFake {
  const { errors } = options;
  // Prompt caching as on Chat Completions: 1024 tokens or more, 128-token steps, per prompt_cache_key.
  const promptCache = new AutomaticPromptCache({ minimum: 1024, step: 128, ttlMs: 10 * 60_000 });
  const cachedOf = (body: Json, items: Item[], prompt: number): number => {
    const instructions = typeof body.instructions === 'string' ? body.instructions : '';
    const parts = [instructions, JSON.stringify(body.tools ?? []), ...items.map((i) => JSON.stringify(i))].map((content) => ({
      content,
      tokens: Math.ceil(content.length / 4),
    }));
    const key = typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : '';
    return promptCache.account(`${String(body.model)}\n${key}`, parts, prompt);
  };
  const stored = new Map<string, StoredResponse>();
  const notFound = (id: string): ErrorReply => ({
    status: 404,
    body: { error: { message: `Response with id '${id}' not found.`, type: 'invalid_request_error', param: null, code: null } },
  });

  function responseObject(id: string, createdAt: number, body: Json, fields: Json): Json {
    const text = isObject(body.text) ? body.text : {};
    const reasoning = isObject(body.reasoning) ? body.reasoning : {};
    return {
      id,
      object: 'response',
      created_at: createdAt,
      status: 'in_progress',
      background: body.background === true,
      completed_at: null,
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      max_tool_calls: body.max_tool_calls ?? null,
      metadata: body.metadata ?? {},
      model: body.model,
      output: [],
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      previous_response_id: body.previous_response_id ?? null,
      prompt_cache_key: body.prompt_cache_key ?? null,
      reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
      safety_identifier: body.safety_identifier ?? null,
      service_tier: 'default',
      store: body.store !== false,
      temperature: body.temperature ?? 1,
      text: { format: text.format ?? { type: 'text' }, verbosity: text.verbosity ?? 'medium' },
      tool_choice: body.tool_choice ?? 'auto',
      tools: body.tools ?? [],
      top_logprobs: body.top_logprobs ?? 0,
      top_p: body.top_p ?? 1,
      truncation: body.truncation ?? 'disabled',
      usage: null,
      user: body.user ?? null,
      ...fields,
    };
  }

  function finished(base: Json, p: Plan): Json {
    return {
      ...base,
      status: p.status,
      completed_at: Math.floor(Date.now() / 1000),
      incomplete_details: p.incomplete ? { reason: p.incomplete } : null,
      output: p.output,
      usage: p.usage,
    };
  }

  /** The request checked as the API checks it: the answer's plan and everything it needs, or the error. */
  function prepare(body: Json): ErrorReply | { asked: Asked; conv: Conversation; inputItems: Item[]; prompt: number } {
    const extra = Object.keys(body).find((k) => !TOP_LEVEL.has(k));
    if (extra !== undefined) return invalid(errors, `Unknown parameter: '${extra}'.`, extra, 'unknown_parameter');
    if (typeof body.model !== 'string' || !body.model)
      return invalid(errors, "Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
    if (body.input === undefined && body.previous_response_id === undefined && body.conversation === undefined) {
      return invalid(errors, "Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
    }
    const model = body.model;
    const gone = options.modelProblem(model);
    if (gone) return gone;
    if (body.conversation !== undefined && body.previous_response_id !== undefined) {
      return invalid(
        errors,
        "Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.",
        'previous_response_id',
        'mutually_exclusive_parameters',
      );
    }
    if (body.background === true && body.store === false) {
      return invalid(errors, 'Background mode requires `store` to be true.', 'background', 'invalid_value');
    }
    const efforts = options.efforts(model);
    const reasoning = isObject(body.reasoning) ? body.reasoning : undefined;
    const effort = reasoning?.effort;
    if (effort !== undefined && effort !== null) {
      if (!efforts)
        return invalid(
          errors,
          "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
          'reasoning.effort',
          'unsupported_parameter',
        );
      if (!efforts.includes(String(effort))) {
        return invalid(
          errors,
          `Unsupported value: 'reasoning.effort' does not support '${String(effort)}' with this model. Supported values are: ${efforts.map((e) => `'${e}'`).join(', ')}.`,
          'reasoning.effort',
          'unsupported_value',
        );
      }
    }
    const reasons = efforts !== undefined && effort !== 'none';
    for (const param of ['temperature', 'top_p']) {
      if (reasons && body[param] !== undefined && body[param] !== null && !(param === 'temperature' && body[param] === 1)) {
        return invalid(errors, `Unsupported parameter: '${param}' is not supported with this model.`, param, 'unsupported_parameter');
      }
    }
    const text = isObject(body.text) ? body.text : {};
    if (text.verbosity !== undefined && text.verbosity !== null && !['low', 'medium', 'high'].includes(String(text.verbosity))) {
      return invalid(
        errors,
        `Invalid value: '${String(text.verbosity)}'. Supported values are: 'low', 'medium', and 'high'.`,
        'text.verbosity',
        'invalid_value',
      );
    }
    const include = Array.isArray(body.include) ? (body.include as unknown[]).map(String) : [];
    let prior: Item[] = [];
    if (typeof body.previous_response_id === 'string') {
      const previous = stored.get(body.previous_response_id);
      if (!previous) {
        return {
          status: 400,
          body: {
            error: {
              message: `Previous response with id '${body.previous_response_id}' not found.`,
              type: 'invalid_request_error',
              param: 'previous_response_id',
              code: 'previous_response_not_found',
            },
          },
        };
      }
      prior = [...previous.inputItems, ...(previous.response.output as Item[])];
    }
    const input = readInput(body.input ?? [], prior, stored, errors);
    if ('status' in input) return input;
    const tools: Tools = { callable: [], webSearch: false };
    const toolProblem =
      (body.tools !== undefined ? readToolList(body.tools, 'tools', tools, errors) : undefined) ??
      (input.tools.length > 0 ? readToolList(input.tools, 'input.additional_tools', tools, errors) : undefined);
    if (toolProblem) return toolProblem;
    const storedIds = new Set([...stored.values()].flatMap((s) => [...s.inputItems, ...(s.response.output as Item[])].map((i) => i.id)));
    const conv = readConversation([...prior, ...input.items], storedIds, errors);
    if ('status' in conv) return conv;
    const toolChoice = readToolChoice(body.tool_choice, tools);
    if (typeof toolChoice === 'string' && toolChoice.startsWith('!'))
      return invalid(errors, toolChoice.slice(1), 'tool_choice', 'invalid_value');
    const format = isObject(text.format) ? text.format : undefined;
    const json = format?.type === 'json_schema' ? { schema: format.schema } : format?.type === 'json_object' ? {} : undefined;
    const instructions = typeof body.instructions === 'string' ? body.instructions : '';
    return {
      asked: {
        model,
        tools,
        toolChoice: toolChoice as Asked['toolChoice'],
        ...(json ? { json } : {}),
        ...(reasons ? { effort: typeof effort === 'string' ? effort : 'medium' } : {}),
        summary: reasoning?.summary !== undefined && reasoning.summary !== null,
        encrypted: include.includes('reasoning.encrypted_content'),
        ...(typeof body.max_output_tokens === 'number' ? { maxOutputTokens: body.max_output_tokens } : {}),
      },
      conv,
      inputItems: [...prior, ...input.items],
      prompt: promptTokensOf(conv.items, instructions),
    };
  }

  async function create(req: SandboxRequest, res: ServerResponse): Promise<void> {
    const body = parseJsonObject(req.body);
    if (!body) return sendError(res, invalid(errors, 'We could not parse the JSON body of your request.', null));
    const ready = prepare(body);
    if ('status' in ready) return sendError(res, ready);
    const marker = failureMarker(ready.conv.userText);
    if (marker === 'overloaded') return sendError(res, errors.overloaded());
    if (marker === 'rate_limit') return sendError(res, errors.rateLimited(String(body.model)));
    if (marker === 'server') return sendError(res, errors.serverError());
    if (marker === 'balance') return sendError(res, errors.insufficientBalance?.() ?? errors.rateLimited(String(body.model)));
    const id = newId('resp');
    const createdAt = Math.floor(Date.now() / 1000);
    const base = responseObject(id, createdAt, body, {});
    const p = plan(ready.asked, ready.conv, ready.prompt);
    p.usage.input_tokens_details = { cached_tokens: cachedOf(body, ready.conv.items, ready.prompt) };
    const store = body.store !== false;
    const keep = (response: Json, background = false) => {
      if (store) stored.set(id, { response, inputItems: ready.inputItems, background });
    };

    if (body.background === true) {
      const queued = { ...base, status: 'queued' };
      keep(queued, true);
      runInBackground(id, p, marker === 'timeout');
      if (body.stream === true) return streamWhenDone(id, res);
      return sendJson(res, 200, queued);
    }
    if (marker === 'timeout') return hangUntilClosed(res);
    if (body.stream === true) {
      const done = await streamResponse(base, p, res, marker === 'midstream');
      if (done) keep(done);
      return;
    }
    const done = finished(base, p);
    keep(done);
    sendJson(res, 200, done);
  }

  /** A background response: queued, then in progress, then done after the time its answer takes to write. */
  function runInBackground(id: string, p: Plan, never: boolean): void {
    let timer: NodeJS.Timeout | undefined;
    const entry = () => stored.get(id);
    const step = (fn: () => void, ms: number) => {
      timer = setTimeout(fn, ms);
      timer.unref();
    };
    const cancel = () => {
      if (timer) clearTimeout(timer);
      const e = entry();
      if (!e || (e.response.status !== 'queued' && e.response.status !== 'in_progress')) return;
      // What was written before the cancel: the reasoning so far, no answer yet.
      const reasoningDone = Math.min(p.reasoning.length, 1);
      e.response = {
        ...e.response,
        status: 'cancelled',
        output: [],
        usage: {
          ...p.usage,
          output_tokens: reasoningDone,
          output_tokens_details: { reasoning_tokens: reasoningDone },
          total_tokens: (p.usage.input_tokens as number) + reasoningDone,
        },
      };
    };
    const e = entry();
    if (e) e.cancel = cancel;
    step(
      () => {
        const now = entry();
        if (!now || now.response.status !== 'queued') return;
        now.response = { ...now.response, status: 'in_progress' };
        if (never) return;
        step(
          () => {
            const last = entry();
            if (!last || last.response.status !== 'in_progress') return;
            last.response = finished(last.response, p);
          },
          Math.max(20, options.chunkDelayMs * (p.output.length + tokenPieces(p.text).length)),
        );
      },
      Math.max(10, options.chunkDelayMs),
    );
  }

  /** `background` with `stream`: the events of the answer once it is written (the fake does not stream it live). */
  async function streamWhenDone(id: string, res: ServerResponse): Promise<void> {
    for (;;) {
      const e = stored.get(id);
      if (!e || res.destroyed) return;
      const status = e.response.status;
      if (status !== 'queued' && status !== 'in_progress') break;
      await sleep(Math.max(10, options.chunkDelayMs));
    }
    const e = stored.get(id)!;
    openStream(res);
    let sequence = 0;
    const emit = (type: string, fields: Json) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
    emit('response.created', { response: { ...e.response, status: 'queued', output: [], usage: null } });
    for (const [i, item] of (e.response.output as Item[]).entries()) {
      emit('response.output_item.added', { output_index: i, item });
      emit('response.output_item.done', { output_index: i, item });
    }
    emit(`response.${String(e.response.status)}`, { response: e.response });
    res.end();
  }

  function openStream(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
  }

  /** The documented event stream of one answer; the finished response, or undefined when the stream broke off. */
  async function streamResponse(base: Json, p: Plan, res: ServerResponse, breakMidway: boolean): Promise<Json | undefined> {
    openStream(res);
    let sequence = 0;
    const frames: string[] = [];
    const emit = (type: string, fields: Json) =>
      frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
    emit('response.created', { response: base });
    emit('response.in_progress', { response: base });
    for (const [output_index, item] of p.output.entries()) {
      const item_id = item.id;
      if (item.type === 'message') {
        emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
        const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
        emit('response.content_part.added', { item_id, output_index, content_index: 0, part });
        for (const delta of tokenPieces(p.text))
          emit('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] });
        const content = (item.content as Json[])[0];
        emit('response.output_text.done', { item_id, output_index, content_index: 0, text: p.text, logprobs: [] });
        emit('response.content_part.done', { item_id, output_index, content_index: 0, part: content });
      } else if (item.type === 'function_call') {
        emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
        const args = String(item.arguments);
        for (let at = 0; at < args.length; at += 8)
          emit('response.function_call_arguments.delta', { item_id, output_index, delta: args.slice(at, at + 8) });
        emit('response.function_call_arguments.done', { item_id, output_index, name: item.name, arguments: args });
      } else if (item.type === 'custom_tool_call') {
        emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', input: '' } });
        const input = String(item.input);
        for (let at = 0; at < input.length; at += 8)
          emit('response.custom_tool_call_input.delta', { item_id, output_index, delta: input.slice(at, at + 8) });
        emit('response.custom_tool_call_input.done', { item_id, output_index, input });
      } else if (item.type === 'web_search_call') {
        emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress' } });
        emit('response.web_search_call.in_progress', { item_id, output_index });
        emit('response.web_search_call.searching', { item_id, output_index });
        emit('response.web_search_call.completed', { item_id, output_index });
      } else {
        emit('response.output_item.added', { output_index, item: { ...item, summary: [] } });
        const summary = item.summary as Json[];
        for (const [summary_index, s] of summary.entries()) {
          emit('response.reasoning_summary_part.added', { item_id, output_index, summary_index, part: { type: 'summary_text', text: '' } });
          emit('response.reasoning_summary_text.delta', { item_id, output_index, summary_index, delta: s.text });
          emit('response.reasoning_summary_text.done', { item_id, output_index, summary_index, text: s.text });
          emit('response.reasoning_summary_part.done', { item_id, output_index, summary_index, part: s });
        }
      }
      emit('response.output_item.done', { output_index, item });
    }
    const done = finished(base, p);
    emit(p.status === 'completed' ? 'response.completed' : 'response.incomplete', { response: done });
    for (const [i, frame] of frames.entries()) {
      if (res.destroyed) return undefined;
      if (breakMidway && i === Math.floor(frames.length / 2)) {
        res.destroy();
        return undefined;
      }
      res.write(frame);
      if (i < frames.length - 1) await sleep(options.chunkDelayMs);
    }
    res.end();
    return done;
  }

  function inputItems(id: string, query: URLSearchParams, res: ServerResponse): void {
    const entry = stored.get(id);
    if (!entry) return sendError(res, notFound(id));
    const limit = query.has('limit') ? Number(query.get('limit')) : 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      return sendError(
        res,
        invalid(
          errors,
          `Invalid 'limit': integer below minimum value. Expected a value between 1 and 100, but got ${String(query.get('limit'))} instead.`,
          'limit',
          'integer_below_min_value',
        ),
      );
    }
    const order = query.get('order') ?? 'desc';
    if (order !== 'asc' && order !== 'desc') {
      return sendError(
        res,
        invalid(errors, `Invalid value: '${order}'. Supported values are: 'asc' and 'desc'.`, 'order', 'invalid_value'),
      );
    }
    const all = order === 'asc' ? entry.inputItems : [...entry.inputItems].reverse();
    const after = query.get('after');
    const start = after ? all.findIndex((i) => i.id === after) + 1 : 0;
    const page = all.slice(start, start + limit);
    sendJson(res, 200, {
      object: 'list',
      data: page,
      first_id: page[0]?.id ?? null,
      last_id: page[page.length - 1]?.id ?? null,
      has_more: start + limit < all.length,
    });
  }

  return {
    async handle(req, res) {
      const path = req.path.replace(/\/{2,}/g, '/').replace(/\/$/, '');
      if (path === '/v1/responses') {
        if (req.method !== 'POST') return false;
        await create(req, res);
        return true;
      }
      const one = /^\/v1\/responses\/([\w-]+)(\/input_items|\/cancel)?$/.exec(path);
      if (!one) return false;
      const [, id, sub] = one;
      const entry = stored.get(id);
      if (req.method === 'GET' && sub === undefined) {
        if (!entry) sendError(res, notFound(id));
        else sendJson(res, 200, entry.response);
      } else if (req.method === 'GET' && sub === '/input_items') {
        inputItems(id, req.query, res);
      } else if (req.method === 'DELETE' && sub === undefined) {
        if (!entry) sendError(res, notFound(id));
        else {
          entry.cancel?.();
          stored.delete(id);
          sendJson(res, 200, { id, object: 'response', deleted: true });
        }
      } else if (req.method === 'POST' && sub === '/cancel') {
        if (!entry) sendError(res, notFound(id));
        else if (!entry.background) sendError(res, invalid(errors, 'Only responses created with background=true can be cancelled.', null));
        else {
          entry.cancel?.();
          sendJson(res, 200, stored.get(id)!.response);
        }
      } else return false;
      return true;
    },
  };
}

/** tool_choice as the Responses API takes it; a string starting with `!` is the error text. */
function readToolChoice(raw: unknown, tools: Tools): Asked['toolChoice'] | string {
  if (raw === undefined || raw === null) return undefined;
  if (raw === 'auto' || raw === 'none' || raw === 'required') return raw;
  if (isObject(raw)) {
    if (raw.type === 'function' || raw.type === 'custom') {
      if (typeof raw.name !== 'string' || !tools.callable.some((t) => t.name === raw.name))
        return `!Tool choice '${String(raw.name)}' not found in 'tools' parameter.`;
      return { name: raw.name };
    }
    if (typeof raw.type === 'string' && WEB_SEARCH.has(raw.type))
      return tools.webSearch ? { hosted: 'web_search' } : "!Tool choice 'web_search' not found in 'tools' parameter.";
    if (raw.type === 'allowed_tools') return raw.mode === 'required' ? 'required' : 'auto';
  }
  return "!Invalid value for 'tool_choice'.";
}
