import type { ChatResult, ChatStreamEvent, ChatTool, ChatToolCall } from '../../providers/types';
import type { ChatInputMessage } from './request';

// OpenAI's custom tools (free-form input) and namespace tools, for vendors that have neither: a namespaced tool is
// offered as the function `<namespace>__<name>`, a custom tool as a function of one `input` string, and the model's
// calls come back in the client's shape (namespace and name, the free-form input).

const INPUT_SCHEMA = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The input of the tool, as its description asks for it' } },
  required: ['input'],
  additionalProperties: false,
};

/** What a plain function offered in a tool's place stands for. */
interface Original {
  name: string;
  namespace?: string;
  custom: boolean;
}

const flatName = (name: string, namespace: string | undefined) => (namespace !== undefined ? `${namespace}__${name}` : name);

function customDescription(tool: ChatTool): string | undefined {
  const format = tool.format;
  const grammar = format?.type === 'grammar' ? format : undefined;
  if (!grammar) return tool.description;
  const rule = `The input must follow this ${String(grammar.syntax ?? '')} grammar:\n${String(grammar.definition ?? '')}`;
  return tool.description ? `${tool.description}\n\n${rule}` : rule;
}

function lowerTool(tool: ChatTool): ChatTool {
  const name = flatName(tool.name, tool.namespace?.name);
  if (tool.kind === 'custom') {
    const description = customDescription(tool);
    return {
      name,
      ...(description !== undefined ? { description } : {}),
      parameters: INPUT_SCHEMA,
      ...(tool.cache ? { cache: tool.cache } : {}),
    };
  }
  const { namespace: _namespace, kind: _kind, format: _format, ...plain } = tool;
  return { ...plain, name };
}

function lowerCall(call: ChatToolCall): ChatToolCall {
  const { kind, namespace, ...plain } = call;
  return {
    ...plain,
    name: flatName(call.name, namespace),
    arguments: kind === 'custom' ? JSON.stringify({ input: call.arguments }) : call.arguments,
  };
}

/** A custom tool's input from the arguments its stand-in function was called with. */
function unwrapInput(args: string): string {
  try {
    const value: unknown = JSON.parse(args);
    if (value && typeof value === 'object' && typeof (value as { input?: unknown }).input === 'string')
      return (value as { input: string }).input;
  } catch {
    // A model that wrote no JSON wrote the input itself.
  }
  return args;
}

export interface ToolShapes {
  tools: ChatTool[] | undefined;
  messages: ChatInputMessage[];
  /** The answer's calls in the shape the client offered the tools. */
  restore(result: ChatResult): ChatResult;
  restoreStream(events: AsyncIterable<ChatStreamEvent>): AsyncIterable<ChatStreamEvent>;
}

const unchanged = (tools: ChatTool[] | undefined, messages: ChatInputMessage[]): ToolShapes => ({
  tools,
  messages,
  restore: (result) => result,
  restoreStream: (events) => events,
});

/** Tools and calls as plain functions, unless the vendor takes custom and namespace tools itself (`native`). */
export function shapeTools(tools: ChatTool[] | undefined, messages: ChatInputMessage[], native: boolean): ToolShapes {
  const special = (tools ?? []).some((t) => t.kind === 'custom' || t.namespace !== undefined);
  const specialCalls = messages.some((m) => m.toolCalls?.some((c) => c.kind === 'custom' || c.namespace !== undefined));
  if (native || (!special && !specialCalls)) return unchanged(tools, messages);
  const originals = new Map<string, Original>();
  for (const t of tools ?? [])
    originals.set(flatName(t.name, t.namespace?.name), { name: t.name, namespace: t.namespace?.name, custom: t.kind === 'custom' });
  const lowered = messages.map((m) => (m.toolCalls?.length ? { ...m, toolCalls: m.toolCalls.map(lowerCall) } : m));
  const restoreCall = (call: ChatToolCall): ChatToolCall => {
    const original = originals.get(call.name);
    if (!original) return call;
    return {
      ...call,
      name: original.name,
      ...(original.namespace !== undefined ? { namespace: original.namespace } : {}),
      ...(original.custom ? { kind: 'custom' as const, arguments: unwrapInput(call.arguments) } : {}),
    };
  };
  return {
    tools: tools?.map(lowerTool),
    messages: lowered,
    restore: (result) => (result.toolCalls?.length ? { ...result, toolCalls: result.toolCalls.map(restoreCall) } : result),
    restoreStream: (events) => restoreEvents(events, originals),
  };
}

/**
 * The stream with each call in the client's shape: a namespaced call names its namespace, and a custom tool's input
 * comes whole once its call is complete (its stand-in streams JSON, which is not the input until it is whole).
 */
async function* restoreEvents(
  events: AsyncIterable<ChatStreamEvent>,
  originals: ReadonlyMap<string, Original>,
): AsyncGenerator<ChatStreamEvent> {
  const kinds = new Map<string, Original>();
  let held: { choice?: number; index: number; args: string } | undefined;
  const release = (): ChatStreamEvent[] => {
    if (!held) return [];
    const out: ChatStreamEvent = {
      type: 'tool_call',
      index: held.index,
      arguments: unwrapInput(held.args),
      ...(held.choice ? { choice: held.choice } : {}),
    };
    held = undefined;
    return [out];
  };
  for await (const ev of events) {
    if (ev.type !== 'tool_call') {
      yield* release();
      yield ev;
      continue;
    }
    const key = `${ev.choice ?? 0}:${ev.index}`;
    if (held && (held.index !== ev.index || (held.choice ?? 0) !== (ev.choice ?? 0))) yield* release();
    if (ev.name !== undefined) {
      const original = originals.get(ev.name);
      if (original) kinds.set(key, original);
      if (original) {
        yield {
          ...ev,
          name: original.name,
          arguments: '',
          ...(original.namespace !== undefined ? { namespace: original.namespace } : {}),
          ...(original.custom ? { kind: 'custom' as const } : {}),
        };
        if (original.custom) held = { ...(ev.choice ? { choice: ev.choice } : {}), index: ev.index, args: ev.arguments };
        else if (ev.arguments !== '')
          yield { type: 'tool_call', index: ev.index, arguments: ev.arguments, ...(ev.choice ? { choice: ev.choice } : {}) };
        continue;
      }
    }
    if (kinds.get(key)?.custom && held) {
      held.args += ev.arguments;
      continue;
    }
    yield ev;
  }
  yield* release();
}
