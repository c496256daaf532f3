import crypto from 'node:crypto';
import { ParamError } from '../../../core/catalog/errors';
import type { Owner } from '../../../core/responses/stored-responses';
import type { ApiServices } from '../../api-services';
import { withoutEncrypted } from './response';
import { ResponsesBody, ResponsesItem, responsesBody } from './schema';

// The input a response is generated from, as it is stored: the chain of `previous_response_id` (its input items and
// its output, in order), then this request's items, each with an id, item references resolved to the stored items.

type Json = Record<string, unknown>;

const PREFIX: Record<string, string> = {
  message: 'msg',
  function_call: 'fc',
  function_call_output: 'fco',
  custom_tool_call: 'ctc',
  custom_tool_call_output: 'ctco',
  reasoning: 'rs',
  web_search_call: 'ws',
  additional_tools: 'at',
};

const idOf = (type: string) => `${PREFIX[type] ?? 'item'}_${crypto.randomBytes(16).toString('hex')}`;

/** The request's input as items (a string is one user message). */
export function itemsOf(body: ResponsesBody): ResponsesItem[] {
  return typeof body.input === 'string'
    ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: body.input }] }]
    : body.input;
}

/** Items read back from storage as input items (what the chain holds is input to the next turn). */
function storedItems(items: readonly Json[]): ResponsesItem[] {
  if (items.length === 0) return [];
  const parsed = responsesBody.shape.input.safeParse(items);
  if (!parsed.success) throw new Error(`a stored response holds items that are not input items: ${parsed.error.message}`);
  return typeof parsed.data === 'string' ? [] : parsed.data;
}

export interface Context {
  /** Every item the response is generated from, each with its id (what is stored as its input items). */
  items: ResponsesItem[];
}

/**
 * The stored chain before this request and its own items, with ids.
 * @throws ParamError for a previous response or an item reference the account does not have, or a duplicated item
 */
export async function contextOf(services: Pick<ApiServices, 'responses'>, owner: Owner, body: ResponsesBody): Promise<Context> {
  const chain: ResponsesItem[] = [];
  if (body.previous_response_id) {
    const previous = await services.responses.find(owner, body.previous_response_id);
    if (!previous) {
      throw new ParamError(
        'previous_response_id',
        `previous_response_id: Previous response with id '${body.previous_response_id}' not found.`,
      );
    }
    const output = Array.isArray(previous.response.output) ? (previous.response.output as Json[]) : [];
    chain.push(...storedItems([...previous.inputItems, ...output]));
  }
  const seen = new Set(chain.map((i) => (i as { id?: string }).id).filter(Boolean));
  const own: ResponsesItem[] = [];
  for (const [i, item] of itemsOf(body).entries()) {
    let resolved: ResponsesItem = item;
    if (item.type === 'item_reference') {
      const found = await services.responses.findItem(owner, item.id);
      if (!found) throw new ParamError(`input.${i}.id`, `input.${i}: Item with id '${item.id}' not found.`);
      resolved = storedItems([found])[0];
    }
    const id = (resolved as { id?: string | null }).id;
    if (typeof id === 'string' && id !== '' && seen.has(id)) {
      throw new ParamError(`input.${i}`, `Duplicate item found with id ${id}. Remove duplicate items from your input and try again.`);
    }
    const withId = typeof id === 'string' && id !== '' ? resolved : ({ ...resolved, id: idOf(resolved.type) } as ResponsesItem);
    seen.add((withId as { id: string }).id);
    own.push(withId);
  }
  return { items: [...chain, ...own] };
}

/** Stored input items as a client reads them: encrypted reasoning only when it asks for it. */
export function inputItemsView(items: readonly Json[], includeEncrypted: boolean): Json[] {
  return includeEncrypted ? [...items] : items.map(withoutEncrypted);
}
