import { ChatContentPart, ChatRequest, ProviderError } from '../types';
import { AnthropicContentBlock, AnthropicRequestBody } from './wire';

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function toBlocks(content: string | ChatContentPart[]): AnthropicContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part): AnthropicContentBlock => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (!IMAGE_TYPES.has(part.mime)) {
      throw new ProviderError('bad_request', `anthropic does not accept images of type ${part.mime}`, 'anthropic');
    }
    return { type: 'image', source: { type: 'base64', media_type: part.mime, data: part.data.toString('base64') } };
  });
}

function systemText(content: string | ChatContentPart[]): string {
  if (typeof content === 'string') return content;
  return content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

/** Maps our chat request to a Messages API body: system messages are lifted out, same-role turns merged. */
export function toAnthropicBody(req: ChatRequest, stream: boolean): AnthropicRequestBody {
  const system: string[] = [];
  const messages: AnthropicRequestBody['messages'] = [];
  for (const msg of req.messages) {
    if (msg.role === 'system') {
      system.push(systemText(msg.content));
      continue;
    }
    const blocks = toBlocks(msg.content);
    const last = messages[messages.length - 1];
    if (last && last.role === msg.role) last.content.push(...blocks);
    else messages.push({ role: msg.role, content: blocks });
  }
  const body: AnthropicRequestBody = { model: req.upstreamModel, max_tokens: req.maxTokens, messages };
  if (system.length > 0) body.system = system.join('\n\n');
  // The Messages API accepts 0..1; callers speaking the chat-completions dialect may send up to 2.
  if (req.temperature !== undefined) body.temperature = Math.min(1, Math.max(0, req.temperature));
  if (stream) body.stream = true;
  return body;
}
