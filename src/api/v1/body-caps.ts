import { ParamError } from '../../core/catalog/errors';

/**
 * What one chat request may hold on every surface (README "Security" lists them). Checked on the parsed body before
 * its validation and everything after it, so a body past a cap costs one walk of the counted arrays, never the
 * validation, conversion or prompt estimate of all of it.
 */
export const BODY_CAPS = {
  /** Chat-completions `messages`, Messages `messages`, Responses `input` items. */
  items: 5_000,
  /** Content parts (blocks) of one message or item. */
  partsPerItem: 1_000,
  /** Content parts of the whole request: every message's, nested tool results' and a `system` array's. */
  parts: 10_000,
  tools: 128,
  /** JSON values (objects, arrays, keys' values, scalars) in one tool definition or one answer schema. */
  schemaValues: 10_000,
  /** JSON values in all the tool definitions of the request together. */
  toolValues: 50_000,
} as const;

export type ChatSurface = 'chat' | 'responses' | 'messages';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How many JSON values `value` holds, counting stops just past `limit` (the cost is bounded by it). */
function valuesIn(value: unknown, limit: number): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && count <= limit) {
    const v = stack.pop();
    count += 1;
    if (Array.isArray(v)) for (const child of v) stack.push(child);
    else if (isObject(v)) for (const key in v) stack.push(v[key]);
  }
  return count;
}

function over(field: string, what: string, cap: number): ParamError {
  return new ParamError(field, `${field}: at most ${cap} ${what}`);
}

/** Counts content parts as they are found, refusing the request at the part that passes a cap. */
class PartCounter {
  private total = 0;

  add(field: string, parts: unknown): void {
    if (!Array.isArray(parts)) return;
    if (parts.length > BODY_CAPS.partsPerItem) throw over(field, 'content parts', BODY_CAPS.partsPerItem);
    this.total += parts.length;
    if (this.total > BODY_CAPS.parts) throw over(field, `content parts in the whole request (${BODY_CAPS.parts} in all)`, BODY_CAPS.parts);
  }
}

function checkItems(field: string, items: unknown, parts: PartCounter, nested: (item: Json, at: string) => void): void {
  if (!Array.isArray(items)) return;
  if (items.length > BODY_CAPS.items) throw over(field, 'items', BODY_CAPS.items);
  items.forEach((item, i) => {
    if (!isObject(item)) return;
    const at = `${field}[${i}]`;
    parts.add(`${at}.content`, item.content);
    nested(item, at);
  });
}

function checkSchema(field: string, schema: unknown): void {
  if (schema !== undefined && valuesIn(schema, BODY_CAPS.schemaValues) > BODY_CAPS.schemaValues) {
    throw over(field, 'JSON values in a schema', BODY_CAPS.schemaValues);
  }
}

/** The tool list's length, each tool's size (named by its schema's field) and all of them together. */
function checkTools(tools: unknown, schemaField: (tool: Json) => string): void {
  if (!Array.isArray(tools)) return;
  if (tools.length > BODY_CAPS.tools) throw over('tools', 'tools', BODY_CAPS.tools);
  let total = 0;
  tools.forEach((tool, i) => {
    const size = valuesIn(tool, BODY_CAPS.schemaValues);
    const field = isObject(tool) ? `tools[${i}]${schemaField(tool)}` : `tools[${i}]`;
    if (size > BODY_CAPS.schemaValues) throw over(field, 'JSON values in one tool definition', BODY_CAPS.schemaValues);
    total += size;
    if (total > BODY_CAPS.toolValues) throw over(field, `JSON values in all tool definitions together`, BODY_CAPS.toolValues);
  });
}

const path = (root: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((v, key) => (isObject(v) ? v[key] : undefined), root);

/**
 * Refuses a chat request past any of BODY_CAPS (400 `validation_error` naming the first field over its cap, e.g.
 * `input`, `messages[12].content`, `tools[3].function.parameters`), before it is validated. Shapes it does not
 * know are left to the validation. @throws ParamError
 */
export function checkBodyCaps(surface: ChatSurface, body: unknown): void {
  if (!isObject(body)) return;
  const parts = new PartCounter();
  if (surface === 'chat') {
    checkItems('messages', body.messages, parts, () => undefined);
    checkTools(body.tools, (t) => (isObject(t.function) ? '.function.parameters' : ''));
    checkSchema('response_format.json_schema.schema', path(body, 'response_format', 'json_schema', 'schema'));
  } else if (surface === 'responses') {
    // A function call's output may be a list of parts too.
    checkItems('input', body.input, parts, (item, at) => parts.add(`${at}.output`, item.output));
    checkTools(body.tools, (t) => (t.parameters !== undefined ? '.parameters' : ''));
    checkSchema('text.format.schema', path(body, 'text', 'format', 'schema'));
  } else {
    parts.add('system', body.system);
    // A tool result's own blocks count as parts too.
    checkItems('messages', body.messages, parts, (item, at) => {
      if (!Array.isArray(item.content)) return;
      item.content.forEach((block, j) => {
        if (isObject(block)) parts.add(`${at}.content[${j}].content`, block.content);
      });
    });
    checkTools(body.tools, (t) => (t.input_schema !== undefined ? '.input_schema' : ''));
    checkSchema('output_config.format.schema', path(body, 'output_config', 'format', 'schema'));
  }
}
