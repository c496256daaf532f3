import { ProviderConnection, ProviderError } from '../types';

/** The Gemini API takes the key in the `x-goog-api-key` header. */
export function googleHeaders(conn: ProviderConnection): Record<string, string> {
  return { 'x-goog-api-key': conn.apiKey };
}

/** Model ids go into the URL path: keep them to the characters Google uses. */
export function modelPath(model: string): string {
  if (!/^[A-Za-z0-9._-]+$/.test(model)) throw new ProviderError('bad_request', `invalid google model id: ${model}`, 'google');
  return `/models/${model}`;
}
