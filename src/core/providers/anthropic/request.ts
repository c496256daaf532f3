import { ChatContentPart, ChatMessage, ChatOption, ChatRequest, ChatRequestTraits, ProviderError, ReasoningEffort } from '../types';
import { toAnthropicSchema } from './output-schema';
import { AnthropicContentBlock, AnthropicRequestBody } from './wire';

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * What the Messages API can express: no seed, no penalties, none of OpenAI's labels but the end user
 * (metadata.user_id). JSON output through structured outputs (a schema) or a forced tool (any object).
 */
const SUPPORTED = new Set<ChatOption>([
  'temperature',
  'tools',
  'parallel_tool_calls',
  'stop',
  'top_p',
  'user',
  'pdf',
  'response_format.json_schema',
  'response_format.json_object',
  'reasoning_effort',
]);

/** The tool whose input is the answer, for JSON output without a schema (structured outputs need one). */
export const JSON_ANSWER_TOOL = 'json_answer';

/** Extended thinking budgets: at least 1024 (Anthropic's floor), never more than half of max_tokens. */
const THINKING_BUDGET: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32000,
  max: 64000,
};
const MIN_THINKING_BUDGET = 1024;

function thinkingBudget(effort: Exclude<ReasoningEffort, 'none'>, maxTokens: number): number {
  return Math.max(MIN_THINKING_BUDGET, Math.min(THINKING_BUDGET[effort], Math.floor(maxTokens / 2)));
}

/**
 * Extended thinking excludes a forced tool (the JSON tool included), a temperature other than 1 and top_p below 0.95;
 * it needs max_tokens above its 1024-token floor, and a tool round trip would need the earlier turn's thinking blocks,
 * which a chat-completions client does not keep. In those cases `reasoning_effort` is ignored.
 */
function thinkingFits(traits: ChatRequestTraits): boolean {
  const forced = traits.toolChoice === 'required' || typeof traits.toolChoice === 'object';
  return (
    traits.maxTokens > MIN_THINKING_BUDGET + 1 &&
    !forced &&
    !traits.toolTurns &&
    !traits.options.has('response_format.json_object') &&
    !traits.options.has('temperature') &&
    (traits.topP === undefined || traits.topP >= 0.95)
  );
}

export function anthropicSupports(option: ChatOption, traits?: ChatRequestTraits): boolean {
  if (option === 'reasoning_effort') return traits !== undefined && thinkingFits(traits);
  // The JSON tool is the only forced tool a request may carry.
  if (option === 'response_format.json_object') return !traits?.options.has('tools');
  return SUPPORTED.has(option);
}

function plainText(content: string | ChatContentPart[]): string {
  if (typeof content === 'string') return content;
  return content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

function toBlocks(content: string | ChatContentPart[]): AnthropicContentBlock[] {
  // The API refuses empty text blocks (an assistant turn that only called tools has none).
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((part): AnthropicContentBlock => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'file') {
      return {
        type: 'document',
        source: { type: 'base64', media_type: part.mime, data: part.data.toString('base64') },
        ...(part.filename !== undefined ? { title: part.filename } : {}),
      };
    }
    if (!IMAGE_TYPES.has(part.mime)) {
      throw new ProviderError('bad_request', `anthropic does not accept images of type ${part.mime}`, 'anthropic');
    }
    return { type: 'image', source: { type: 'base64', media_type: part.mime, data: part.data.toString('base64') } };
  });
}

function parseArguments(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** A chat message as Messages API blocks: tool calls become `tool_use`, tool answers a user turn's `tool_result`. */
function toTurn(msg: ChatMessage): { role: 'user' | 'assistant'; content: AnthropicContentBlock[] } {
  if (msg.role === 'tool') {
    return { role: 'user', content: [{ type: 'tool_result', tool_use_id: msg.toolCallId ?? '', content: plainText(msg.content) }] };
  }
  const blocks = toBlocks(msg.content);
  for (const call of msg.toolCalls ?? [])
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: parseArguments(call.arguments) });
  return { role: msg.role === 'assistant' ? 'assistant' : 'user', content: blocks };
}

function toolChoice(req: ChatRequest): AnthropicRequestBody['tool_choice'] {
  const noParallel = req.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  const choice = req.toolChoice;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...noParallel };
  if (typeof choice === 'object') return { type: 'tool', name: choice.name, ...noParallel };
  if (choice === 'auto' || req.parallelToolCalls === false) return { type: 'auto', ...noParallel };
  return undefined;
}

/** Maps our chat request to a Messages API body: system messages are lifted out, same-role turns merged. */
export function toAnthropicBody(req: ChatRequest, stream: boolean): AnthropicRequestBody {
  const system: string[] = [];
  const messages: AnthropicRequestBody['messages'] = [];
  for (const msg of req.messages) {
    if (msg.role === 'system') {
      system.push(plainText(msg.content));
      continue;
    }
    const turn = toTurn(msg);
    const last = messages[messages.length - 1];
    if (last && last.role === turn.role) last.content.push(...turn.content);
    else messages.push(turn);
  }
  const body: AnthropicRequestBody = { model: req.upstreamModel, max_tokens: req.maxTokens, messages };
  if (system.length > 0) body.system = system.join('\n\n');
  // The Messages API accepts 0..1; callers speaking the chat-completions dialect may send up to 2.
  if (req.temperature !== undefined) body.temperature = Math.min(1, Math.max(0, req.temperature));
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.stop?.length) body.stop_sequences = req.stop;
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      input_schema: t.parameters ?? { type: 'object', properties: {} },
    }));
  }
  const choice = toolChoice(req);
  if (choice && req.tools?.length) body.tool_choice = choice;
  if (req.user !== undefined) body.metadata = { user_id: req.user };
  applyResponseFormat(req, body);
  if (req.reasoningEffort !== undefined && req.reasoningEffort !== 'none') {
    body.thinking = { type: 'enabled', budget_tokens: thinkingBudget(req.reasoningEffort, req.maxTokens) };
    // Thinking takes only the default temperature (the core ignores reasoning_effort when another one was asked for).
    delete body.temperature;
  }
  if (stream) body.stream = true;
  return body;
}

/** A schema goes to structured outputs; JSON without one is the input of a forced tool that accepts any object. */
function applyResponseFormat(req: ChatRequest, body: AnthropicRequestBody): void {
  const format = req.responseFormat;
  if (format?.type === 'json_schema') {
    body.output_config = { format: { type: 'json_schema', schema: toAnthropicSchema(format.schema) } };
  } else if (format?.type === 'json_object') {
    body.tools = [
      {
        name: JSON_ANSWER_TOOL,
        description: 'Give the answer as a JSON object.',
        input_schema: { type: 'object', additionalProperties: true },
      },
    ];
    body.tool_choice = { type: 'tool', name: JSON_ANSWER_TOOL };
  }
}
