import type { ChatInput } from '../../../core/generations/chat/types';
import type { ChatInputMessage, ChatInputPart } from '../../../core/generations/chat/request';
import type { ChatToolCall, ChatToolChoice } from '../../../core/providers/types';
import type { AnthropicMessage, CountTokensBody, MessagesBody } from './schema';

type Block = AnthropicMessage['content'][number];
type ImageBlock = Extract<Block, { type: 'image' }>;

function imagePart(block: ImageBlock, field: string): ChatInputPart {
  const src = block.source;
  return src.type === 'base64'
    ? { type: 'image_url', url: `data:${src.media_type};base64,${src.data}`, field: `${field}.source.data` }
    : { type: 'image_url', url: src.url, field: `${field}.source.url` };
}

function systemText(system: CountTokensBody['system']): string {
  return (system ?? []).map((b) => b.text).join('\n');
}

/**
 * A user turn: its tool_result blocks answer the calls of the turn before, one tool message each (the core's
 * shape); text and images follow as one user message. Images inside a tool result travel in that user message,
 * since tool messages carry text on most vendors.
 */
function userTurn(blocks: Block[], field: string): ChatInputMessage[] {
  const out: ChatInputMessage[] = [];
  const parts: ChatInputPart[] = [];
  for (const [j, block] of blocks.entries()) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image') parts.push(imagePart(block, `${field}.${j}`));
    else if (block.type === 'tool_result') {
      const inner = block.content ?? [];
      const text = inner.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
      out.push({ role: 'tool', toolCallId: block.tool_use_id, content: block.is_error ? `Error: ${text}` : text });
      for (const [k, b] of inner.entries()) if (b.type === 'image') parts.push(imagePart(b, `${field}.${j}.content.${k}`));
    }
  }
  if (parts.length > 0)
    out.push({ role: 'user', content: parts.every((p) => p.type === 'text') ? parts.map((p) => p.text).join('\n') : parts });
  return out;
}

/** An assistant turn: its text, and its tool_use blocks as the calls it made; thinking blocks inform no other vendor. */
function assistantTurn(blocks: Block[]): ChatInputMessage[] {
  const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
  const toolCalls: ChatToolCall[] = blocks.flatMap((b) =>
    b.type === 'tool_use' ? [{ id: b.id, name: b.name, arguments: JSON.stringify(b.input) }] : [],
  );
  if (text === '' && toolCalls.length === 0) return [];
  return [{ role: 'assistant', content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}) }];
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

/** The conversation part of a Messages request (also what count_tokens measures) as the core's chat input. */
export function toConversation(body: CountTokensBody): ChatInput {
  const system = systemText(body.system);
  const messages: ChatInputMessage[] = system !== '' ? [{ role: 'system', content: system }] : [];
  for (const [i, m] of body.messages.entries()) {
    messages.push(...(m.role === 'user' ? userTurn(m.content, `messages.${i}.content`) : assistantTurn(m.content)));
  }
  return {
    model: body.model,
    messages,
    tools: body.tools?.map((t) => ({
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      parameters: t.input_schema,
    })),
    ...toolChoice(body.tool_choice),
  };
}

/** A Messages request as the core's chat input. */
export function toChatInput(body: MessagesBody): ChatInput {
  return {
    ...toConversation(body),
    maxTokens: body.max_tokens,
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { topP: body.top_p } : {}),
    ...(body.stop_sequences?.length ? { stop: body.stop_sequences } : {}),
    ...(body.metadata?.user_id ? { user: body.metadata.user_id } : {}),
    ...(body.output_config?.format
      ? { responseFormat: { type: 'json_schema', name: 'output', schema: body.output_config.format.schema, strict: true } }
      : {}),
  };
}
