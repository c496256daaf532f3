import {
  CacheMark,
  ChatContentPart,
  ChatDocumentPart,
  ChatMessage,
  ChatOption,
  ChatReasoning,
  ChatRequest,
  ChatRequestTraits,
  ChatSearchResultPart,
  ProviderError,
  ReasoningEffort,
} from '../types';
import { toAnthropicSchema } from './output-schema';
import { AnthropicCacheControl, AnthropicContentBlock, AnthropicDocumentSource, AnthropicRequestBody } from './wire';

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
  'top_k',
  'documents',
  'cache_control',
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

/** The effort a budget stands for, on models that take an effort rather than a budget. */
function effortOfBudget(budget: number): Exclude<ReasoningEffort, 'none'> {
  const fits = (Object.entries(THINKING_BUDGET) as Array<[Exclude<ReasoningEffort, 'none'>, number]>).find(([, b]) => budget <= b);
  return fits?.[0] ?? 'max';
}

/**
 * How each Claude model reasons (the thinking troubleshooting page's table): Claude 4.7 and later only adaptively
 * (a budget is refused), steered by `output_config.effort` up to max; the 4.6 models both ways (the budget is
 * deprecated), effort up to max without xhigh; Haiku 4.5 and earlier only with a budget, and no effort.
 */
interface ClaudeReasoning {
  adaptive: boolean;
  budget: boolean;
  efforts: readonly string[];
}
const CLAUDE_REASONING: Array<[RegExp, ClaudeReasoning]> = [
  [/^claude-opus-4-[78]/, { adaptive: true, budget: false, efforts: ['low', 'medium', 'high', 'xhigh', 'max'] }],
  [/^claude-(opus|sonnet)-4-6/, { adaptive: true, budget: true, efforts: ['low', 'medium', 'high', 'max'] }],
];
const BUDGET_ONLY: ClaudeReasoning = { adaptive: false, budget: true, efforts: [] };

export function claudeReasoning(model: string): ClaudeReasoning {
  return CLAUDE_REASONING.find(([pattern]) => pattern.test(model))?.[1] ?? BUDGET_ONLY;
}

const EFFORT_SCALE: readonly ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/** The nearest effort the model takes: the next one up, or its highest. */
function nearestEffort(effort: ReasoningEffort, efforts: readonly string[]): string | undefined {
  const rank = (e: string) => EFFORT_SCALE.indexOf(e as ReasoningEffort);
  return efforts.find((e) => rank(e) >= rank(effort)) ?? efforts[efforts.length - 1];
}

/**
 * Thinking (enabled or adaptive) excludes a forced tool (the JSON tool included), a temperature other than 1 and top_p
 * below 0.95; a budget needs max_tokens above its 1024-token floor; and a tool loop whose calling turn lost its
 * thinking blocks (a client that does not keep them) cannot think on. In those cases the reasoning request is ignored.
 */
function thinkingFits(model: string, traits: ChatRequestTraits): boolean {
  const forced = traits.toolChoice === 'required' || typeof traits.toolChoice === 'object';
  return (
    (claudeReasoning(model).adaptive || traits.maxTokens > MIN_THINKING_BUDGET + 1) &&
    !forced &&
    !traits.unreasonedToolLoop &&
    !traits.options.has('response_format.json_object') &&
    !traits.options.has('temperature') &&
    (traits.topP === undefined || traits.topP >= 0.95)
  );
}

export function anthropicSupports(option: ChatOption, model: string, traits?: ChatRequestTraits): boolean {
  if (option === 'reasoning_effort') return traits !== undefined && thinkingFits(model, traits);
  // The JSON tool is the only forced tool a request may carry.
  if (option === 'response_format.json_object') return !traits?.options.has('tools');
  return SUPPORTED.has(option);
}

/**
 * The request's reasoning as the model takes it: a budget where one was asked and the model takes budgets (or the
 * model takes nothing else), adaptive thinking otherwise; the effort, at the nearest value the model takes, where it
 * takes one.
 */
function reasoningFields(req: ChatRequest): { thinking?: AnthropicRequestBody['thinking']; effort?: string } {
  const asked = req.thinking;
  if (asked?.type === 'disabled') return { thinking: { type: 'disabled' } };
  if (asked === undefined && (req.reasoningEffort === undefined || req.reasoningEffort === 'none')) return {};
  const model = claudeReasoning(req.upstreamModel);
  const effort = req.reasoningEffort ?? (asked?.type === 'budget' ? effortOfBudget(asked.budgetTokens) : undefined);
  const effortField = effort !== undefined && model.efforts.length > 0 ? { effort: nearestEffort(effort, model.efforts) } : {};
  const display = asked?.display !== undefined ? { display: asked.display } : {};
  if (asked?.type === 'budget' && model.budget) {
    const budget = Math.max(MIN_THINKING_BUDGET, Math.min(asked.budgetTokens, req.maxTokens - 1));
    return { thinking: { type: 'enabled', budget_tokens: budget, ...display }, ...(req.reasoningEffort !== undefined ? effortField : {}) };
  }
  if (model.adaptive) return { thinking: { type: 'adaptive', ...display }, ...effortField };
  const sized = effort === undefined || effort === 'none' ? 'medium' : effort;
  return { thinking: { type: 'enabled', budget_tokens: thinkingBudget(sized, req.maxTokens) } };
}

function plainText(content: string | ChatContentPart[]): string {
  if (typeof content === 'string') return content;
  return content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

const cacheControl = (mark: CacheMark | undefined): { cache_control?: AnthropicCacheControl } =>
  mark ? { cache_control: { type: 'ephemeral', ...(mark.ttl ? { ttl: mark.ttl } : {}) } } : {};

function documentBlock(part: ChatDocumentPart): AnthropicContentBlock {
  const src = part.source;
  const source: AnthropicDocumentSource =
    src.type === 'text'
      ? { type: 'text', media_type: 'text/plain', data: src.text }
      : src.type === 'pdf'
        ? { type: 'base64', media_type: 'application/pdf', data: src.data.toString('base64') }
        : src.type === 'url'
          ? { type: 'url', url: src.url }
          : { type: 'content', content: src.texts.map((text) => ({ type: 'text', text })) };
  return {
    type: 'document',
    source,
    ...(part.title !== undefined ? { title: part.title } : {}),
    ...(part.context !== undefined ? { context: part.context } : {}),
    ...(part.citations !== undefined ? { citations: { enabled: part.citations } } : {}),
    ...cacheControl(part.cache),
  };
}

function searchResultBlock(part: ChatSearchResultPart): AnthropicContentBlock {
  return {
    type: 'search_result',
    source: part.source,
    title: part.title,
    content: part.texts.map((text) => ({ type: 'text', text })),
    ...(part.citations !== undefined ? { citations: { enabled: part.citations } } : {}),
    ...cacheControl(part.cache),
  };
}

function toBlocks(content: string | ChatContentPart[]): AnthropicContentBlock[] {
  // The API refuses empty text blocks (an assistant turn that only called tools has none).
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((part): AnthropicContentBlock => {
    if (part.type === 'text') return { type: 'text', text: part.text, ...cacheControl(part.cache) };
    if (part.type === 'document') return documentBlock(part);
    if (part.type === 'search_result') return searchResultBlock(part);
    if (part.type === 'file') {
      return {
        type: 'document',
        source: { type: 'base64', media_type: part.mime, data: part.data.toString('base64') },
        ...(part.filename !== undefined ? { title: part.filename } : {}),
        ...cacheControl(part.cache),
      };
    }
    if (!IMAGE_TYPES.has(part.mime)) {
      throw new ProviderError('bad_request', `anthropic does not accept images of type ${part.mime}`, 'anthropic');
    }
    return {
      type: 'image',
      source: { type: 'base64', media_type: part.mime, data: part.data.toString('base64') },
      ...cacheControl(part.cache),
    };
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

/**
 * Claude's own reasoning of a turn as it came: signed thinking and redacted thinking, unchanged. Thinking without a
 * signature cannot be verified and is left out (Anthropic refuses it), as is any other kind of state.
 */
function reasoningBlocks(reasoning: readonly ChatReasoning[] | undefined): AnthropicContentBlock[] {
  return (reasoning ?? []).flatMap((r): AnthropicContentBlock[] => {
    if (r.provider !== 'anthropic') return [];
    if (r.type === 'text' && r.signature) return [{ type: 'thinking', thinking: r.text, signature: r.signature }];
    if (r.type === 'redacted') return [{ type: 'redacted_thinking', data: r.data }];
    return [];
  });
}

/** The last cache mark among a message's parts (a tool result carries it on its block). */
const lastMark = (content: string | ChatContentPart[]) =>
  typeof content === 'string' ? undefined : [...content].reverse().find((p) => p.cache)?.cache;

/**
 * A chat message as Messages API blocks: an assistant turn's reasoning first, then its text, then its tool calls as
 * `tool_use`; a tool answer is a user turn's `tool_result`.
 */
function toTurn(msg: ChatMessage): { role: 'user' | 'assistant'; content: AnthropicContentBlock[] } {
  if (msg.role === 'tool') {
    // A tool may answer with search results or documents, which Claude reads (and cites) as such.
    const rich = typeof msg.content !== 'string' && msg.content.some((p) => p.type === 'search_result' || p.type === 'document');
    const content = rich ? toBlocks(msg.content) : plainText(msg.content);
    const result = { type: 'tool_result' as const, tool_use_id: msg.toolCallId ?? '', content };
    return { role: 'user', content: [{ ...result, ...cacheControl(rich ? undefined : lastMark(msg.content)) }] };
  }
  const blocks = [...(msg.role === 'assistant' ? reasoningBlocks(msg.reasoning) : []), ...toBlocks(msg.content)];
  for (const call of msg.toolCalls ?? [])
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: parseArguments(call.arguments), ...cacheControl(call.cache) });
  return { role: msg.role === 'assistant' ? 'assistant' : 'user', content: blocks };
}

/** System messages as the top-level `system`: one string, or text blocks when one carries a cache mark. */
function systemOf(messages: readonly ChatMessage[]): AnthropicRequestBody['system'] {
  const parts = messages
    .filter((m) => m.role === 'system')
    .flatMap((m) => (typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content));
  if (parts.length === 0) return undefined;
  if (!parts.some((p) => p.cache))
    return messages
      .filter((m) => m.role === 'system')
      .map((m) => plainText(m.content))
      .join('\n\n');
  return parts.flatMap((p) => (p.type === 'text' ? [{ type: 'text' as const, text: p.text, ...cacheControl(p.cache) }] : []));
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
  const messages: AnthropicRequestBody['messages'] = [];
  for (const msg of req.messages) {
    if (msg.role === 'system') continue;
    const turn = toTurn(msg);
    const last = messages[messages.length - 1];
    if (last && last.role === turn.role) last.content.push(...turn.content);
    else messages.push(turn);
  }
  const body: AnthropicRequestBody = { model: req.upstreamModel, max_tokens: req.maxTokens, messages };
  const system = systemOf(req.messages);
  if (system !== undefined) body.system = system;
  // The Messages API accepts 0..1; callers speaking the chat-completions dialect may send up to 2.
  if (req.temperature !== undefined) body.temperature = Math.min(1, Math.max(0, req.temperature));
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.topK !== undefined) body.top_k = req.topK;
  if (req.stop?.length) body.stop_sequences = req.stop;
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      input_schema: t.parameters ?? { type: 'object', properties: {} },
      ...cacheControl(t.cache),
    }));
  }
  const choice = toolChoice(req);
  if (choice && req.tools?.length) body.tool_choice = choice;
  if (req.user !== undefined) body.metadata = { user_id: req.user };
  applyResponseFormat(req, body);
  const { thinking, effort } = reasoningFields(req);
  if (thinking) body.thinking = thinking;
  if (effort !== undefined) body.output_config = { ...body.output_config, effort };
  // Thinking takes only the default temperature (the core ignores the reasoning request when another one was asked for).
  if (thinking && thinking.type !== 'disabled') delete body.temperature;
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
