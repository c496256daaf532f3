// Anthropic's structured outputs (output_config.format) accept a subset of JSON Schema: every object closed with
// `additionalProperties: false`, no numeric or length bounds, a few string formats, minItems of 0 or 1 only.
// A chat-completions schema is narrowed to that subset; what cannot be enforced is kept as a note in the
// description, so the model still reads it.

type Schema = Record<string, unknown>;

const STRING_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);

/** The keywords Anthropic's structured outputs take (besides the ones narrowed below). */
export const ANTHROPIC_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
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
]);

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

function mapValues(record: unknown, f: (s: Schema) => Schema): Schema {
  return Object.fromEntries(Object.entries(isSchema(record) ? record : {}).map(([k, v]) => [k, isSchema(v) ? f(v) : v]));
}

/** One schema node in Anthropic's subset; `oneOf` becomes `anyOf` (the answer is one of them either way). */
export function toAnthropicSchema(schema: Schema): Schema {
  const out: Schema = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    switch (key) {
      case 'properties':
      case '$defs':
      case 'definitions':
        out[key] = mapValues(value, toAnthropicSchema);
        break;
      case 'items':
        out.items = isSchema(value) ? toAnthropicSchema(value) : value;
        break;
      case 'anyOf':
      case 'oneOf':
      case 'allOf':
        out[key === 'allOf' ? 'allOf' : 'anyOf'] = Array.isArray(value)
          ? value.map((v) => (isSchema(v) ? toAnthropicSchema(v) : v))
          : value;
        break;
      case 'additionalProperties':
      case '$schema':
        break;
      case 'format':
        if (typeof value === 'string' && STRING_FORMATS.has(value)) out.format = value;
        else notes.push(`format: ${JSON.stringify(value)}`);
        break;
      case 'minItems':
        if (value === 0 || value === 1) out.minItems = value;
        else notes.push(`minItems: ${JSON.stringify(value)}`);
        break;
      default:
        if (ANTHROPIC_SCHEMA_KEYWORDS.has(key)) out[key] = value;
        else notes.push(`${key}: ${JSON.stringify(value)}`);
    }
  }
  const isObject =
    schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object')) || isSchema(schema.properties);
  if (isObject) out.additionalProperties = false;
  if (notes.length > 0) {
    const description = typeof out.description === 'string' ? `${out.description}\n\n` : '';
    out.description = `${description}{${notes.join(', ')}}`;
  }
  return out;
}
