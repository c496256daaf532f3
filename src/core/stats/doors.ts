import type { GenerationEntity } from '../../db/entities/generation.entity';

/**
 * Where a request came in: `web` (a dashboard session, on /api/v2 or /v1), `api` (an API key), `bot`, or
 * `schedule`. Read from the generation's source and its API key, so older rows have a door too.
 */
export const DOORS = ['web', 'api', 'bot', 'schedule'] as const;
export type Door = (typeof DOORS)[number];

export function doorOf(g: Pick<GenerationEntity, 'source' | 'apiKeyId'>): Door {
  if (g.source === 'bot' || g.source === 'schedule') return g.source;
  return g.apiKeyId !== null && g.apiKeyId !== undefined ? 'api' : 'web';
}
