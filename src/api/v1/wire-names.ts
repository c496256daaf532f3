import { ParamError } from '../../core/catalog/errors';
import { hasErrorCode } from '../../core/error-registry';

/** A surface's names for the core's request parameters (which are the chat-completions names). */
export type WireNames = Readonly<Record<string, string>>;

function escape(name: string): string {
  return name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A core parameter name (or a field under it, `messages.0...`) in the surface's words. */
export function wireName(names: WireNames, field: string): string {
  const [head, ...rest] = field.split('.');
  const renamed = names[head];
  return renamed === undefined ? field : [renamed, ...rest].join('.');
}

/**
 * Runs `work`; a parameter refusal from the core is re-worded with the surface's parameter names, so a
 * Responses client reads `text.format`, a Messages client `stop_sequences`, where chat completions says
 * `response_format` or `stop`.
 */
export async function withWireNames<T>(names: WireNames, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!hasErrorCode(err, 'validation_error')) throw err;
    const field = wireName(names, err.field);
    if (field === err.field) throw err;
    const head = err.field.split('.')[0];
    const message = err.message.replace(new RegExp(`(^|[\\s(])${escape(head)}(?=[\\s.:,)]|$)`, 'g'), `$1${names[head]}`);
    throw new ParamError(field, message, err.reason);
  }
}
