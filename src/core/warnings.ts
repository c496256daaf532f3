/**
 * Something the service did differently from what was asked, told with the result instead of failing it.
 * `type` is for programs, `message` for people.
 */
export type GenerationWarning =
  /** A request option the vendor model does not take; it was left out. `setting` is the API field. */
  | { type: 'unsupported-setting'; setting: string; message: string }
  /** The model the request named is retired: its replacement `model` ran it, at its own price. */
  | { type: 'model-replaced'; requested: string; model: string; message: string }
  /** Any other note (and warnings stored before they had a type). */
  | { type: 'note'; message: string };

export function unsupportedSetting(setting: string, model: string): GenerationWarning {
  return { type: 'unsupported-setting', setting, message: `${setting} is not used by ${model} and was left out` };
}

export function modelReplaced(requested: string, served: string, shutdownAt: string | null): GenerationWarning {
  const when = shutdownAt ? ` (shut down by its vendor on ${shutdownAt})` : '';
  return {
    type: 'model-replaced',
    requested,
    model: served,
    message: `${requested} is retired${when}: served by ${served} and billed at its price`,
  };
}

/** Warnings as stored with a result, read back: typed objects, or the plain strings of older results. */
export function readWarnings(stored: unknown): GenerationWarning[] {
  if (!Array.isArray(stored)) return [];
  return stored.map((w): GenerationWarning => {
    if (w && typeof w === 'object' && typeof (w as { type?: unknown }).type === 'string') return w as GenerationWarning;
    return { type: 'note', message: String(w) };
  });
}
