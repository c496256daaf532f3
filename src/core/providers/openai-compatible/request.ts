import { ChatMessage, ChatRequest, ProviderError } from '../types';
import type { ChatCompletionsProfile } from './profile';
import type { WireContentPart, WireMessage } from './wire';

function toWireMessage(profile: ChatCompletionsProfile, message: ChatMessage): WireMessage {
  if (typeof message.content === 'string') return { role: message.role, content: message.content };
  const hasImage = message.content.some((part) => part.type === 'image');
  if (!hasImage) {
    // Plain text goes as a string: every compatible server accepts that form (DeepSeek accepts only it).
    return { role: message.role, content: message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n') };
  }
  if (!profile.acceptsImages) {
    throw new ProviderError('bad_request', `${profile.provider} models do not accept images`, profile.provider);
  }
  const parts: WireContentPart[] = message.content.map((part) =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : { type: 'image_url', image_url: { url: `data:${part.mime};base64,${part.data.toString('base64')}` } },
  );
  return { role: message.role, content: parts };
}

/** The Chat Completions request body for one of our chat requests. */
export function buildChatBody(
  profile: ChatCompletionsProfile,
  req: ChatRequest,
  stream: boolean,
): Record<string, unknown> {
  const model = req.upstreamModel;
  const ceiling = profile.maxOutputTokens?.(model);
  const limit = ceiling !== undefined ? Math.min(req.maxTokens, ceiling) : req.maxTokens;
  const body: Record<string, unknown> = {
    model,
    messages: req.messages.map((m) => toWireMessage(profile, m)),
    [profile.tokenLimitField(model)]: limit,
  };
  if (req.temperature !== undefined && profile.acceptsTemperature(model)) body.temperature = req.temperature;
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}
