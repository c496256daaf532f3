import type { ServerResponse } from 'node:http';
import { sharp } from '../core/media/sharp-lib';
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
  parseJsonObject,
  routeVendorRequests,
  sendError,
  VendorErrors,
} from './chat-completions-fake';
import { syntheticImage } from './synthetic';
import { AutomaticPromptCache } from './prefix-cache';
import { sendJson, type SandboxHandler, type SandboxRequest } from './types';

// An in-process fake of api.x.ai/v1: Chat Completions and grok-2-image generations. xAI's error
// bodies are flat: {"code": <gRPC status text>, "error": <message>}; a wrong key is a 400.

const INVALID_ARGUMENT = 'Client specified an invalid argument';

function xaiError(status: number, code: string, error: string): ErrorReply {
  return { status, body: { code, error } };
}

export const xaiErrors: VendorErrors = {
  missingKey: () => xaiError(401, 'unauthenticated:no-credentials', 'No credentials presented.'),
  invalidKey: (key) =>
    xaiError(400, INVALID_ARGUMENT, `Incorrect API key provided: ${maskKey(key)}. You can obtain an API key from https://console.x.ai.`),
  rateLimited: (model) =>
    xaiError(429, 'Some resource has been exhausted', `Your team has reached its requests-per-second limit for model ${model}.`),
  overloaded: () => xaiError(503, 'The service is currently unavailable', 'The model is overloaded. Please try again later.'),
  serverError: () => xaiError(500, 'Internal error', 'The server encountered an internal error.'),
  badRequest: (message) => xaiError(400, INVALID_ARGUMENT, message),
  notFound: (method, path) => xaiError(404, 'Some requested entity was not found', `No handler for ${method} ${path}`),
};

// Only grok-3-mini returns reasoning_content; grok-4 reasons too (except its -non-reasoning variants) but reports only
// the token count.
function reasoning(model: string): 'hidden' | 'visible' | undefined {
  // The `-non-reasoning` variants (grok-4.20-non-reasoning) answer directly, like a non-reasoning model.
  if (model.includes('non-reasoning')) return undefined;
  if (model.startsWith('grok-3-mini')) return 'visible';
  if (model.startsWith('grok-4')) return 'hidden';
  return undefined;
}

/** The reasoning efforts a model takes: grok-3-mini low or high, grok-4.3 none to high (default low); others none. */
function effortsOf(model: string): string[] | undefined {
  if (model.startsWith('grok-3-mini')) return ['low', 'high'];
  if (model.startsWith('grok-4.3')) return ['none', 'low', 'medium', 'high'];
  return undefined;
}

/** Reasoning models refuse presence/frequency penalties and stop sequences; reasoning_effort only where it exists. */
function validateChat(body: Record<string, unknown>): ErrorReply | undefined {
  const model = String(body.model);
  if (body.reasoning_effort !== undefined) {
    const efforts = effortsOf(model);
    if (!efforts) return xaiError(400, INVALID_ARGUMENT, `Model ${model} does not support parameter reasoningEffort.`);
    if (!efforts.includes(String(body.reasoning_effort))) {
      return xaiError(
        400,
        INVALID_ARGUMENT,
        `Invalid reasoning effort: ${String(body.reasoning_effort)}. Expected one of: ${efforts.join(', ')}.`,
      );
    }
  }
  if (!reasoning(model)) return undefined;
  for (const param of ['presence_penalty', 'frequency_penalty', 'stop']) {
    if (body[param] !== undefined)
      return xaiError(400, INVALID_ARGUMENT, `Model ${String(body.model)} does not support parameter ${param}.`);
  }
  return undefined;
}

async function handleImages(req: SandboxRequest, res: ServerResponse): Promise<void> {
  const body = parseJsonObject(req.body);
  if (!body) return sendError(res, xaiErrors.badRequest('Failed to parse the request body as JSON.'));
  for (const unsupported of ['size', 'quality', 'style']) {
    if (body[unsupported] !== undefined) return sendError(res, xaiErrors.badRequest(`Argument not supported: ${unsupported}`));
  }
  if (typeof body.prompt !== 'string' || !body.prompt) return sendError(res, xaiErrors.badRequest('prompt is required'));
  if (typeof body.model !== 'string' || !body.model) return sendError(res, xaiErrors.badRequest('model is required'));
  const n = body.n === undefined ? 1 : Number(body.n);
  if (!Number.isInteger(n) || n < 1 || n > 10) return sendError(res, xaiErrors.badRequest('n must be between 1 and 10'));
  const marker = failureMarker(body.prompt);
  if (answerGenericFailure(marker, xaiErrors, body.model, res)) return;
  if (marker === 'timeout') return hangUntilClosed(res);
  if (marker === 'policy') return sendError(res, xaiErrors.badRequest('Generated image rejected by content moderation.'));

  // grok-2-image answers a fixed-size JPEG whatever was asked.
  const png = await syntheticImage(1024, 768, `xai ${body.model}: ${body.prompt.slice(0, 40)}`);
  const jpeg = await sharp(png).jpeg({ quality: 85 }).toBuffer();
  const revised = `Sandbox rendering of: ${body.prompt}`;
  // response_format defaults to url: a link the client downloads without the API key.
  const item =
    body.response_format === 'b64_json'
      ? { b64_json: jpeg.toString('base64'), revised_prompt: revised }
      : { url: `${req.mountUrl}/v1/sandbox-files/${hostFile(jpeg, 'image/jpeg')}`, revised_prompt: revised };
  const answer = { data: Array.from({ length: n }, () => item) };
  if (marker === 'midstream') return dropMidBody(res, 'application/json', JSON.stringify(answer));
  sendJson(res, 200, answer);
}

export interface XaiSandboxOptions {
  chunkDelayMs?: number;
}

export function createXaiSandbox(options: XaiSandboxOptions = {}): SandboxHandler {
  const chatProfile: ChatFakeProfile = {
    vendor: 'xai',
    errors: xaiErrors,
    chunkDelayMs: options.chunkDelayMs ?? defaultChunkDelayMs(),
    reasoning,
    reasoningTokensOutsideCompletion: true,
    validate: validateChat,
    systemFingerprint: 'fp_sandbox',
    // xAI caches repeated prefixes on its own and reports them as OpenAI does; prompt_cache_key is not taken.
    promptCache: { cache: new AutomaticPromptCache({ minimum: 1024, step: 128, ttlMs: 10 * 60_000 }), reports: 'details', keyed: false },
  };
  return routeVendorRequests(
    xaiErrors,
    new Map<string, SandboxHandler>([
      ['/v1/chat/completions', (r, s) => handleChatCompletions(chatProfile, r, s)],
      ['/v1/images/generations', handleImages],
    ]),
  );
}

/** The xAI fake mounted by the sandbox server. */
export const xaiSandbox: SandboxHandler = createXaiSandbox();
