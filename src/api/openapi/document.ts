import { JSON_BODY_LIMIT_BYTES } from '../middleware/json-body';
import { z } from 'zod';
import { components, ErrorSchema, IpRateLimitErrorSchema, RateLimitErrorSchema } from './components';
import { OpenApiRegistry, RegisteredOperation, ResponseSpec } from './registry';
import { TAG_DESCRIPTIONS } from './tags';

type Json = Record<string, unknown>;

const COMPONENT_REF = '#/components/schemas/';

/**
 * Rewrites zod's `#/$defs/X` references to OpenAPI component references, in place, and unwraps a `oneOf` of a
 * single schema (a one-branch discriminated union, kept in zod for its error message) into that schema.
 */
function rewriteRefs(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(rewriteRefs);
  if (!node || typeof node !== 'object') return;
  const obj = node as Json;
  if (typeof obj.$ref === 'string' && obj.$ref.startsWith('#/$defs/')) obj.$ref = COMPONENT_REF + obj.$ref.slice('#/$defs/'.length);
  if (Array.isArray(obj.oneOf) && obj.oneOf.length === 1) {
    const [only] = obj.oneOf as Json[];
    delete obj.oneOf;
    if (Object.keys(only).some((key) => key in obj)) obj.allOf = [only];
    else Object.assign(obj, only);
  }
  Object.values(obj).forEach(rewriteRefs);
}

class SchemaConverter {
  readonly schemas: Record<string, Json> = {};

  /** JSON Schema (2020-12, what OpenAPI 3.1 uses) of a request or response schema; components become $refs. */
  convert(schema: z.ZodType, io: 'input' | 'output'): Json {
    // Request schemas are inlined (their transforms make input and output differ); responses use components.
    const json = z.toJSONSchema(schema, {
      io,
      target: 'draft-2020-12',
      unrepresentable: 'any',
      ...(io === 'output' ? { metadata: components } : { metadata: z.registry() }),
    }) as Json;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    delete json.$defs;
    for (const [id, def] of Object.entries(defs)) {
      delete def.id;
      rewriteRefs(def);
      this.schemas[id] ??= def;
    }
    delete json.id;
    rewriteRefs(json);
    return json;
  }
}

function openApiPath(koaPath: string): string {
  return koaPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parameters(converter: SchemaConverter, schema: z.ZodType | undefined, location: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const json = converter.convert(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, propSchema]) => {
    const { description, ...rest } = propSchema;
    return {
      name,
      in: location,
      required: location === 'path' ? true : required.has(name) && rest.default === undefined,
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

/** Every operation can answer this, whatever it does (see refuseWhileDraining and the database-outage mapping). */
const UNAVAILABLE =
  'Temporarily unavailable: the instance is shutting down or its database is unreachable (`service_unavailable`, with Retry-After)';

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input (`validation_error` names the field; `invalid_json`; `invalid_input`, `invalid_path`: a path or query string with a broken percent-encoding, bytes that are not UTF-8 or a NUL character)',
  401: '`Not authenticated` (missing or malformed Authorization header) or `Invalid or expired token`',
  402: 'The balance cannot cover the request (`insufficient_tokens`)',
  403: '`Insufficient plan` (the message names the required plan) or a blocked account',
  404: 'Not found (others\u2019 objects answer 404 too)',
  409: 'Conflict',
  413: 'Request body too large',
  415: 'Content-Type must be application/json',
  503: UNAVAILABLE,
};

const KEY_RESTRICTED = '`key_restricted`: an API key with limits (a token budget, a model list or an expiry) may only generate and read';

function response(converter: SchemaConverter, spec: ResponseSpec): Json {
  const out: Json = { description: spec.description };
  if (spec.schema) out.content = { [spec.contentType ?? 'application/json']: { schema: converter.convert(spec.schema, 'output') } };
  else if (spec.contentType) out.content = { [spec.contentType]: {} };
  // The other media types share the schema when it describes bytes (`format: binary`); text answers have none.
  for (const type of spec.alsoContentTypes ?? []) {
    const first = Object.values((out.content ?? {}) as Json)[0] as Json | undefined;
    const schema = (first?.schema as Json | undefined)?.format === 'binary' ? { schema: first!.schema } : {};
    out.content = { ...(out.content as Json | undefined), [type]: schema };
  }
  if (spec.headers) {
    out.headers = Object.fromEntries(
      Object.entries(spec.headers).map(([name, description]) => [
        name,
        { description, schema: { type: /^(X-RateLimit-|Retry-After$)/.test(name) ? 'integer' : 'string' } },
      ]),
    );
  }
  return out;
}

const RATE_LIMIT_HEADERS: Record<string, string> = {
  'X-RateLimit-Limit-Hour': 'requests allowed per hour (0: unlimited)',
  'X-RateLimit-Remaining-Hour': 'requests left this hour',
  'X-RateLimit-Limit-Day': 'requests allowed per day (0: unlimited)',
  'X-RateLimit-Remaining-Day': 'requests left today',
  'X-RateLimit-Reset-Hour': 'unix seconds when the hourly window resets',
  'X-RateLimit-Remaining': 'the smaller of the two remaining counts',
};

function describeBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MB` : `${Math.round(bytes / 1024)} kB`;
}

function security(op: RegisteredOperation): Json[] {
  if (op.security === 'bearer') return op.apiKeyHeader ? [{ bearerAuth: [] }, { apiKeyHeader: [] }] : [{ bearerAuth: [] }];
  return op.security === 'refresh_cookie' ? [{ refreshCookie: [] }, {}] : [];
}

function operation(converter: SchemaConverter, op: RegisteredOperation): Json {
  const responses: Record<string, Json> = {};
  for (const [status, spec] of Object.entries(op.responses)) {
    const withHeaders =
      op.security === 'bearer' && Number(status) < 300 ? { ...spec, headers: { ...RATE_LIMIT_HEADERS, ...spec.headers } } : spec;
    responses[status] = response(converter, withHeaders);
  }
  const errors = new Set<number>(
    Object.keys(op.responses)
      .map(Number)
      .filter((s) => s >= 400),
  );
  // Any request may carry a malformed path or query string (400), and any may meet a draining instance or a
  // database outage (503).
  const implied = [
    400,
    ...(op.body && (op.bodyContentType ?? 'application/json') === 'application/json' ? [413, 415] : []),
    ...(op.security !== 'none' ? [401] : []),
    ...(op.security === 'bearer' ? [403] : []),
    503,
  ];
  for (const status of implied) {
    if (!errors.has(status))
      responses[String(status)] = response(converter, { description: ERROR_TEXT[status], schema: op.errorSchema ?? ErrorSchema });
  }
  if (op.security === 'bearer' && !op.openToRestrictedKeys) {
    const own = responses['403'];
    own.description = `${String(own.description)}; or ${KEY_RESTRICTED}`;
  }
  if (errors.has(503)) {
    const own = responses['503'];
    own.description = `${String(own.description)}; or: ${UNAVAILABLE}`;
  }
  if (op.security === 'bearer' && !responses['429']) {
    // Only model-running routes count requests; the schema is documented once for every authenticated route.
    responses['429'] = response(converter, {
      description: 'Rate limit exceeded (model-running requests only)',
      schema: op.errorSchema ?? RateLimitErrorSchema,
      headers: { 'Retry-After': 'seconds until the limit resets', ...RATE_LIMIT_HEADERS },
    });
  }
  const out: Json = {
    operationId: op.operationId,
    summary: op.summary,
    tags: op.tags,
    parameters: [...parameters(converter, op.params, 'path'), ...parameters(converter, op.query, 'query')],
    responses,
    security: security(op),
  };
  if (op.description) out.description = op.description;
  if (op.body) {
    const contentType = op.bodyContentType ?? 'application/json';
    const limit = op.bodyLimitBytes ?? (contentType === 'application/json' ? JSON_BODY_LIMIT_BYTES : undefined);
    out.requestBody = {
      required: true,
      ...(limit
        ? { description: `At most ${describeBytes(limit)} (${limit} bytes); larger bodies answer 413.`, 'x-max-body-bytes': limit }
        : {}),
      content: {
        [contentType]: { schema: converter.convert(op.body, 'input') },
        ...Object.fromEntries(
          Object.entries(op.otherBodies ?? {}).map(([type, schema]) => [type, { schema: converter.convert(schema, 'input') }]),
        ),
      },
    };
  }
  return out;
}

/** OpenAPI 3.1 `webhooks`: the requests this service sends to registered endpoints, one per event name. */
function webhookEvents(converter: SchemaConverter, registry: OpenApiRegistry): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const spec of registry.webhookEvents) {
    const signature = (description: string) => ({ required: true, description, schema: { type: 'string' } });
    out[spec.event] = {
      post: {
        operationId: `event_${spec.event.replace(/\W/g, '_')}`,
        summary: spec.summary,
        ...(spec.description ? { description: spec.description } : {}),
        tags: ['Webhooks'],
        parameters: [
          { name: 'webhook-id', in: 'header', ...signature('message id, the same on every retry of the event') },
          { name: 'webhook-timestamp', in: 'header', ...signature('unix seconds of this attempt') },
          { name: 'webhook-signature', in: 'header', ...signature('`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`') },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: converter.convert(spec.schema, 'output') } } },
        responses: { '2XX': { description: 'Received (any 2xx within 10 s); anything else is retried' } },
        // The receiver authenticates the event by its signature headers, not by a credential of ours.
        security: [],
      },
    };
  }
  return out;
}

export interface DocumentInfo {
  title: string;
  version: string;
  description?: string;
  serverUrl?: string;
}

/** The OpenAPI 3.1 document of every operation in the registry. */
export function buildOpenApiDocument(registry: OpenApiRegistry, info: DocumentInfo): Json {
  const converter = new SchemaConverter();
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of registry.operations) {
    const path = openApiPath(op.fullPath);
    (paths[path] ??= {})[op.method] = operation(converter, op);
  }
  // Always present, so clients can rely on them even before a route refers to them.
  converter.convert(ErrorSchema, 'output');
  converter.convert(IpRateLimitErrorSchema, 'output');
  const webhooks = webhookEvents(converter, registry);
  const tags = [...new Set(registry.operations.flatMap((o) => o.tags))].map((name) =>
    TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name },
  );
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, ...(info.description ? { description: info.description } : {}) },
    servers: [{ url: info.serverUrl ?? '/' }],
    tags,
    paths,
    ...(Object.keys(webhooks).length > 0 ? { webhooks } : {}),
    components: {
      schemas: converter.schemas,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`nb_` + 45 characters; VIP plan or higher) or a web access token (JWT, 15 minutes)',
        },
        refreshCookie: { type: 'apiKey', in: 'cookie', name: 'nb_refresh', description: 'httpOnly refresh token cookie (30 days)' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An API key, as the Anthropic SDKs send it' },
      },
    },
  };
}
