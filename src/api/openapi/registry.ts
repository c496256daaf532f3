import type Router from '@koa/router';
import type { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  /** JSON body schema (a component from components.ts, or any zod schema); none for 204. */
  schema?: z.ZodType;
  /** Non-JSON bodies, e.g. `text/event-stream`. */
  contentType?: string;
  /** Further media types the same status may carry (a transcript as JSON or as `text/plain`; speech as MP3 or WAV). */
  alsoContentTypes?: string[];
  /** Response headers worth documenting, name -> description. */
  headers?: Record<string, string>;
}

/** One documented operation. The same zod schemas validate the request (see v2/route.ts). */
export interface OperationSpec {
  method: HttpMethod;
  /** Path relative to the router's prefix, Koa style (`/keys/:id`). */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** `bearer`: API key or access token; `refresh_cookie`: the refresh cookie; `none`: public. */
  security: 'bearer' | 'refresh_cookie' | 'none';
  /** A bearer route that also takes the API key in `x-api-key` (the Anthropic SDKs' header). */
  apiKeyHeader?: boolean;
  /**
   * A bearer route a restricted API key (one with limits) may call: generating and reading. Every other bearer
   * route answers such a key 403 `key_restricted` (middleware/key-scope.ts).
   */
  openToRestrictedKeys?: boolean;
  body?: z.ZodType;
  /** Default `application/json`; multipart routes say `multipart/form-data`. */
  bodyContentType?: string;
  /** The same request in other media types, each with its schema (POST /v1/videos takes JSON or a form). */
  otherBodies?: Record<string, z.ZodType>;
  /** Cap on the request body (JSON default: JSON_BODY_LIMIT_BYTES), stated in the document. */
  bodyLimitBytes?: number;
  query?: z.ZodType;
  params?: z.ZodType;
  responses: Record<number, ResponseSpec>;
  /** The body of the implied error answers (400, 401, 403, 429...); the /api/v2 shapes unless set (/v1 has its own). */
  errorSchema?: z.ZodType;
}

/** A documented operation with its full path. */
export interface RegisteredOperation extends OperationSpec {
  fullPath: string;
}

/** An event the service POSTs to registered webhook endpoints (the document's `webhooks` section). */
export interface WebhookEventSpec {
  event: string;
  summary: string;
  description?: string;
  schema: z.ZodType;
}

/** Collects the operations the OpenAPI document is built from. */
export class OpenApiRegistry {
  private readonly ops: RegisteredOperation[] = [];
  private readonly events = new Map<string, WebhookEventSpec>();

  addWebhookEvent(spec: WebhookEventSpec): void {
    this.events.set(spec.event, spec);
  }

  get webhookEvents(): readonly WebhookEventSpec[] {
    return [...this.events.values()];
  }

  add(op: OperationSpec, prefix = ''): void {
    const fullPath = `${prefix}${op.path}`.replace(/\/$/, '') || '/';
    if (this.ops.some((o) => o.fullPath === fullPath && o.method === op.method)) {
      throw new Error(`operation ${op.method.toUpperCase()} ${fullPath} is documented twice`);
    }
    if (this.ops.some((o) => o.operationId === op.operationId)) throw new Error(`duplicate operationId ${op.operationId}`);
    this.ops.push({ ...op, fullPath });
  }

  get operations(): readonly RegisteredOperation[] {
    return this.ops;
  }
}

const attached = new WeakMap<Router, OpenApiRegistry>();

/** Routes added to `router` through addRoute/documentOperation are documented in `registry`. */
export function attachOpenApi(router: Router, registry: OpenApiRegistry): void {
  attached.set(router, registry);
}

export function openApiOf(router: Router): OpenApiRegistry | undefined {
  return attached.get(router);
}

/**
 * Documents an operation of `router` without routing it (for routes wired by hand, e.g. multipart ones).
 * Does nothing when no registry is attached to the router.
 */
export function documentOperation(router: Router, op: OperationSpec): void {
  attached.get(router)?.add(op, router.opts.prefix ?? '');
}

/** Documents an outgoing webhook event of `router`'s registry. */
export function documentWebhookEvent(router: Router, spec: WebhookEventSpec): void {
  attached.get(router)?.addWebhookEvent(spec);
}
