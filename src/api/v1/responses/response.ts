import crypto from 'node:crypto';
import type { ChatOutcome, ChatStream } from '../../../core/generations/chat/types';
import type { ChatUsage, FinishReason } from '../../../core/providers/types';
import { describeError } from '../../middleware/errors';
import type { SseChannel } from '../../sse';
import { serviceObject } from '../chat-run';
import { BlockEvent, blocksOfResult, OutputBlock, pipeBlocks } from '../output-blocks';
import type { ResponsesBody } from './schema';
import { newResponseId } from '../../../core/responses/ids';
import type { ReasoningEnvelope } from '../../../core/generations/chat/reasoning-envelope';
import { ENCRYPTED_CONTENT, ReasoningShown, reasoningItem, reasoningItemId, summaryPart } from './reasoning-items';

// The core's answer in the Responses wire format: the response object, and the documented stream of semantic
// events (response.created … response.completed), each with its sequence_number.

const newId = (prefix: string) => `${prefix}_${crypto.randomBytes(12).toString('base64url')}`;

type Json = Record<string, unknown>;

/** The request's settings as the response object echoes them. */
export interface ResponseFrame {
  id: string;
  createdAt: number;
  body: ResponsesBody;
  /** What of the reasoning the answer shows (summaries, encrypted content) and the envelope that seals it. */
  reasoning: ReasoningShown;
  /** Kept for the account (`store`, true unless the request says false). */
  store: boolean;
  background: boolean;
  previousResponseId: string | null;
}

export function responseFrame(
  body: ResponsesBody,
  envelope: ReasoningEnvelope,
  kept: { id?: string; createdAt?: number } = {},
): ResponseFrame {
  const reasoning = {
    summary: body.reasoning?.summary !== undefined && body.reasoning.summary !== null,
    encrypted: body.include?.includes(ENCRYPTED_CONTENT) ?? false,
    envelope,
  };
  return {
    id: kept.id ?? newResponseId(),
    createdAt: kept.createdAt ?? Math.floor(Date.now() / 1000),
    body,
    reasoning,
    store: body.store !== false,
    background: body.background === true,
    previousResponseId: body.previous_response_id ?? null,
  };
}

/** The frame a stored copy is rendered with: reasoning items keep their encrypted content, so a later turn restores it. */
const keptFrame = (frame: ResponseFrame): ResponseFrame => ({ ...frame, reasoning: { ...frame.reasoning, encrypted: true } });

/** A stored response as its client sees it: encrypted reasoning only when the request asked for it. */
export function clientView(response: Json, includeEncrypted: boolean): Json {
  if (includeEncrypted || !Array.isArray(response.output)) return response;
  return { ...response, output: (response.output as Json[]).map(withoutEncrypted) };
}

export function withoutEncrypted(item: Json): Json {
  if (item.type !== 'reasoning' || !('encrypted_content' in item)) return item;
  const { encrypted_content: _sealed, ...shown } = item;
  return shown;
}

function usageOf(usage: ChatUsage): Json {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/** How the answer ended: a cut by the token limit or the vendor's filter makes it `incomplete`, as OpenAI says it. */
function ending(finish: FinishReason | undefined): { status: 'completed' | 'incomplete'; incomplete_details: Json | null } {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

function responseObject(frame: ResponseFrame, model: string, fields: Json): Json {
  const b = frame.body;
  return {
    id: frame.id,
    object: 'response',
    created_at: frame.createdAt,
    status: 'in_progress',
    background: frame.background,
    error: null,
    incomplete_details: null,
    instructions: b.instructions ?? null,
    max_output_tokens: b.max_output_tokens ?? null,
    metadata: b.metadata ?? {},
    model,
    output: [],
    parallel_tool_calls: b.parallel_tool_calls ?? true,
    previous_response_id: frame.previousResponseId,
    reasoning: { effort: b.reasoning?.effort ?? null, summary: b.reasoning?.summary ?? null },
    store: frame.store,
    temperature: b.temperature ?? 1,
    text: { format: b.text?.format ?? { type: 'text' } },
    tool_choice: b.tool_choice ?? 'auto',
    tools: (b.tools ?? []).map((t) => (t.type === 'function' ? { ...t, strict: t.strict ?? true } : t)),
    top_p: b.top_p ?? 1,
    truncation: b.truncation ?? 'disabled',
    usage: null,
    user: b.user ?? null,
    ...fields,
  };
}

const outputTextPart = (text: string): Json => ({ type: 'output_text', text, annotations: [], logprobs: [] });

/** One output block as a Responses output item (`id` is the item's; a call keeps the model's call id). */
function outputItem(frame: ResponseFrame, block: OutputBlock, id: string, status: 'in_progress' | 'completed'): Json {
  switch (block.kind) {
    case 'text':
      return { type: 'message', id, status, role: 'assistant', content: status === 'completed' ? [outputTextPart(block.text)] : [] };
    case 'tool': {
      const namespace = block.namespace !== undefined ? { namespace: block.namespace } : {};
      return block.custom
        ? { type: 'custom_tool_call', id, call_id: block.id, name: block.name, ...namespace, input: block.arguments, status }
        : { type: 'function_call', id, call_id: block.id, name: block.name, ...namespace, arguments: block.arguments, status };
    }
    case 'reasoning':
      return reasoningItem(id, status === 'completed' ? block.text : '', block.reasoning, frame.reasoning);
    case 'hosted':
      return {
        type: `${block.call.type}_call`,
        id,
        status: status === 'completed' ? block.call.status : status,
        action: block.call.action,
      };
  }
}

function itemId(block: OutputBlock): string {
  switch (block.kind) {
    case 'reasoning':
      return reasoningItemId(block.reasoning);
    case 'hosted':
      return block.call.id;
    case 'tool':
      return newId(block.custom ? 'ctc' : 'fc');
    case 'text':
      return newId('msg');
  }
}

/** A whole answer as a Responses `response`: as its client sees it, and as it is stored (the same items, sealed reasoning kept). */
export function responseBodies(frame: ResponseFrame, out: ChatOutcome): { client: Json; stored: Json } {
  const blocks = blocksOfResult(out.result);
  const ids = blocks.map(itemId);
  const fields = { ...ending(out.result.finishReason), usage: usageOf(out.result.usage), service: serviceObject(out) };
  const kept = keptFrame(frame);
  return {
    client: responseObject(frame, out.model.slug, { ...fields, output: blocks.map((b, i) => outputItem(frame, b, ids[i], 'completed')) }),
    stored: responseObject(kept, out.model.slug, { ...fields, output: blocks.map((b, i) => outputItem(kept, b, ids[i], 'completed')) }),
  };
}

/** The response object before its answer (a background response: `queued`). */
export function pendingResponse(frame: ResponseFrame, model: string, status: 'queued' | 'in_progress'): Json {
  return responseObject(frame, model, { status });
}

/** A response that ended without an answer (a background response whose run failed or was cancelled). */
export function endedResponse(frame: ResponseFrame, model: string, status: 'failed' | 'cancelled', error: Json | null): Json {
  return responseObject(frame, model, { status, error });
}

/**
 * Writes the stream as Responses events; a vendor failure after the start is `response.failed`. @returns the final
 * response object as it is stored (sealed reasoning kept)
 */
export async function writeResponseStream(frame: ResponseFrame, stream: ChatStream, sse: SseChannel): Promise<Json> {
  let sequence = 0;
  const emit = (type: string, fields: Json): boolean => sse.event(type, { type, sequence_number: sequence++, ...fields });
  const model = stream.model.slug;
  const started = responseObject(frame, model, {});
  emit('response.created', { response: started });
  emit('response.in_progress', { response: started });

  const ids: string[] = [];
  const blocks: OutputBlock[] = [];
  const done: Json[] = [];
  const kept: Json[] = [];
  const keptAs = keptFrame(frame);
  const write = (ev: BlockEvent): boolean => {
    const output_index = ev.index;
    if (ev.type === 'start') {
      blocks[ev.index] = ev.block;
      ids[ev.index] = itemId(ev.block);
      const item_id = ids[ev.index];
      const added = emit('response.output_item.added', { output_index, item: outputItem(frame, ev.block, item_id, 'in_progress') });
      if (ev.block.kind === 'reasoning') {
        if (!frame.reasoning.summary) return added;
        emit('response.reasoning_summary_part.added', { item_id, output_index, summary_index: 0, part: summaryPart('') });
        // Reasoning that arrived whole has its text now.
        if (ev.block.text === '') return added;
        return emit('response.reasoning_summary_text.delta', { item_id, output_index, summary_index: 0, delta: ev.block.text });
      }
      if (ev.block.kind === 'hosted') {
        const kind = `response.${ev.block.call.type}_call`;
        emit(`${kind}.in_progress`, { item_id, output_index });
        return emit(`${kind}.searching`, { item_id, output_index });
      }
      if (ev.block.kind !== 'text') return added;
      return emit('response.content_part.added', { item_id, output_index, content_index: 0, part: outputTextPart('') });
    }
    const item_id = ids[ev.index];
    if (ev.type === 'delta') {
      if (ev.kind === 'reasoning') {
        if (!frame.reasoning.summary) return true;
        return emit('response.reasoning_summary_text.delta', { item_id, output_index, summary_index: 0, delta: ev.text });
      }
      if (ev.kind === 'text') {
        return emit('response.output_text.delta', { item_id, output_index, content_index: 0, delta: ev.text, logprobs: [] });
      }
      const custom = (blocks[ev.index] as { custom?: boolean } | undefined)?.custom;
      return emit(custom ? 'response.custom_tool_call_input.delta' : 'response.function_call_arguments.delta', {
        item_id,
        output_index,
        delta: ev.text,
      });
    }
    const item = outputItem(frame, ev.block, item_id, 'completed');
    done[ev.index] = item;
    kept[ev.index] = outputItem(keptAs, ev.block, item_id, 'completed');
    if (ev.block.kind === 'text') {
      emit('response.output_text.done', { item_id, output_index, content_index: 0, text: ev.block.text, logprobs: [] });
      emit('response.content_part.done', { item_id, output_index, content_index: 0, part: outputTextPart(ev.block.text) });
    } else if (ev.block.kind === 'tool') {
      if (ev.block.custom) emit('response.custom_tool_call_input.done', { item_id, output_index, input: ev.block.arguments });
      else emit('response.function_call_arguments.done', { item_id, output_index, name: ev.block.name, arguments: ev.block.arguments });
    } else if (ev.block.kind === 'hosted') {
      emit(`response.${ev.block.call.type}_call.completed`, { item_id, output_index });
    } else if (frame.reasoning.summary) {
      emit('response.reasoning_summary_text.done', { item_id, output_index, summary_index: 0, text: ev.block.text });
      emit('response.reasoning_summary_part.done', { item_id, output_index, summary_index: 0, part: summaryPart(ev.block.text) });
    }
    return emit('response.output_item.done', { output_index, item });
  };
  const piped = await pipeBlocks(stream, write);
  let fields: Json;
  if (piped.failure !== undefined) {
    const d = describeError(piped.failure);
    fields = {
      status: 'failed',
      error: { code: d.status >= 500 ? 'server_error' : d.code, message: d.message },
      service: serviceObject(piped.billed),
    };
    emit('response.failed', { response: responseObject(frame, model, { ...fields, output: done.filter(Boolean) }) });
  } else {
    const end = ending(piped.assembler.finishReason);
    fields = {
      ...end,
      usage: usageOf(piped.billed.usage ?? { promptTokens: stream.promptTokens, completionTokens: 0 }),
      service: serviceObject(piped.billed),
    };
    emit(end.status === 'completed' ? 'response.completed' : 'response.incomplete', {
      response: responseObject(frame, model, { ...fields, output: done.filter(Boolean) }),
    });
  }
  sse.close();
  return responseObject(keptAs, model, { ...fields, output: kept.filter(Boolean) });
}
