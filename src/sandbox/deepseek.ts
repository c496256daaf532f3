import {
  ChatFakeProfile,
  checkBearer,
  defaultChunkDelayMs,
  ErrorReply,
  handleChatCompletions,
  normalizePath,
  sendError,
  VendorErrors,
} from './chat-completions-fake';
import type { SandboxHandler } from './types';
import { AutomaticPromptCache } from './prefix-cache';

// An in-process fake of api.deepseek.com: POST /chat/completions (also under /v1, which DeepSeek
// accepts as an alias). The V4 models think unless `thinking: {type: "disabled"}`, streaming their chain of thought
// as `reasoning_content`. The names deepseek-chat and deepseek-reasoner answer "Model Not Exist" since 2026-07-24.

function deepSeekError(status: number, message: string, type: string, code: string | null = null): ErrorReply {
  return { status, body: { error: { message, type, param: null, code } } };
}

// Statuses and wording follow DeepSeek's error-code table (400/401/402/422/429/500/503).
export const deepSeekErrors: VendorErrors = {
  missingKey: () => deepSeekError(401, 'Authentication Fails (no api key provided)', 'authentication_error', 'invalid_request_error'),
  invalidKey: (key) =>
    deepSeekError(
      401,
      `Authentication Fails, Your api key: ****${key.slice(-4)} is invalid`,
      'authentication_error',
      'invalid_request_error',
    ),
  rateLimited: () => deepSeekError(429, 'Rate Limit Reached', 'rate_limit_error', 'rate_limit_reached'),
  overloaded: () => deepSeekError(503, 'Server Overloaded', 'server_error', 'server_overloaded'),
  serverError: () => deepSeekError(500, 'Server Error', 'server_error', 'server_error'),
  badRequest: (message) => deepSeekError(400, message, 'invalid_request_error', 'invalid_request_error'),
  notFound: (method, path) => deepSeekError(404, `Not Found: ${method} ${path}`, 'invalid_request_error'),
  insufficientBalance: () => deepSeekError(402, 'Insufficient Balance', 'unknown_error', 'invalid_request_error'),
};

// deepseek-flash is V4.1 Flash; the legacy name deepseek-v4-flash is still accepted and served by it (pricing page).
const OUTPUT_CEILINGS: Record<string, number> = { 'deepseek-flash': 384000, 'deepseek-v4-flash': 384000, 'deepseek-v4-pro': 384000 };

// The efforts DeepSeek accepts (it maps minimal to low, medium and xhigh to high, ultra to max).
const EFFORTS = ['minimal', 'low', 'medium', 'high', 'xhigh', 'max', 'ultra'];

/** Thinking mode: `thinking: {type: "enabled" | "disabled"}` and `reasoning_effort`. */
function thinkingProblem(body: Record<string, unknown>): ErrorReply | undefined {
  const thinking = body.thinking as { type?: unknown } | undefined;
  if (thinking !== undefined && (typeof thinking !== 'object' || (thinking.type !== 'enabled' && thinking.type !== 'disabled'))) {
    return deepSeekError(
      422,
      'Failed to deserialize the JSON body into the target type: thinking: unknown variant, expected `enabled` or `disabled`',
      'invalid_request_error',
      'invalid_request_error',
    );
  }
  if (body.reasoning_effort !== undefined && !EFFORTS.includes(String(body.reasoning_effort))) {
    return deepSeekError(
      400,
      `Invalid reasoning_effort value: ${String(body.reasoning_effort)}`,
      'invalid_request_error',
      'invalid_request_error',
    );
  }
  return undefined;
}

/** DeepSeek takes text content only, and bounds max_tokens per model. */
function validateChat(body: Record<string, unknown>): ErrorReply | undefined {
  const model = String(body.model);
  if (!(model in OUTPUT_CEILINGS)) {
    return deepSeekError(400, 'Model Not Exist', 'invalid_request_error', 'invalid_request_error');
  }
  const thinking = thinkingProblem(body);
  if (thinking) return thinking;
  const messages = body.messages as Array<{ role?: unknown; content?: unknown; tool_calls?: unknown; reasoning_content?: unknown }>;
  // Thinking mode (the default): every earlier assistant turn that called tools must come back with its
  // reasoning_content, in every later request (DeepSeek's thinking-mode guide, "Tool Calls").
  const thinks = (body.thinking as { type?: unknown } | undefined)?.type !== 'disabled';
  const withoutReasoning = messages.some(
    (m) => m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0 && typeof m.reasoning_content !== 'string',
  );
  if (thinks && withoutReasoning) {
    return deepSeekError(
      400,
      'The reasoning_content in the thinking mode must be passed back to the API.',
      'invalid_request_error',
      'invalid_request_error',
    );
  }
  // Thinking mode does not give log probabilities (DeepSeek's thinking-mode guide: logprobs and top_logprobs refused).
  if (thinks && (body.logprobs !== undefined || body.top_logprobs !== undefined)) {
    return deepSeekError(400, 'logprobs is not supported in thinking mode', 'invalid_request_error', 'invalid_request_error');
  }
  // An assistant turn that only called tools may carry null content.
  const index = messages.findIndex(
    (m) => typeof m.content !== 'string' && !(m.role === 'assistant' && m.content === null && Array.isArray(m.tool_calls)),
  );
  if (index >= 0) {
    return deepSeekError(
      422,
      `Failed to deserialize the JSON body into the target type: messages[${index}]: invalid type: sequence, expected a string`,
      'invalid_request_error',
      'invalid_request_error',
    );
  }
  const ceiling = OUTPUT_CEILINGS[model];
  const maxTokens = body.max_tokens;
  if (maxTokens !== undefined && (typeof maxTokens !== 'number' || maxTokens < 1 || maxTokens > ceiling)) {
    return deepSeekError(
      400,
      `Invalid max_tokens value, the valid range of max_tokens is [1, ${ceiling}]`,
      'invalid_request_error',
      'invalid_request_error',
    );
  }
  return undefined;
}

export interface DeepSeekSandboxOptions {
  chunkDelayMs?: number;
}

export function createDeepSeekSandbox(options: DeepSeekSandboxOptions = {}): SandboxHandler {
  const chatProfile: ChatFakeProfile = {
    vendor: 'deepseek',
    errors: deepSeekErrors,
    chunkDelayMs: options.chunkDelayMs ?? defaultChunkDelayMs(),
    // Thinking mode is on by default (DeepSeek's thinking-mode guide).
    reasoning: (_model, body) => ((body.thinking as { type?: unknown } | undefined)?.type === 'disabled' ? undefined : 'visible'),
    reasoningTokensOutsideCompletion: false,
    validate: validateChat,
    keepAlive: true,
    // Context caching on disk: repeated prefixes in 64-token units, reported as hit and miss tokens.
    promptCache: { cache: new AutomaticPromptCache({ minimum: 64, step: 64, ttlMs: 60 * 60_000 }), reports: 'hit-miss', keyed: false },
    systemFingerprint: 'fp_sandbox_prod0820_fp8_kvcache',
  };
  return async (req, res) => {
    const path = normalizePath(req.path);
    if (req.method !== 'POST' || (path !== '/chat/completions' && path !== '/v1/chat/completions')) {
      return sendError(res, deepSeekErrors.notFound(req.method, path));
    }
    const denied = checkBearer(req, deepSeekErrors);
    if (denied) return sendError(res, denied);
    await handleChatCompletions(chatProfile, req, res);
  };
}

/** The DeepSeek fake mounted by the sandbox server. */
export const deepseekSandbox: SandboxHandler = createDeepSeekSandbox();
