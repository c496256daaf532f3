// How the sandbox chat models behave with tools and JSON output, the same for every vendor fake: offered tools,
// a model calls one (unless told not to) while the last message is not a tool result; given the result, it answers
// with it. JSON output is a sample of the schema asked for.

type Schema = Record<string, unknown>;

function snippet(text: string, max = 40): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max) : flat;
}

/**
 * A value that satisfies a (simple) JSON Schema, as a model fills a call: the required properties (all of them when
 * the schema lists none), enums take their first value.
 */
export function sampleValue(schema: unknown, hint: string, depth = 0): unknown {
  const s = (schema && typeof schema === 'object' ? schema : {}) as Schema;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (s.const !== undefined) return s.const;
  // Gemini's own Schema writes types in capitals (OBJECT, STRING).
  const raw = Array.isArray(s.type) ? s.type.find((t) => String(t).toLowerCase() !== 'null') : s.type;
  const type = typeof raw === 'string' ? raw.toLowerCase() : undefined;
  if (Array.isArray(s.anyOf) && s.anyOf.length > 0 && type === undefined) return sampleValue(s.anyOf[0], hint, depth + 1);
  switch (type ?? (s.properties ? 'object' : 'string')) {
    case 'object': {
      if (depth > 4) return {};
      // Where the schema names what is required, a model fills that and leaves the optional properties out.
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = Array.isArray(s.required) ? new Set(s.required as unknown[]) : undefined;
      return Object.fromEntries(
        Object.entries(props)
          .filter(([name]) => required === undefined || required.has(name))
          .map(([name, sub]) => [name, sampleValue(sub, hint || name, depth + 1)]),
      );
    }
    case 'array':
      return depth > 4 ? [] : [sampleValue(s.items, hint, depth + 1)];
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return snippet(hint) || 'sandbox';
  }
}

export interface OfferedTool {
  name: string;
  parameters?: unknown;
}

/** The call the sandbox model makes, or undefined when it answers in text. */
export function chooseToolCall(
  tools: readonly OfferedTool[],
  choice: 'auto' | 'none' | 'required' | { name: string } | undefined,
  lastIsToolResult: boolean,
  userText: string,
): { name: string; arguments: Record<string, unknown> } | undefined {
  if (tools.length === 0 || choice === 'none') return undefined;
  const forced = typeof choice === 'object' || choice === 'required';
  if (lastIsToolResult && !forced) return undefined;
  const tool = typeof choice === 'object' ? tools.find((t) => t.name === choice.name) : tools[0];
  if (!tool) return undefined;
  const params = (tool.parameters ?? { type: 'object', properties: {} }) as Schema;
  // A tool that takes any object (no properties, additionalProperties: true) gets the reply itself, as JSON output does.
  const open = params.additionalProperties === true && !params.properties;
  const args = open ? { reply: snippet(userText, 80) || 'sandbox' } : sampleValue(params, userText);
  return { name: tool.name, arguments: args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {} };
}

/** The answer after a tool result came back. */
export function toolResultAnswer(model: string, toolName: string | undefined, result: string): string {
  return `Sandbox reply from ${model}: the tool ${toolName ?? 'call'} returned ${snippet(result, 80)}. This text comes from the built-in sandbox, not a real model.`;
}

/** JSON output for a response-format request: the schema's sample, or an object carrying the reply. */
export function jsonAnswer(schema: unknown | undefined, reply: string): string {
  return JSON.stringify(schema ? sampleValue(schema, reply) : { reply });
}
