import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { syntheticImage, syntheticMp4 } from './synthetic';
import { SandboxHandler, SandboxRequest, sendBytes, sendJson } from './types';
import { failureMarkerIn, hangUntilClosed } from './failures';
import { chooseToolCall, jsonAnswer, OfferedTool, toolResultAnswer } from './tool-play';
import { isTtsModel, speechAnswer, speechProblem } from './google-speech';
import { createInteractions } from './google-interactions';
import { AutomaticPromptCache } from './prefix-cache';

/**
 * In-process fake of the Gemini API under /v1beta: generateContent, streamGenerateContent (?alt=sse, or a JSON
 * array without it), Gemini TTS (google-speech.ts), Gemini Omni on the Interactions API (google-interactions.ts),
 * and the file download a finished interaction points at. Markers in the prompt / last user message fail like the
 * real API: [[fail:overloaded]] 503 UNAVAILABLE (429 RESOURCE_EXHAUSTED for Omni), [[fail:policy]] a safety block
 * (promptFeedback, IMAGE_SAFETY, a failed interaction), [[fail:timeout]] never answers, [[fail:midstream]] drops a
 * stream after two chunks, [[fail:upstream]] 500 INTERNAL (a failed interaction for Omni).
 */

export interface GoogleSandboxOptions {
  /** Pause between two SSE chunks, so streaming is observable. */
  streamDelayMs?: number;
  /** How many polls of an Omni interaction answer "in_progress" before it finishes. */
  pendingPolls?: number;
}

const FAILURES = ['overloaded', 'policy', 'timeout', 'midstream', 'upstream'] as const;
type Failure = (typeof FAILURES)[number];

interface Part {
  text?: unknown;
  thought?: unknown;
  functionCall?: { name?: unknown; args?: unknown };
  thoughtSignature?: unknown;
  functionResponse?: { name?: unknown; response?: unknown };
  inline_data?: { mime_type?: unknown; data?: unknown };
  inlineData?: { mimeType?: unknown; data?: unknown };
}
interface Content {
  role?: unknown;
  parts?: unknown;
}

const GEMINI_IMAGE_SIZES: Record<string, [number, number]> = {
  '1:1': [1024, 1024],
  '2:3': [832, 1248],
  '3:2': [1248, 832],
  '3:4': [864, 1184],
  '4:3': [1184, 864],
  '4:5': [896, 1152],
  '5:4': [1152, 896],
  '9:16': [768, 1344],
  '16:9': [1344, 768],
  '21:9': [1536, 672],
};

/**
 * Shutdown dates on the Gemini API deprecations page and release notes, for generateContent models the catalog used
 * (Imagen's `:predict` and Veo's `:predictLongRunning` models are all shut down, so the fake no longer serves them).
 */
const SHUTDOWN_DATES: Record<string, string> = {
  'gemini-2.5-flash-image': '2026-10-02',
};

function isShutDown(model: string, now = new Date()): boolean {
  const day = SHUTDOWN_DATES[model];
  return day !== undefined && now.toISOString().slice(0, 10) >= day;
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function error(res: ServerResponse, code: number, message: string): void {
  sendJson(res, code, { error: { code, message, status: STATUS_NAMES[code] ?? 'UNKNOWN' } });
}

const overloaded = (res: ServerResponse) => error(res, 503, 'The model is overloaded. Please try again later.');
const internal = (res: ServerResponse) =>
  error(res, 500, 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting');

function failureIn(text: string): Failure | undefined {
  return failureMarkerIn(text, FAILURES);
}

function partsOf(content: Content | undefined): Part[] {
  return Array.isArray(content?.parts) ? (content.parts as Part[]) : [];
}

function textOf(parts: Part[]): string {
  return parts.flatMap((p) => (typeof p.text === 'string' ? [p.text] : [])).join(' ');
}

function inlineMime(p: Part): string | undefined {
  const mime = p.inline_data?.mime_type ?? p.inlineData?.mimeType;
  return typeof mime === 'string' ? mime : undefined;
}

function imagesIn(parts: Part[]): number {
  return parts.filter((p) => (p.inline_data || p.inlineData) && inlineMime(p) !== 'application/pdf').length;
}

function documentsIn(parts: Part[]): number {
  return parts.filter((p) => inlineMime(p) === 'application/pdf').length;
}

/** Inline PDFs must be PDFs: the API reads the bytes and refuses what it cannot open. */
function checkInlineData(contents: Content[]): string | undefined {
  for (const c of contents) {
    for (const p of partsOf(c)) {
      if (inlineMime(p) !== 'application/pdf') continue;
      const data = p.inline_data?.data ?? p.inlineData?.data;
      const bytes = typeof data === 'string' ? Buffer.from(data, 'base64') : Buffer.alloc(0);
      if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') return 'The document has no pages.';
    }
  }
  return undefined;
}

const THINKING_LEVELS = ['MINIMAL', 'LOW', 'MEDIUM', 'HIGH'];
/** Thought tokens the sandbox model spends at each level (so a test sees the level arrive). */
const THOUGHTS: Record<string, number> = { MINIMAL: 0, LOW: 8, MEDIUM: 16, HIGH: 32 };

/**
 * generationConfig.thinkingConfig as the API checks it: a level (Gemini 3; Pro takes only LOW and HIGH) or a budget,
 * never both. The thought tokens it spends, or the error text.
 */
function readThinking(model: string, raw: unknown): number | string {
  if (raw === undefined) return 0;
  if (!raw || typeof raw !== 'object') return "Invalid value at 'generation_config.thinking_config'";
  const { thinkingLevel, thinkingBudget, includeThoughts } = raw as Record<string, unknown>;
  if (includeThoughts !== undefined && typeof includeThoughts !== 'boolean')
    return "Invalid value at 'generation_config.thinking_config.include_thoughts'";
  if (thinkingLevel !== undefined && thinkingBudget !== undefined) return 'thinking_budget and thinking_level are not supported together.';
  if (thinkingBudget !== undefined) {
    if (!Number.isInteger(thinkingBudget)) return "Invalid value at 'generation_config.thinking_config.thinking_budget'";
    return Math.max(0, Math.min(thinkingBudget as number, 64));
  }
  if (thinkingLevel === undefined) return 0;
  const level = typeof thinkingLevel === 'string' ? thinkingLevel.toUpperCase() : '';
  if (!THINKING_LEVELS.includes(level))
    return `Invalid value at 'generation_config.thinking_config.thinking_level' (${String(thinkingLevel)})`;
  if (!model.startsWith('gemini-3')) return 'Thinking level is not supported for this model.';
  if (model.includes('-pro') && (level === 'MINIMAL' || level === 'MEDIUM')) {
    return `Thinking level ${level} is not supported for this model. Supported levels: LOW, HIGH.`;
  }
  return THOUGHTS[level];
}

function snippet(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}

function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function readJson(req: SandboxRequest, res: ServerResponse): Record<string, unknown> | undefined {
  try {
    const body = JSON.parse(req.body.toString('utf8')) as unknown;
    if (body && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    /* answered below */
  }
  error(res, 400, 'Invalid JSON payload received.');
  return undefined;
}

type ToolChoice = 'auto' | 'none' | 'required' | { name: string } | undefined;

/** functionDeclarations and functionCallingConfig as the API checks them; the error text when malformed. */
function readTools(body: Record<string, unknown>): { tools: OfferedTool[]; choice: ToolChoice } | string {
  const tools: OfferedTool[] = [];
  for (const group of Array.isArray(body.tools) ? (body.tools as Array<{ functionDeclarations?: unknown }>) : []) {
    for (const d of Array.isArray(group?.functionDeclarations) ? (group.functionDeclarations as Array<Record<string, unknown>>) : []) {
      if (typeof d?.name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(d.name)) {
        return `* GenerateContentRequest.tools[0].function_declarations: [FIELD_INVALID] Invalid function name.`;
      }
      if (d.parameters !== undefined && d.parametersJsonSchema !== undefined) {
        return 'parameters and parametersJsonSchema cannot both be set';
      }
      tools.push({ name: d.name, parameters: d.parametersJsonSchema ?? d.parameters });
    }
  }
  const config = (
    (body.toolConfig ?? body.tool_config) as { functionCallingConfig?: { mode?: unknown; allowedFunctionNames?: unknown } } | undefined
  )?.functionCallingConfig;
  const mode = config?.mode;
  const allowed = Array.isArray(config?.allowedFunctionNames) ? (config.allowedFunctionNames as string[]) : [];
  if (allowed.length > 0 && mode !== 'ANY') return 'allowed_function_names is only allowed when the mode is ANY.';
  if (mode === undefined || mode === 'AUTO' || mode === 'MODE_UNSPECIFIED') return { tools, choice: mode === 'AUTO' ? 'auto' : undefined };
  if (mode === 'NONE') return { tools, choice: 'none' };
  if (mode === 'ANY') return { tools, choice: allowed.length > 0 ? { name: allowed[0] } : 'required' };
  return `Invalid value at 'tool_config.function_calling_config.mode' (${String(mode)})`;
}

/** Each turn of function responses answers every call of the model turn before it. */
function checkFunctionResponses(contents: Content[]): string | undefined {
  for (const [i, c] of contents.entries()) {
    const responses = partsOf(c).filter((p) => p.functionResponse).length;
    if (responses === 0) continue;
    const calls = i > 0 ? partsOf(contents[i - 1]).filter((p) => p.functionCall).length : 0;
    if (calls !== responses) {
      return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
    }
  }
  return undefined;
}

/**
 * Gemini 3 thinks before it calls a function and signs the call (`thoughtSignature` on the part of a step's first
 * functionCall). Within the current turn (everything after the last user message with text) each step's first call
 * must come back with its signature, or the request is refused; earlier turns are not checked. A signature must be
 * one the API issued, or one of the two dummies Google documents for calls it did not sign ("Thought signatures",
 * ai.google.dev).
 */
const DUMMY_SIGNATURES = new Set(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']);

function checkThoughtSignatures(model: string, contents: Content[], issued: ReadonlySet<string>): string | undefined {
  if (!model.startsWith('gemini-3')) return undefined;
  let start = 0;
  contents.forEach((c, i) => {
    if (c.role !== 'model' && textOf(partsOf(c)) !== '') start = i + 1;
  });
  for (const c of contents.slice(start)) {
    if (c.role !== 'model') continue;
    const parts = partsOf(c);
    const position = parts.findIndex((p) => p.functionCall);
    if (position < 0) continue;
    const signature = parts[position].thoughtSignature;
    if (typeof signature !== 'string' || signature === '') {
      const name = String(parts[position].functionCall?.name ?? '');
      return (
        'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, ' +
        `and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\`, ` +
        `position ${position + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`
      );
    }
    if (!issued.has(signature) && !DUMMY_SIGNATURES.has(signature)) return 'Corrupted thought signature.';
  }
  return undefined;
}

export function createGoogleSandbox(options: GoogleSandboxOptions = {}): SandboxHandler {
  const delayMs = options.streamDelayMs ?? 5;
  const pendingPolls = options.pendingPolls ?? 1;
  const files = new Map<string, string>(); // file id -> label
  const signatures = new Set<string>(); // thought signatures this fake issued
  const issueSignature = () => {
    const signature = randomBytes(48).toString('base64');
    signatures.add(signature);
    return signature;
  };
  const interactions = createInteractions({ pendingPolls, files, error });
  // Implicit caching: 1024 tokens or more on the Gemini models, reported as cachedContentTokenCount.
  const implicitCache = new AutomaticPromptCache({ minimum: 1024, step: 1, ttlMs: 10 * 60_000 });

  async function generateContent(model: string, stream: boolean, req: SandboxRequest, res: ServerResponse): Promise<void> {
    const body = readJson(req, res);
    if (!body) return;
    if (!Array.isArray(body.contents) || body.contents.length === 0) {
      return error(res, 400, '* GenerateContentRequest.contents: contents is not specified');
    }
    const contents = body.contents as Content[];
    if (contents.some((c) => c.role !== undefined && c.role !== 'user' && c.role !== 'model')) {
      return error(res, 400, 'Please use a valid role: user, model.');
    }
    const config = (body.generationConfig ?? {}) as Record<string, unknown>;
    const temperature = config.temperature;
    if (temperature !== undefined && (typeof temperature !== 'number' || temperature < 0 || temperature > 2)) {
      return error(res, 400, "Invalid value at 'generation_config.temperature'");
    }
    const thinking = readThinking(model, config.thinkingConfig);
    if (typeof thinking === 'string') return error(res, 400, thinking);
    const speech = speechProblem(model, config);
    if (speech) return error(res, 400, speech);
    const inlineProblem = checkInlineData(contents);
    if (inlineProblem) return error(res, 400, inlineProblem);
    const toolProblem = checkFunctionResponses(contents) ?? checkThoughtSignatures(model, contents, signatures);
    if (toolProblem) return error(res, 400, toolProblem);
    const offered = readTools(body);
    if (typeof offered === 'string') return error(res, 400, offered);
    const lastUser = [...contents].reverse().find((c) => c.role !== 'model' && textOf(partsOf(c)) !== '') ?? contents[contents.length - 1];
    const said = textOf(partsOf(lastUser));
    const failure = failureIn(said);
    if (failure === 'overloaded') return overloaded(res);
    if (failure === 'upstream') return internal(res);
    if (failure === 'timeout') return hangUntilClosed(res);
    const systemText = textOf(partsOf((body.systemInstruction ?? body.system_instruction) as Content | undefined));
    const promptTokenCount =
      tokens(contents.map((c) => textOf(partsOf(c))).join(' ') + systemText) + contents.reduce((n, c) => n + imagesIn(partsOf(c)) * 258, 0);
    // Implicit caching: a repeated prefix of contents (after the same system instruction and tools) is read again.
    const cachedContentTokenCount = implicitCache.account(
      `${model}\n${systemText}\n${JSON.stringify(body.tools ?? [])}`,
      contents.map((c) => ({ content: JSON.stringify(c), tokens: tokens(textOf(partsOf(c))) + imagesIn(partsOf(c)) * 258 })),
      promptTokenCount,
    );
    const cacheUsage = cachedContentTokenCount > 0 ? { cachedContentTokenCount } : {};
    // With includeThoughts, a thinking model's answer opens with a thought summary part.
    const showThoughts = (config.thinkingConfig as { includeThoughts?: unknown } | undefined)?.includeThoughts === true;
    const thoughtPart = (about: string): Part[] =>
      showThoughts && (thinking > 0 || model.startsWith('gemini-3')) ? [{ text: `Sandbox thought: ${about}`, thought: true } as Part] : [];

    // A blocked TTS prompt answers like a blocked text prompt (promptFeedback, no candidates).
    if (isTtsModel(model) && failure !== 'policy') return speechAnswer(model, said, promptTokenCount, stream, res);
    if (model.includes('image')) return imageContent(model, config, lastUser, said, failure, promptTokenCount, res);

    if (failure === 'policy') {
      const blocked = {
        promptFeedback: {
          blockReason: 'SAFETY',
          safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH' }],
        },
        usageMetadata: { promptTokenCount, totalTokenCount: promptTokenCount },
        modelVersion: model,
      };
      if (!stream) return sendJson(res, 200, blocked);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(blocked)}\r\n\r\n`);
      return;
    }

    const responseId = randomBytes(9).toString('base64url');
    const finalResponse = partsOf(contents[contents.length - 1]).find((p) => p.functionResponse)?.functionResponse;
    // A model acts on the user's latest words: the last text part.
    const latest = partsOf(lastUser).flatMap((p) => (typeof p.text === 'string' ? [p.text] : []));
    const call = chooseToolCall(offered.tools, offered.choice, finalResponse !== undefined, latest[latest.length - 1] ?? said);
    if (call) {
      const argsTokens = Math.ceil(JSON.stringify(call.arguments).length / 4);
      const answer = {
        candidates: [
          {
            content: {
              parts: [
                ...thoughtPart(`call ${call.name} for "${snippet(said)}".`),
                {
                  functionCall: { name: call.name, args: call.arguments },
                  ...(model.startsWith('gemini-3') ? { thoughtSignature: issueSignature() } : {}),
                },
              ],
              role: 'model',
            },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: {
          promptTokenCount,
          candidatesTokenCount: argsTokens,
          ...(thinking > 0 ? { thoughtsTokenCount: thinking } : {}),
          ...cacheUsage,
          totalTokenCount: promptTokenCount + argsTokens + thinking,
        },
        modelVersion: model,
        responseId,
      };
      if (!stream) return sendJson(res, 200, answer);
      if (req.query.get('alt') !== 'sse') return sendJson(res, 200, [answer]);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
      return;
    }

    const images = imagesIn(partsOf(lastUser));
    const documents = documentsIn(partsOf(lastUser));
    const seen =
      images > 0
        ? ` (with ${images} image${images > 1 ? 's' : ''})`
        : documents > 0
          ? ` (with ${documents} document${documents > 1 ? 's' : ''})`
          : '';
    let text = finalResponse
      ? toolResultAnswer(
          model,
          typeof finalResponse.name === 'string' ? finalResponse.name : undefined,
          JSON.stringify(finalResponse.response ?? {}),
        )
      : `Sandbox reply from ${model}: you said "${snippet(said)}"${seen}. This text comes from the built-in sandbox, not from Google.`;
    if (config.responseMimeType === 'application/json') text = jsonAnswer(config.responseJsonSchema ?? config.responseSchema, text);
    let pieces: string[] = text.match(/\S+\s*/g) ?? [text];
    let finishReason = 'STOP';
    const max = config.maxOutputTokens;
    if (typeof max === 'number' && pieces.length > max) {
      pieces = pieces.slice(0, Math.max(0, max));
      finishReason = 'MAX_TOKENS';
    }
    // Gemini 3 signs the last part of an answer that called nothing when it thought (kept only with thoughts shown).
    const answerThought = thoughtPart(`answer "${snippet(said)}".`);
    const answerSignature = answerThought.length > 0 && model.startsWith('gemini-3') ? { thoughtSignature: issueSignature() } : {};
    const usage = {
      ...cacheUsage,
      promptTokenCount,
      candidatesTokenCount: pieces.length,
      ...(thinking > 0 ? { thoughtsTokenCount: thinking } : {}),
      totalTokenCount: promptTokenCount + pieces.length + thinking,
    };

    if (!stream) {
      return sendJson(res, 200, {
        candidates: [
          { content: { parts: [...answerThought, { text: pieces.join(''), ...answerSignature }], role: 'model' }, finishReason, index: 0 },
        ],
        usageMetadata: usage,
        modelVersion: model,
        responseId,
      });
    }

    // Two word pieces a chunk (the thought summary first); the last chunk carries finishReason, the full usage and
    // the answer's signature.
    const chunks: Record<string, unknown>[] = answerThought.map((part) => ({
      candidates: [{ content: { parts: [part], role: 'model' }, index: 0 }],
      usageMetadata: { promptTokenCount, totalTokenCount: promptTokenCount },
      modelVersion: model,
      responseId,
    }));
    for (let i = 0; i < pieces.length; i += 2) {
      const last = i + 2 >= pieces.length;
      chunks.push({
        candidates: [
          {
            content: { parts: [{ text: pieces.slice(i, i + 2).join(''), ...(last ? answerSignature : {}) }], role: 'model' },
            ...(last ? { finishReason } : {}),
            index: 0,
          },
        ],
        usageMetadata: last ? usage : { promptTokenCount, totalTokenCount: promptTokenCount },
        modelVersion: model,
        responseId,
      });
    }
    if (chunks.length === 0) {
      chunks.push({
        candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason, index: 0 }],
        usageMetadata: usage,
        modelVersion: model,
        responseId,
      });
    }
    if (req.query.get('alt') !== 'sse') return sendJson(res, 200, failure === 'midstream' ? chunks.slice(0, 2) : chunks);

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const toSend = failure === 'midstream' ? chunks.slice(0, 2) : chunks;
    for (const chunk of toSend) {
      if (res.destroyed) return;
      res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
      await sleep(delayMs);
    }
    if (failure === 'midstream') {
      res.socket?.destroy();
      return;
    }
    res.end();
  }

  async function imageContent(
    model: string,
    config: Record<string, unknown>,
    lastUser: Content | undefined,
    said: string,
    failure: Failure | undefined,
    promptTokenCount: number,
    res: ServerResponse,
  ): Promise<void> {
    if (failure === 'midstream') {
      res.socket?.destroy();
      return;
    }
    const usageMetadata = { promptTokenCount, candidatesTokenCount: 1290, totalTokenCount: promptTokenCount + 1290 };
    if (failure === 'policy') {
      return sendJson(res, 200, { candidates: [{ finishReason: 'IMAGE_SAFETY', index: 0 }], usageMetadata, modelVersion: model });
    }
    const imageConfig = (config.imageConfig ?? config.image_config ?? {}) as Record<string, unknown>;
    const ratio = (imageConfig.aspectRatio ?? imageConfig.aspect_ratio ?? '1:1') as string;
    const size = GEMINI_IMAGE_SIZES[ratio];
    if (!size) return error(res, 400, `Unsupported aspect ratio: ${String(ratio)}`);
    const edit = imagesIn(partsOf(lastUser)) > 0;
    const png = await syntheticImage(size[0], size[1], `${model} ${edit ? 'edit' : ratio}: ${snippet(said, 40)}`);
    sendJson(res, 200, {
      candidates: [
        {
          content: {
            parts: [
              { text: `Here is your ${edit ? 'edited ' : ''}image from the sandbox.` },
              { inlineData: { mimeType: 'image/png', data: png.toString('base64') } },
            ],
            role: 'model',
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata,
      modelVersion: model,
    });
  }

  return async (req, res) => {
    // Where a download redirects: a signed storage URL that needs no key (Google's lives on another host).
    const stored = /^\/sandbox-storage\/([^/]+)$/.exec(req.path);
    if (stored && req.method === 'GET') {
      if (!files.has(stored[1])) return error(res, 404, 'No such object.');
      return sendBytes(res, 200, syntheticMp4(), 'video/mp4');
    }
    const key = req.headers['x-goog-api-key'] ?? req.query.get('key');
    if (typeof key !== 'string' || key === '') {
      return error(
        res,
        403,
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      );
    }
    const method = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|predict|predictLongRunning)$/.exec(req.path);
    if (method && req.method === 'POST') {
      const [, model, verb] = method;
      // No model the Gemini API still serves takes :predict or :predictLongRunning (Imagen 4 and Veo are shut down).
      if (isShutDown(model) || verb === 'predict' || verb === 'predictLongRunning') {
        return error(res, 404, `models/${model} is not found for API version v1beta, or is not supported for ${verb}.`);
      }
      return generateContent(model, verb === 'streamGenerateContent', req, res);
    }
    if (req.path === '/v1beta/interactions' && req.method === 'POST') {
      const body = readJson(req, res);
      return body ? interactions.create(body, req, res) : undefined;
    }
    const interaction = /^\/v1beta\/interactions\/([A-Za-z0-9_-]+)$/.exec(req.path);
    if (interaction && req.method === 'GET') return interactions.get(interaction[1], req, res);
    const file = /^\/v1beta\/files\/([^/:]+):download$/.exec(req.path);
    if (file && req.method === 'GET') {
      if (!files.has(file[1])) return error(res, 404, `File files/${file[1]} not found.`);
      // Google answers the download URI with a 302 to the file's storage location; clients must follow it.
      res.writeHead(302, { location: `${req.mountUrl}/sandbox-storage/${file[1]}`, 'content-length': 0 });
      return void res.end();
    }
    error(res, 404, `Requested entity was not found: ${req.method} ${req.path}`);
  };
}

export const googleSandbox: SandboxHandler = createGoogleSandbox();
