import { fallbacksOf } from '../fallback-models';
import type { ReasoningEnvelope } from '../../../core/generations/chat/reasoning-envelope';
import type { ChatInput } from '../../../core/generations/chat/types';
import type { ChatInputMessage, ChatInputPart } from '../../../core/generations/chat/request';
import type {
  CacheMark,
  ChatDocumentPart,
  ChatReasoning,
  ChatToolCall,
  ChatToolChoice,
  ThinkingRequest,
} from '../../../core/providers/types';
import type { AnthropicMessage, CountTokensBody, MessagesBody } from './schema';
import { reasoningOfBlock } from './thinking';

type Block = AnthropicMessage['content'][number];
type ImageBlock = Extract<Block, { type: 'image' }>;

/** A block's cache_control as the core's cache mark. */
function markOf(block: { cache_control?: { ttl?: '5m' | '1h' } | null }): { cache?: CacheMark } {
  const control = block.cache_control;
  return control ? { cache: control.ttl ? { ttl: control.ttl } : {} } : {};
}

function imagePart(block: ImageBlock, field: string): ChatInputPart {
  const src = block.source;
  return src.type === 'base64'
    ? { type: 'image_url', url: `data:${src.media_type};base64,${src.data}`, field: `${field}.source.data`, ...markOf(block) }
    : { type: 'image_url', url: src.url, field: `${field}.source.url`, ...markOf(block) };
}

type DocumentBlock = Extract<Block, { type: 'document' }>;
type SearchResultBlock = Extract<Block, { type: 'search_result' }>;

function documentPart(block: DocumentBlock): ChatInputPart {
  const src = block.source;
  const source: ChatDocumentPart['source'] =
    src.type === 'base64'
      ? { type: 'pdf', data: Buffer.from(src.data, 'base64') }
      : src.type === 'text'
        ? { type: 'text', text: src.data }
        : src.type === 'url'
          ? { type: 'url', url: src.url }
          : { type: 'content', texts: src.content.map((b) => b.text) };
  return {
    type: 'document',
    source,
    ...(block.title ? { title: block.title } : {}),
    ...(block.context ? { context: block.context } : {}),
    ...(typeof block.citations?.enabled === 'boolean' ? { citations: block.citations.enabled } : {}),
    ...markOf(block),
  };
}

function searchResultPart(block: SearchResultBlock): ChatInputPart {
  return {
    type: 'search_result',
    source: block.source,
    title: block.title,
    texts: block.content.map((b) => b.text),
    ...(typeof block.citations?.enabled === 'boolean' ? { citations: block.citations.enabled } : {}),
    ...markOf(block),
  };
}

/**
 * A tool result's content: its text (with the cache breakpoint of the result or its last marked block), or, with
 * documents or search results (which Claude reads and cites as such), its parts.
 */
function toolResultContent(
  block: Extract<Block, { type: 'tool_result' }>,
  inner: NonNullable<Extract<Block, { type: 'tool_result' }>['content']>,
): string | ChatInputPart[] {
  if (inner.some((b) => b.type === 'document' || b.type === 'search_result')) {
    return inner.flatMap((b): ChatInputPart[] => {
      if (b.type === 'text') return [{ type: 'text', text: b.text, ...markOf(b) }];
      if (b.type === 'document') return [documentPart(b)];
      if (b.type === 'search_result') return [searchResultPart(b)];
      return [];
    });
  }
  const joined = inner.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
  const text = block.is_error ? `Error: ${joined}` : joined;
  const mark = markOf(block).cache ?? [...inner].reverse().find((b) => b.cache_control)?.cache_control;
  return mark ? [{ type: 'text' as const, text, cache: { ...(mark.ttl ? { ttl: mark.ttl } : {}) } }] : text;
}

/** The system prompt as one system message: plain text, or its blocks when one carries a cache breakpoint. */
function systemMessage(system: CountTokensBody['system']): ChatInputMessage[] {
  const blocks = system ?? [];
  if (blocks.length === 0) return [];
  if (blocks.some((b) => b.cache_control))
    return [{ role: 'system', content: blocks.map((b) => ({ type: 'text', text: b.text, ...markOf(b) })) }];
  const text = blocks.map((b) => b.text).join('\n');
  return text !== '' ? [{ role: 'system', content: text }] : [];
}

/** Text that carries no cache breakpoint goes as a string, as before; marked parts keep their marks. */
const plainOrParts = (parts: ChatInputPart[]) =>
  parts.every((p) => p.type === 'text' && !p.cache) ? parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n') : parts;

/**
 * A user turn: its tool_result blocks answer the calls of the turn before, one tool message each (the core's
 * shape); text and images follow as one user message. Images inside a tool result travel in that user message,
 * since tool messages carry text on most vendors.
 */
function userTurn(blocks: Block[], field: string): ChatInputMessage[] {
  const out: ChatInputMessage[] = [];
  const parts: ChatInputPart[] = [];
  for (const [j, block] of blocks.entries()) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text, ...markOf(block) });
    else if (block.type === 'image') parts.push(imagePart(block, `${field}.${j}`));
    else if (block.type === 'document') parts.push(documentPart(block));
    else if (block.type === 'search_result') parts.push(searchResultPart(block));
    else if (block.type === 'tool_result') {
      const inner = block.content ?? [];
      out.push({ role: 'tool', toolCallId: block.tool_use_id, content: toolResultContent(block, inner) });
      for (const [k, b] of inner.entries()) if (b.type === 'image') parts.push(imagePart(b, `${field}.${j}.content.${k}`));
    }
  }
  if (parts.length > 0) out.push({ role: 'user', content: plainOrParts(parts) });
  return out;
}

/**
 * An assistant turn: its thinking blocks as the turn's reasoning (replayed to the vendor that produced it), its text,
 * and its tool_use blocks as the calls it made.
 */
function assistantTurn(blocks: Block[], envelope: ReasoningEnvelope): ChatInputMessage[] {
  const texts = blocks.flatMap((b) => (b.type === 'text' ? [b] : []));
  const text = texts.map((b) => b.text).join('');
  const toolCalls: ChatToolCall[] = blocks.flatMap((b) =>
    b.type === 'tool_use' ? [{ id: b.id, name: b.name, arguments: JSON.stringify(b.input), ...markOf(b) }] : [],
  );
  const reasoning: ChatReasoning[] = blocks.flatMap((b) =>
    b.type === 'thinking' || b.type === 'redacted_thinking' ? reasoningOfBlock(b, envelope) : [],
  );
  if (text === '' && toolCalls.length === 0) return [];
  const content = texts.some((b) => b.cache_control) ? texts.map((b) => ({ type: 'text' as const, text: b.text, ...markOf(b) })) : text;
  return [
    {
      role: 'assistant',
      content,
      ...(reasoning.length > 0 ? { reasoning } : {}),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    },
  ];
}

function toolChoice(choice: CountTokensBody['tool_choice']): { toolChoice?: ChatToolChoice; parallelToolCalls?: boolean } {
  if (!choice) return {};
  const single = choice.type !== 'none' && choice.disable_parallel_tool_use === true ? { parallelToolCalls: false } : {};
  switch (choice.type) {
    case 'auto':
      return { toolChoice: 'auto', ...single };
    case 'any':
      return { toolChoice: 'required', ...single };
    case 'tool':
      return { toolChoice: { name: choice.name }, ...single };
    case 'none':
      return { toolChoice: 'none' };
  }
}

/**
 * Extended thinking as the core asks for it: a budget, adaptive, or off; kinds this server does not know yet are
 * left to the model's default.
 */
function thinkingOf(thinking: CountTokensBody['thinking']): { thinking?: ThinkingRequest } {
  const display = typeof thinking?.display === 'string' ? { display: thinking.display } : {};
  if (thinking?.type === 'enabled' && thinking.budget_tokens !== undefined) {
    return { thinking: { type: 'budget', budgetTokens: thinking.budget_tokens, ...display } };
  }
  if (thinking?.type === 'adaptive') return { thinking: { type: 'adaptive', ...display } };
  if (thinking?.type === 'disabled') return { thinking: { type: 'disabled' } };
  return {};
}

/** The conversation part of a Messages request (also what count_tokens measures) as the core's chat input. */
export function toConversation(body: CountTokensBody, envelope: ReasoningEnvelope): ChatInput {
  const messages: ChatInputMessage[] = systemMessage(body.system);
  for (const [i, m] of body.messages.entries()) {
    messages.push(...(m.role === 'user' ? userTurn(m.content, `messages.${i}.content`) : assistantTurn(m.content, envelope)));
  }
  return {
    model: body.model,
    messages,
    tools: body.tools?.map((t) => ({
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      parameters: t.input_schema,
      ...markOf(t),
    })),
    ...toolChoice(body.tool_choice),
  };
}

/** A Messages request as the core's chat input: `thinking` and `output_config.effort` are its reasoning request. */
export function toChatInput(body: MessagesBody, envelope: ReasoningEnvelope): ChatInput {
  const effort = body.output_config?.effort;
  return {
    ...toConversation(body, envelope),
    ...fallbacksOf(body.model, body.models),
    ...thinkingOf(body.thinking),
    // Claude Code and the SDK replay a turn's thinking blocks: the vendor's reasoning state should come with them.
    ...(body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive' ? { keepReasoning: true } : {}),
    ...(effort ? { reasoningEffort: effort } : {}),
    maxTokens: body.max_tokens,
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { topP: body.top_p } : {}),
    ...(body.top_k !== undefined ? { topK: body.top_k } : {}),
    ...(body.stop_sequences?.length ? { stop: body.stop_sequences } : {}),
    ...(body.metadata?.user_id ? { user: body.metadata.user_id } : {}),
    ...(body.output_config?.format
      ? { responseFormat: { type: 'json_schema', name: 'output', schema: body.output_config.format.schema, strict: true } }
      : {}),
  };
}
