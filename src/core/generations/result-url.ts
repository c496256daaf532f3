import { linkBase, LinkOrigins } from '../links/link-origins';
import type { GenerationRecord } from '../records';

/**
 * `result_url` is `<base>/files/<key>`, served by the service itself (410 once retention removed it); the base is
 * the generation's own (core/links), so every surface shows the same URL.
 */
export function resultUrl(links: LinkOrigins, g: Pick<GenerationRecord, 'resultKey' | 'linkOrigin'>): string | null {
  return g.resultKey ? `${linkBase(links, g.linkOrigin)}/files/${g.resultKey}` : null;
}
