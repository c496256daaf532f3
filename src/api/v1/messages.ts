import { ParamError } from '../../core/catalog/errors';
import { parseDataUri } from '../../core/net/data-uri';
import { ChatContentPart, ChatMessage } from '../../core/providers/types';
import { ChatCompletionBody } from './schemas';

const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** Chat-completions messages to the core's; images must be inline `data:` URIs (no server-side fetch here). */
export function toChatMessages(messages: ChatCompletionBody['messages']): ChatMessage[] {
  return messages.map((m, i) => {
    if (typeof m.content === 'string') return { role: m.role, content: m.content };
    const parts: ChatContentPart[] = m.content.map((p) => {
      if (p.type === 'text') return { type: 'text', text: p.text };
      const url = typeof p.image_url === 'string' ? p.image_url : p.image_url.url;
      if (!url.startsWith('data:')) {
        throw new ParamError(`messages.${i}.content`, 'image_url must be a data: URI (base64) on this server');
      }
      try {
        const { data, mime } = parseDataUri(url, MAX_IMAGE_BYTES);
        return { type: 'image', data, mime };
      } catch (err) {
        throw new ParamError(`messages.${i}.content`, (err as Error).message);
      }
    });
    return { role: m.role, content: parts };
  });
}
