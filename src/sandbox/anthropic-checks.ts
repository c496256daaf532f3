// Request checks of the Anthropic fake that go beyond messages and tools, as the Messages API documents them:
// no undeclared top-level fields, metadata with user_id only, extended thinking's constraints, structured outputs'
// JSON Schema subset, and PDF document blocks. Each returns the error text, or undefined when the request is valid.

const TOP_LEVEL = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'stream',
  'tools',
  'tool_choice',
  'metadata',
  'thinking',
  'output_config',
  'service_tier',
  'container',
  'mcp_servers',
  'context_management',
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function checkRequestShape(body: Record<string, unknown>): string | undefined {
  const extra = Object.keys(body).find((k) => !TOP_LEVEL.has(k));
  if (extra !== undefined) return `${extra}: Extra inputs are not permitted`;
  if (body.top_k !== undefined && (!Number.isInteger(body.top_k) || (body.top_k as number) < 0)) {
    return 'top_k: Input should be a valid integer, greater than or equal to 0';
  }
  if (body.metadata !== undefined) {
    if (!isObject(body.metadata)) return 'metadata: Input should be a valid dictionary or object';
    const key = Object.keys(body.metadata).find((k) => k !== 'user_id');
    if (key !== undefined) return `metadata.${key}: Extra inputs are not permitted`;
  }
  if (body.service_tier !== undefined && body.service_tier !== 'auto' && body.service_tier !== 'standard_only') {
    return "service_tier: Input should be 'auto' or 'standard_only'";
  }
  return undefined;
}

/**
 * Thinking: an enabled budget of at least 1024 below max_tokens; with thinking on (enabled or adaptive), the default
 * temperature, top_p >= 0.95 and no forced tool.
 */
export function checkThinking(body: Record<string, unknown>, toolChoice: unknown): string | undefined {
  const thinking = body.thinking;
  if (thinking === undefined) return undefined;
  if (!isObject(thinking)) return 'thinking: Input should be a valid dictionary or object';
  if (thinking.type === 'disabled') return undefined;
  if (thinking.type !== 'enabled' && thinking.type !== 'adaptive')
    return "thinking.type: Input tag does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'";
  if (thinking.type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (!Number.isInteger(budget)) return 'thinking.enabled.budget_tokens: Field required';
    if ((budget as number) < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if ((budget as number) >= (body.max_tokens as number)) {
      return '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size';
    }
  }
  if (body.temperature !== undefined && body.temperature !== 1) {
    return '`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility';
  }
  if (body.top_k !== undefined) {
    return '`top_k` may not be set when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility';
  }
  if (typeof body.top_p === 'number' && body.top_p < 0.95) {
    return '`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled.';
  }
  if (toolChoice === 'required' || isObject(toolChoice)) {
    return 'Thinking may not be enabled when tool_choice forces tool use.';
  }
  return undefined;
}

const SCHEMA_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'allOf',
  '$ref',
  '$defs',
  'definitions',
  'description',
  'title',
  'format',
  'minItems',
  'default',
]);
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);

/** Structured outputs' subset of JSON Schema: closed objects, no bounds, minItems 0 or 1, the listed formats. */
function schemaProblem(schema: unknown, at: string): string | undefined {
  if (!isObject(schema)) return `${at}: Input should be a valid dictionary or object`;
  const unsupported = Object.keys(schema).find((k) => !SCHEMA_KEYWORDS.has(k));
  if (unsupported !== undefined) return `${at}: The keyword '${unsupported}' is not supported in structured outputs schemas`;
  const isObj = schema.type === 'object' || isObject(schema.properties);
  if (isObj && schema.additionalProperties !== false) {
    return `${at}: For 'object' type, 'additionalProperties' must be explicitly set to false`;
  }
  if (schema.minItems !== undefined && schema.minItems !== 0 && schema.minItems !== 1) return `${at}.minItems: only 0 and 1 are supported`;
  if (schema.format !== undefined && !FORMATS.has(String(schema.format)))
    return `${at}.format: '${String(schema.format)}' is not supported`;
  for (const key of ['properties', '$defs', 'definitions'] as const) {
    for (const [name, sub] of Object.entries(isObject(schema[key]) ? schema[key] : {})) {
      const problem = schemaProblem(sub, `${at}.${key}.${name}`);
      if (problem) return problem;
    }
  }
  if (schema.items !== undefined) {
    const problem = schemaProblem(schema.items, `${at}.items`);
    if (problem) return problem;
  }
  for (const key of ['anyOf', 'allOf'] as const) {
    for (const [i, sub] of (Array.isArray(schema[key]) ? (schema[key] as unknown[]) : []).entries()) {
      const problem = schemaProblem(sub, `${at}.${key}.${i}`);
      if (problem) return problem;
    }
  }
  return undefined;
}

export function checkOutputConfig(config: unknown): string | undefined {
  if (config === undefined) return undefined;
  if (!isObject(config)) return 'output_config: Input should be a valid dictionary or object';
  const extra = Object.keys(config).find((k) => k !== 'format' && k !== 'effort');
  if (extra !== undefined) return `output_config.${extra}: Extra inputs are not permitted`;
  const format = config.format;
  if (format === undefined || format === null) return undefined;
  if (!isObject(format) || format.type !== 'json_schema') return "output_config.format.type: Input should be 'json_schema'";
  const extraFormat = Object.keys(format).find((k) => k !== 'type' && k !== 'schema');
  if (extraFormat !== undefined) return `output_config.format.${extraFormat}: Extra inputs are not permitted`;
  return schemaProblem(format.schema, 'output_config.format.schema');
}

const PDF_MAGIC = '%PDF-';

function textBlocksProblem(content: unknown, at: string): string | undefined {
  if (!Array.isArray(content)) return `${at}: Input should be a valid list`;
  for (const [k, b] of (content as unknown[]).entries()) {
    if (!isObject(b) || b.type !== 'text' || typeof b.text !== 'string') return `${at}.${k}: Input should be a text block`;
  }
  return undefined;
}

function documentSourceProblem(source: unknown, at: string): string | undefined {
  if (!isObject(source)) return `${at}: Field required`;
  switch (source.type) {
    case 'text':
      if (source.media_type !== 'text/plain') return `${at}.text.media_type: Input should be 'text/plain'`;
      return typeof source.data === 'string' ? undefined : `${at}.text.data: Field required`;
    case 'url':
      return typeof source.url === 'string' && /^https?:\/\//.test(source.url) ? undefined : `${at}.url.url: Input should be a valid URL`;
    case 'content':
      if (typeof source.content === 'string') return undefined;
      return textBlocksProblem(source.content, `${at}.content.content`);
    case 'base64': {
      if (source.media_type !== 'application/pdf') return `${at}.base64.media_type: Input should be 'application/pdf'`;
      const data = typeof source.data === 'string' ? Buffer.from(source.data, 'base64') : Buffer.alloc(0);
      if (data.subarray(0, PDF_MAGIC.length).toString('latin1') !== PDF_MAGIC) return `${at}: The PDF specified was not valid.`;
      return undefined;
    }
    default:
      return `${at}: Input tag '${String(source.type)}' found using 'type' does not match any of the expected tags: 'base64', 'text', 'content', 'url', 'file'`;
  }
}

/** A search_result block: a source and a title (strings) and its content as text blocks. */
function searchResultProblem(block: Record<string, unknown>, at: string): string | undefined {
  if (typeof block.source !== 'string') return `${at}.source: Field required`;
  if (typeof block.title !== 'string') return `${at}.title: Field required`;
  return textBlocksProblem(block.content, `${at}.content`);
}

function blockProblem(block: Record<string, unknown>, at: string): string | undefined {
  if (block?.type === 'document') return documentSourceProblem(block.source, `${at}.document.source`);
  if (block?.type === 'search_result') return searchResultProblem(block, `${at}.search_result`);
  return undefined;
}

/**
 * document blocks (a base64 PDF, plain text, text content blocks, or a PDF URL) and search_result blocks, as the API
 * reads them: in a message, or in a tool_result's content.
 */
export function documentProblem(messages: Array<{ content?: unknown }>): string | undefined {
  for (const [i, m] of messages.entries()) {
    for (const [j, block] of (Array.isArray(m.content) ? (m.content as Array<Record<string, unknown>>) : []).entries()) {
      const at = `messages.${i}.content.${j}`;
      const problem = blockProblem(block, at);
      if (problem) return problem;
      if (block?.type !== 'tool_result' || !Array.isArray(block.content)) continue;
      for (const [k, inner] of (block.content as Array<Record<string, unknown>>).entries()) {
        const innerProblem = blockProblem(inner, `${at}.tool_result.content.${k}`);
        if (innerProblem) return innerProblem;
      }
    }
  }
  return undefined;
}
