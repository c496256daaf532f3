import type { ParameterizedContext } from 'koa';
import { ApiError } from './errors';
import { JsonDepthScanner, MAX_JSON_DEPTH, MAX_JSON_VALUES, ScanVerdict } from './json-depth';
import { findUnsafeText } from './text-guard';
import { refuseUnreadBody } from './unread-body';
import { decodeUtf8 } from './utf8';

/** Default cap on JSON request bodies (account endpoints need far less; generate may pass a larger one). */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

const PARSED = Symbol('parsedJsonBody');

function tooLarge(limit: number): ApiError {
  return new ApiError(413, 'payload_too_large', `Request body is larger than ${limit} bytes`);
}

function refusedShape(verdict: Exclude<ScanVerdict, 'ok'>): ApiError {
  return verdict === 'too_deep'
    ? new ApiError(400, 'json_too_deep', `Request body is nested deeper than ${MAX_JSON_DEPTH} levels`)
    : new ApiError(400, 'validation_error', `body: a request body may hold at most ${MAX_JSON_VALUES} JSON values`, { field: 'body' });
}

/** Bodies above this size are decoded, parsed and checked in steps with a turn of the event loop between them. */
const STEPWISE_ABOVE_BYTES = 256 * 1024;

/** Lets other requests' callbacks run (timers and I/O) before the next step of a large body's work. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Reads the body up to `limit` bytes, checking the nesting as the bytes arrive. A refusal leaves the rest of the
 * body unread (never a destroyed socket: `answerThenDiscard` answers first, then reads the rest).
 */
function readRaw(ctx: ParameterizedContext, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('Content-Length') || NaN);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(refuseUnreadBody(ctx, tooLarge(limit)));
  const req = ctx.req;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const depth = new JsonDepthScanner();
    let size = 0;
    const finish = (err?: unknown) => {
      req.off('data', onData).off('end', onEnd).off('error', finish).off('close', onClose);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return finish(refuseUnreadBody(ctx, tooLarge(limit)));
      const verdict = depth.feed(chunk);
      if (verdict !== 'ok') return finish(refuseUnreadBody(ctx, refusedShape(verdict)));
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onClose = () => finish(new ApiError(400, 'request_aborted', 'The request body was interrupted'));
    req.on('data', onData).once('end', onEnd).once('error', finish).once('close', onClose);
  });
}

/** The JSON body a handler already read (readJsonBody), or undefined: for what is said about a request afterwards. */
export function parsedJsonBody(ctx: ParameterizedContext): unknown {
  return (ctx.state as { [PARSED]?: unknown })[PARSED];
}

/**
 * The request's JSON body (`{}` when there is none). Reads at most `limitBytes`: 413 beyond, 415 for another
 * content type or a compressed body, 400 `json_too_deep` for nesting past 64 levels and 400 `validation_error`
 * (field `body`) past MAX_JSON_VALUES values (both seen while the bytes arrive, before parsing), 400
 * `invalid_input` for bytes that are not UTF-8, 400 `invalid_json` for text that is not JSON, 400 `invalid_input`
 * for a NUL character or a lone surrogate in any string. A large body is decoded, parsed and checked in steps, each
 * its own turn of the event loop, so no one request holds the others up for its whole parse. Read once per
 * request; later calls return the same value.
 */
export async function readJsonBody(
  ctx: ParameterizedContext,
  options: { limitBytes?: number; allowUnsafeText?: boolean } = {},
): Promise<unknown> {
  const state = ctx.state as { [PARSED]?: unknown };
  if (PARSED in state) return state[PARSED];
  const limit = options.limitBytes ?? JSON_BODY_LIMIT_BYTES;
  let value: unknown = {};
  let stepwise = false;
  if (ctx.request.length !== 0 && (ctx.request.length !== undefined || ctx.get('Transfer-Encoding'))) {
    const encoding = ctx.get('Content-Encoding').toLowerCase();
    if (encoding && encoding !== 'identity') {
      throw refuseUnreadBody(ctx, new ApiError(415, 'unsupported_media_type', 'Compressed request bodies are not accepted'));
    }
    if (!ctx.is('application/json', '+json')) {
      throw refuseUnreadBody(ctx, new ApiError(415, 'unsupported_media_type', 'Content-Type must be application/json'));
    }
    const bytes = await readRaw(ctx, limit);
    stepwise = bytes.length > STEPWISE_ABOVE_BYTES;
    if (stepwise) await nextTurn();
    // Telegram's updates are taken as they come (allowUnsafeText); every other body must be UTF-8, not patched up.
    const raw = options.allowUnsafeText ? bytes.toString('utf8') : decodeUtf8(bytes);
    if (raw === null) throw new ApiError(400, 'invalid_input', 'body: the request body is not valid UTF-8', { field: 'body' });
    if (raw.trim() !== '') {
      if (stepwise) await nextTurn();
      try {
        value = JSON.parse(raw);
      } catch {
        throw new ApiError(400, 'invalid_json', 'Request body is not valid JSON');
      }
      if (stepwise) await nextTurn();
      const unsafe = options.allowUnsafeText ? null : findUnsafeText(value);
      if (unsafe !== null) {
        throw new ApiError(400, 'invalid_input', `${unsafe}: text must not contain NUL characters or unpaired surrogates`, {
          field: unsafe,
        });
      }
    }
  }
  if (stepwise) await nextTurn();
  state[PARSED] = value;
  return value;
}
