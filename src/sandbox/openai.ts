import type { ServerResponse } from 'node:http';
import {
  answerGenericFailure,
  ChatFakeProfile,
  defaultChunkDelayMs,
  dropMidBody,
  ErrorReply,
  failureMarker,
  handleChatCompletions,
  hangUntilClosed,
  hostFile,
  maskKey,
  normalizePath,
  checkBearer,
  parseJsonObject,
  routeVendorRequests,
  sendError,
  VendorErrors,
} from './chat-completions-fake';
import { sandboxModelLists } from './model-lists';
import { createResponsesFake } from './openai-responses';
import { syntheticImage, syntheticMp3, syntheticWav } from './synthetic';
import { AutomaticPromptCache } from './prefix-cache';
import { syntheticOggOpus } from './ogg-opus';
import { sendBytes, sendJson, type SandboxHandler, type SandboxRequest } from './types';

// An in-process fake of api.openai.com/v1: Chat Completions, Responses (openai-responses.ts), Images, Speech,
// Transcriptions and Translations, with OpenAI's paths, bearer auth, JSON shapes, SSE framing and error bodies.

function openAiError(status: number, message: string, type: string, param: string | null, code: string | null): ErrorReply {
  return { status, body: { error: { message, type, param, code } } };
}

export const openAiErrors: VendorErrors = {
  missingKey: () =>
    openAiError(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from https://platform.openai.com/account/api-keys.",
      'invalid_request_error',
      null,
      null,
    ),
  invalidKey: (key) =>
    openAiError(
      401,
      `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      'invalid_request_error',
      null,
      'invalid_api_key',
    ),
  rateLimited: (model) =>
    openAiError(
      429,
      `Rate limit reached for ${model} in organization org-sandbox on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
      'requests',
      null,
      'rate_limit_exceeded',
    ),
  overloaded: () => openAiError(503, 'The engine is currently overloaded, please try again later.', 'server_error', null, null),
  serverError: () =>
    openAiError(500, 'The server had an error while processing your request. Sorry about that!', 'server_error', null, null),
  badRequest: (message, param, code) => openAiError(400, message, 'invalid_request_error', param ?? null, code ?? null),
  notFound: (method, path) => openAiError(404, `Invalid URL (${method} ${path})`, 'invalid_request_error', null, null),
  // A 429 like the rate limit, but it means the account has no credit: retrying never helps.
  insufficientBalance: () =>
    openAiError(
      429,
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
      'insufficient_quota',
      null,
      'insufficient_quota',
    ),
};

// OpenAI's reasoning families as its model pages describe them: accepted `reasoning_effort` values, and whether Chat
// Completions takes function calling (always, only with reasoning off, or not at all: the Responses API only).
interface ReasoningFamily {
  efforts: readonly string[];
  tools: 'any' | 'without-reasoning' | 'responses-only';
}
const TO_MAX = ['none', 'low', 'medium', 'high', 'xhigh', 'max'];
const REASONING_FAMILIES: Array<[RegExp, ReasoningFamily]> = [
  [/^gpt-6\.2-/, { efforts: ['low', 'medium', 'high', 'xhigh', 'max'], tools: 'any' }],
  [/^gpt-6\.1-sol/, { efforts: ['low', 'medium', 'high', 'xhigh', 'max'], tools: 'responses-only' }],
  [/^gpt-6\.1-/, { efforts: TO_MAX, tools: 'responses-only' }],
  [/^gpt-6-/, { efforts: TO_MAX, tools: 'without-reasoning' }],
  [/^gpt-5\.6-/, { efforts: TO_MAX, tools: 'any' }],
  [/^gpt-5/, { efforts: ['minimal', 'low', 'medium', 'high'], tools: 'any' }],
  [/^o\d/, { efforts: ['low', 'medium', 'high'], tools: 'any' }],
];

function reasoningFamily(model: string): ReasoningFamily | undefined {
  return REASONING_FAMILIES.find(([pattern]) => pattern.test(model))?.[1];
}

/**
 * Models past their shutdown date on OpenAI's deprecations page (the day they stop answering). From that day the API
 * answers 404 `model_not_found`, as for any model it does not serve.
 */
const SHUTDOWN_DATES: Record<string, string> = {
  'gpt-4.1-nano': '2026-10-23',
  'gpt-4.1-nano-2025-04-14': '2026-10-23',
  'o4-mini': '2026-10-23',
  'o4-mini-2025-04-16': '2026-10-23',
  'gpt-image-1': '2026-10-23',
  'gpt-image-1-mini': '2026-12-01',
  'gpt-5': '2026-12-11',
  'gpt-5-mini': '2026-12-11',
  'tts-1': '2027-01-06',
  'tts-1-hd': '2027-01-06',
  'gpt-4o-mini-tts': '2027-01-06',
  'gpt-4o': '2027-01-14',
  'gpt-4o-mini': '2027-01-14',
  'gpt-4.1': '2027-01-14',
  'whisper-1': '2027-02-26',
  'gpt-4o-transcribe': '2027-02-26',
};

/** The 404 OpenAI answers for a model it does not (or no longer) serve, or a test stopped; undefined while it answers. */
export function shutDownModel(model: string, now = new Date()): ErrorReply | undefined {
  const day = SHUTDOWN_DATES[model];
  const stopped = !sandboxModelLists.serves('openai', model);
  if (!stopped && (day === undefined || now.toISOString().slice(0, 10) < day)) return undefined;
  return openAiError(
    404,
    `The model \`${model}\` does not exist or you do not have access to it.`,
    'invalid_request_error',
    null,
    'model_not_found',
  );
}

/** OpenAI's refusals for reasoning models, worded as the API words them. */
function validateChat(body: Record<string, unknown>, now: Date): ErrorReply | undefined {
  const model = String(body.model);
  const gone = shutDownModel(model, now);
  if (gone) return gone;
  const labels = labelProblem(body);
  if (labels) return labels;
  const family = reasoningFamily(model);
  const verbosity = verbosityProblem(model, family, body);
  if (verbosity) return verbosity;
  if (!family) {
    if (body.reasoning_effort !== undefined) {
      return openAiError(
        400,
        "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
        'invalid_request_error',
        'reasoning_effort',
        'unsupported_parameter',
      );
    }
    return undefined;
  }
  const efforts = family.efforts;
  if (body.reasoning_effort !== undefined && !efforts.includes(String(body.reasoning_effort))) {
    return openAiError(
      400,
      `Unsupported value: 'reasoning_effort' does not support '${String(body.reasoning_effort)}' with this model. Supported values are: ${efforts.map((e) => `'${e}'`).join(', ')}.`,
      'invalid_request_error',
      'reasoning_effort',
      'unsupported_value',
    );
  }
  // Log probabilities come from a reasoning model only with reasoning off.
  if ((body.logprobs === true || body.top_logprobs !== undefined) && body.reasoning_effort !== 'none') {
    const param = body.logprobs === true ? 'logprobs' : 'top_logprobs';
    return openAiError(
      400,
      `Unsupported parameter: '${param}' is not supported with this model unless 'reasoning_effort' is 'none'.`,
      'invalid_request_error',
      param,
      'unsupported_parameter',
    );
  }
  const tools = Array.isArray(body.tools) && body.tools.length > 0;
  if (tools && family.tools === 'responses-only') {
    return openAiError(
      400,
      `Function tools are not supported with ${model} in /v1/chat/completions. Use /v1/responses instead.`,
      'invalid_request_error',
      'tools',
      'unsupported_parameter',
    );
  }
  if (tools && family.tools === 'without-reasoning' && body.reasoning_effort !== 'none') {
    return openAiError(
      400,
      `Function tools with reasoning_effort are not supported for ${model} in /v1/chat/completions. Set reasoning_effort to 'none' or use /v1/responses instead.`,
      'invalid_request_error',
      'reasoning_effort',
      'unsupported_parameter',
    );
  }
  if (body.max_tokens !== undefined) {
    return openAiError(
      400,
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      'invalid_request_error',
      'max_tokens',
      'unsupported_parameter',
    );
  }
  if (body.temperature !== undefined && body.temperature !== 1) {
    return openAiError(
      400,
      `Unsupported value: 'temperature' does not support ${String(body.temperature)} with this model. Only the default (1) value is supported.`,
      'invalid_request_error',
      'temperature',
      'unsupported_value',
    );
  }
  return undefined;
}

/** `verbosity` (GPT-5 and later): low, medium or high; older models do not know it. */
function verbosityProblem(model: string, family: ReasoningFamily | undefined, body: Record<string, unknown>): ErrorReply | undefined {
  if (body.verbosity === undefined) return undefined;
  if (!family || /^o\d/.test(model)) {
    return openAiError(
      400,
      "Unsupported parameter: 'verbosity' is not supported with this model.",
      'invalid_request_error',
      'verbosity',
      'unsupported_parameter',
    );
  }
  if (!['low', 'medium', 'high'].includes(String(body.verbosity)))
    return unsupportedValue('verbosity', body.verbosity, ['low', 'medium', 'high']);
  return undefined;
}

/** metadata: at most 16 string pairs (keys up to 64, values up to 512 characters); the other labels are strings. */
function labelProblem(body: Record<string, unknown>): ErrorReply | undefined {
  const metadata = body.metadata;
  if (metadata !== undefined && metadata !== null) {
    const entries = typeof metadata === 'object' && !Array.isArray(metadata) ? Object.entries(metadata) : undefined;
    if (!entries || entries.length > 16 || entries.some(([k, v]) => k.length > 64 || typeof v !== 'string' || v.length > 512)) {
      return openAiError(
        400,
        "Invalid 'metadata': expected an object of at most 16 string pairs.",
        'invalid_request_error',
        'metadata',
        'invalid_value',
      );
    }
  }
  if (body.service_tier !== undefined && !['auto', 'default', 'flex', 'scale', 'priority'].includes(String(body.service_tier))) {
    return unsupportedValue('service_tier', body.service_tier, ['auto', 'default', 'flex', 'scale', 'priority']);
  }
  for (const param of ['user', 'prompt_cache_key', 'safety_identifier']) {
    if (body[param] !== undefined && typeof body[param] !== 'string') {
      return openAiError(400, `Invalid type for '${param}': expected a string.`, 'invalid_request_error', param, 'invalid_type');
    }
  }
  if (body.store !== undefined && typeof body.store !== 'boolean') {
    return openAiError(400, "Invalid type for 'store': expected a boolean.", 'invalid_request_error', 'store', 'invalid_type');
  }
  return undefined;
}

function unsupportedValue(param: string, value: unknown, allowed: readonly string[]): ErrorReply {
  return openAiError(
    400,
    `Invalid value: '${String(value)}'. Supported values are: ${allowed.map((v) => `'${v}'`).join(', ')}.`,
    'invalid_request_error',
    param,
    'invalid_value',
  );
}

// ---------- images ----------

const DALL_E_3 = { sizes: ['1024x1024', '1792x1024', '1024x1792'], qualities: ['standard', 'hd'] } as const;
const GPT_IMAGE = { sizes: ['1024x1024', '1536x1024', '1024x1536', 'auto'], qualities: ['low', 'medium', 'high', 'auto'] } as const;
const DALL_E_2_SIZES = ['256x256', '512x512', '1024x1024'] as const;

function imageRequestError(model: string, body: Record<string, unknown>): ErrorReply | undefined {
  const gptImage = model.startsWith('gpt-image');
  const sizes: readonly string[] = gptImage ? GPT_IMAGE.sizes : model === 'dall-e-3' ? DALL_E_3.sizes : DALL_E_2_SIZES;
  if (body.size !== undefined && !sizes.includes(String(body.size))) return unsupportedValue('size', body.size, sizes);
  if (gptImage) {
    if (body.response_format !== undefined) {
      return openAiError(400, "Unknown parameter: 'response_format'.", 'invalid_request_error', 'response_format', 'unknown_parameter');
    }
    if (body.style !== undefined) {
      return openAiError(400, "Unknown parameter: 'style'.", 'invalid_request_error', 'style', 'unknown_parameter');
    }
    if (body.quality !== undefined && !(GPT_IMAGE.qualities as readonly string[]).includes(String(body.quality))) {
      return unsupportedValue('quality', body.quality, GPT_IMAGE.qualities);
    }
  } else if (model === 'dall-e-3') {
    if (body.quality !== undefined && !(DALL_E_3.qualities as readonly string[]).includes(String(body.quality))) {
      return unsupportedValue('quality', body.quality, DALL_E_3.qualities);
    }
    if (body.style !== undefined && body.style !== 'vivid' && body.style !== 'natural') {
      return unsupportedValue('style', body.style, ['vivid', 'natural']);
    }
    if (body.n !== undefined && body.n !== 1) {
      return openAiError(400, 'You must provide n=1 for this model.', 'invalid_request_error', 'n', 'invalid_value');
    }
  }
  if (body.response_format !== undefined && body.response_format !== 'url' && body.response_format !== 'b64_json') {
    return unsupportedValue('response_format', body.response_format, ['url', 'b64_json']);
  }
  return undefined;
}

function policyRefusal(model: string): ErrorReply {
  return model.startsWith('gpt-image')
    ? openAiError(
        400,
        'Your request was rejected by the safety system. If you believe this is an error, contact us at help.openai.com and include the request ID req_sandbox.',
        'image_generation_user_error',
        null,
        'moderation_blocked',
      )
    : openAiError(
        400,
        'Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.',
        'invalid_request_error',
        null,
        'content_policy_violation',
      );
}

async function handleImages(req: SandboxRequest, res: ServerResponse, now: Date): Promise<void> {
  const body = parseJsonObject(req.body);
  if (!body) return sendError(res, openAiErrors.badRequest('We could not parse the JSON body of your request.'));
  if (typeof body.prompt !== 'string' || !body.prompt) {
    return sendError(res, openAiErrors.badRequest("Missing required parameter: 'prompt'.", 'prompt', 'missing_required_parameter'));
  }
  const model = typeof body.model === 'string' ? body.model : 'dall-e-2';
  const gone = shutDownModel(model, now);
  if (gone) return sendError(res, gone);
  const invalid = imageRequestError(model, body);
  if (invalid) return sendError(res, invalid);
  const marker = failureMarker(body.prompt);
  if (answerGenericFailure(marker, openAiErrors, model, res)) return;
  if (marker === 'timeout') return hangUntilClosed(res);
  if (marker === 'policy') return sendError(res, policyRefusal(model));

  const size = typeof body.size === 'string' && body.size !== 'auto' ? body.size : '1024x1024';
  const [width, height] = size.split('x').map(Number);
  const png = await syntheticImage(width, height, `openai ${model}: ${body.prompt.slice(0, 40)}`);
  const created = Math.floor(Date.now() / 1000);
  const revised = `Sandbox rendering of: ${body.prompt}`;
  let answer: Record<string, unknown>;
  if (model.startsWith('gpt-image')) {
    const textTokens = Math.ceil(body.prompt.length / 4);
    answer = {
      created,
      background: 'opaque',
      data: [{ b64_json: png.toString('base64') }],
      output_format: 'png',
      quality: typeof body.quality === 'string' && body.quality !== 'auto' ? body.quality : 'medium',
      size,
      usage: {
        input_tokens: textTokens,
        input_tokens_details: { image_tokens: 0, text_tokens: textTokens },
        output_tokens: 1056,
        total_tokens: textTokens + 1056,
      },
    };
  } else if (body.response_format === 'b64_json') {
    answer = { created, data: [{ b64_json: png.toString('base64'), revised_prompt: revised }] };
  } else {
    const url = `${req.mountUrl}/v1/sandbox-files/${hostFile(png, 'image/png')}`;
    answer = { created, data: [{ url, revised_prompt: revised }] };
  }
  if (marker === 'midstream') return dropMidBody(res, 'application/json', JSON.stringify(answer));
  sendJson(res, 200, answer);
}

// ---------- speech ----------

const VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer', 'verse', 'marin', 'cedar'];
const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'];

function handleSpeech(req: SandboxRequest, res: ServerResponse, now: Date): Promise<void> | void {
  const body = parseJsonObject(req.body);
  if (!body) return sendError(res, openAiErrors.badRequest('We could not parse the JSON body of your request.'));
  for (const field of ['model', 'input', 'voice']) {
    if (typeof body[field] !== 'string' || !body[field]) {
      return sendError(res, openAiErrors.badRequest(`Missing required parameter: '${field}'.`, field, 'missing_required_parameter'));
    }
  }
  const { model, input, voice } = body as { model: string; input: string; voice: string };
  const gone = shutDownModel(model, now);
  if (gone) return sendError(res, gone);
  if (!VOICES.includes(voice)) return sendError(res, unsupportedValue('voice', voice, VOICES));
  const format = body.response_format === undefined ? 'mp3' : String(body.response_format);
  if (!SPEECH_FORMATS.includes(format)) return sendError(res, unsupportedValue('response_format', format, SPEECH_FORMATS));
  const speed = body.speed === undefined ? 1 : Number(body.speed);
  if (!(speed >= 0.25 && speed <= 4)) {
    return sendError(
      res,
      openAiError(
        400,
        `Invalid 'speed': ${String(body.speed)}. Expected a value between 0.25 and 4.0.`,
        'invalid_request_error',
        'speed',
        'invalid_value',
      ),
    );
  }
  const marker = failureMarker(input);
  if (answerGenericFailure(marker, openAiErrors, model, res)) return;
  if (marker === 'timeout') return hangUntilClosed(res);

  // About 15 characters a second of speech; the sandbox cannot encode aac/flac and answers MP3 for them.
  const seconds = Math.min(30, Math.max(1, input.length / 15 / speed));
  if (format === 'wav') return sendBytes(res, 200, syntheticWav(seconds), 'audio/wav');
  if (format === 'opus') return sendBytes(res, 200, syntheticOggOpus(seconds), 'audio/ogg');
  if (format === 'pcm') return sendBytes(res, 200, syntheticWav(seconds).subarray(44), 'audio/pcm');
  sendBytes(res, 200, syntheticMp3(seconds), 'audio/mpeg');
}

// ---------- transcriptions ----------

const AUDIO_EXTENSIONS = ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm'];

async function readForm(req: SandboxRequest): Promise<FormData | undefined> {
  const contentType = req.headers['content-type'];
  if (typeof contentType !== 'string' || !contentType.startsWith('multipart/form-data')) return undefined;
  try {
    return await new Request('http://sandbox/upload', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: new Uint8Array(req.body),
    }).formData();
  } catch {
    return undefined;
  }
}

/** Seconds of audio: exact for PCM WAV, else estimated at 128 kbit/s. */
function audioSeconds(data: Buffer): number {
  if (data.length > 44 && data.toString('ascii', 0, 4) === 'RIFF' && data.toString('ascii', 8, 12) === 'WAVE') {
    const byteRate = data.readUInt32LE(28);
    if (byteRate > 0) return Math.round(((data.length - 44) / byteRate) * 100) / 100;
  }
  return Math.max(1, Math.round(data.length / 16000));
}

/** Whisper's verbose segments over the text: one per sentence, the audio's time shared out by length. */
function whisperSegments(text: string, seconds: number): Record<string, unknown>[] {
  const sentences = text
    .match(/[^.!?]+[.!?]*/g)
    ?.map((t) => t.trim())
    .filter(Boolean) ?? [text];
  const total = sentences.reduce((n, t) => n + t.length, 0) || 1;
  let start = 0;
  return sentences.map((sentence, id) => {
    const end = Math.round((start + (seconds * sentence.length) / total) * 100) / 100;
    const segment = {
      id,
      seek: 0,
      start,
      end,
      text: ` ${sentence}`,
      tokens: [...sentence].slice(0, 8).map((c) => 50364 + c.charCodeAt(0)),
      temperature: 0,
      avg_logprob: -0.2,
      compression_ratio: 1.1,
      no_speech_prob: 0.01,
    };
    start = end;
    return segment;
  });
}

async function handleTranscriptions(
  req: SandboxRequest,
  res: ServerResponse,
  now: Date,
  task: 'transcribe' | 'translate' = 'transcribe',
): Promise<void> {
  const form = await readForm(req);
  if (!form) {
    return sendError(
      res,
      openAiErrors.badRequest(`Invalid Content-Type header (${String(req.headers['content-type'])}), expected multipart/form-data.`),
    );
  }
  const file = form.get('file');
  const model = form.get('model');
  if (!(file instanceof Blob)) return sendError(res, openAiErrors.badRequest("Missing required parameter: 'file'.", 'file'));
  if (typeof model !== 'string' || !model) return sendError(res, openAiErrors.badRequest("Missing required parameter: 'model'.", 'model'));
  const filename = file instanceof File ? file.name : 'upload';
  const ext = /\.([a-z0-9]+)$/i.exec(filename)?.[1].toLowerCase();
  if (!ext || !AUDIO_EXTENSIONS.includes(ext)) {
    return sendError(
      res,
      openAiErrors.badRequest(`Invalid file format. Supported formats: [${AUDIO_EXTENSIONS.map((e) => `'${e}'`).join(', ')}]`, 'file'),
    );
  }
  const gone = shutDownModel(model, now);
  if (gone) return sendError(res, gone);
  // Translations take OpenAI's transcription models (whisper-1, the GPT-4o transcribe models, gpt-transcribe).
  if (task === 'translate' && !/^(whisper-1|gpt-4o(-mini)?-transcribe|gpt-transcribe)$/.test(model)) {
    return sendError(
      res,
      openAiErrors.badRequest(
        `Invalid model ${model}: translations take whisper-1, gpt-4o-transcribe, gpt-4o-mini-transcribe or gpt-transcribe.`,
        'model',
        'invalid_value',
      ),
    );
  }
  const format = String(form.get('response_format') ?? 'json');
  const gpt4o = model.startsWith('gpt-4o');
  // gpt-transcribe, whisper-1's successor, answers json or text only (no subtitles or timestamps) and bills minutes.
  if ((gpt4o || model === 'gpt-transcribe') && format !== 'json' && format !== 'text') {
    return sendError(
      res,
      openAiErrors.badRequest(
        `response_format '${format}' is not compatible with model '${model}'. Use 'json' or 'text' instead.`,
        'response_format',
      ),
    );
  }
  const prompt = form.get('prompt');
  const marker = failureMarker(`${filename} ${typeof prompt === 'string' ? prompt : ''}`);
  if (answerGenericFailure(marker, openAiErrors, model, res)) return;
  if (marker === 'timeout') return hangUntilClosed(res);

  const data = Buffer.from(await file.arrayBuffer());
  const language = form.get('language');
  const seconds = audioSeconds(data);
  const text =
    task === 'translate'
      ? `Sandbox translation of ${filename} (${data.length} bytes). It is in English.`
      : `Sandbox transcription of ${filename} (${data.length} bytes${typeof language === 'string' && language ? `, language ${language}` : ''}).`;
  if (format === 'text') return sendBytes(res, 200, Buffer.from(`${text}\n`), 'text/plain; charset=utf-8');
  if (format === 'verbose_json') {
    const named = typeof language === 'string' && language ? new Intl.DisplayNames(['en'], { type: 'language' }).of(language) : undefined;
    return sendJson(res, 200, {
      task,
      language: task === 'translate' ? 'english' : (named?.toLowerCase() ?? 'english'),
      duration: seconds,
      text,
      segments: whisperSegments(text, seconds),
      usage: { type: 'duration', seconds: Math.ceil(seconds) },
    });
  }
  const audioTokens = Math.ceil(seconds * 10);
  const outputTokens = Math.ceil(text.length / 4);
  const usage = gpt4o
    ? {
        type: 'tokens',
        input_tokens: audioTokens,
        input_token_details: { text_tokens: 0, audio_tokens: audioTokens },
        output_tokens: outputTokens,
        total_tokens: audioTokens + outputTokens,
      }
    : { type: 'duration', seconds: Math.ceil(seconds) };
  sendJson(res, 200, { text, usage });
}

// ---------- routing ----------

export interface OpenAiSandboxOptions {
  /** Pause between stream chunks in ms (default 5, or SANDBOX_CHUNK_DELAY_MS). */
  chunkDelayMs?: number;
  /** The day the fake believes it is, for the shutdown dates (default: the clock). */
  now?: () => Date;
}

export function createOpenAiSandbox(options: OpenAiSandboxOptions = {}): SandboxHandler {
  const now = options.now ?? (() => new Date());
  const chatProfile: ChatFakeProfile = {
    vendor: 'openai',
    errors: openAiErrors,
    chunkDelayMs: options.chunkDelayMs ?? defaultChunkDelayMs(),
    reasoning: (model, body) => (reasoningFamily(model) && body.reasoning_effort !== 'none' ? 'hidden' : undefined),
    acceptsFiles: true,
    reasoningTokensOutsideCompletion: false,
    validate: (body) => validateChat(body, now()),
    // Reasoning models refuse flagged prompts with a 400 invalid_prompt; other models end with content_filter.
    policyError: (model) =>
      reasoningFamily(model)
        ? openAiError(
            400,
            'Invalid prompt: your prompt was flagged as potentially violating our usage policy. Please try again with a different prompt: https://platform.openai.com/docs/guides/reasoning#advice-on-prompting',
            'invalid_request_error',
            null,
            'invalid_prompt',
          )
        : undefined,
    systemFingerprint: 'fp_sandbox',
    // Prompts of 1024 tokens or more, hits in 128-token steps, kept 5 to 10 minutes; prompt_cache_key routes.
    promptCache: { cache: new AutomaticPromptCache({ minimum: 1024, step: 128, ttlMs: 10 * 60_000 }), reports: 'details', keyed: true },
  };
  const responses = createResponsesFake({
    errors: openAiErrors,
    chunkDelayMs: chatProfile.chunkDelayMs,
    modelProblem: (model) => shutDownModel(model, now()),
    efforts: (model) => reasoningFamily(model)?.efforts,
    webSearch: () => true,
  });
  // Result URLs are signed blob links at OpenAI: the router serves them without the API key.
  const routed = routeVendorRequests(
    openAiErrors,
    new Map<string, SandboxHandler>([
      ['/v1/chat/completions', (r, s) => handleChatCompletions(chatProfile, r, s)],
      ['/v1/images/generations', (r, s) => handleImages(r, s, now())],
      ['/v1/audio/speech', (r, s) => handleSpeech(r, s, now())],
      ['/v1/audio/transcriptions', (r, s) => handleTranscriptions(r, s, now())],
      ['/v1/audio/translations', (r, s) => handleTranscriptions(r, s, now(), 'translate')],
    ]),
  );
  return async (req, res) => {
    const path = normalizePath(req.path);
    if (!/^\/v1\/responses(\/|$)/.test(path)) return routed(req, res);
    const denied = checkBearer(req, openAiErrors);
    if (denied) return sendError(res, denied);
    if (!(await responses.handle(req, res))) sendError(res, openAiErrors.notFound(req.method, path));
  };
}

/** The OpenAI fake mounted by the sandbox server. */
export const openaiSandbox: SandboxHandler = createOpenAiSandbox();
