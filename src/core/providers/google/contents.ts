import { ChatContentPart, ChatRequest } from '../types';
import { GeminiContent, GeminiPart } from './wire';

function toParts(content: string | ChatContentPart[]): GeminiPart[] {
  if (typeof content === 'string') return [{ text: content }];
  return content.map(
    (p): GeminiPart =>
      p.type === 'text' ? { text: p.text } : { inline_data: { mime_type: p.mime, data: p.data.toString('base64') } },
  );
}

export interface GeminiChatBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  generationConfig: { maxOutputTokens: number; temperature?: number };
}

/** Our chat request as a generateContent body: system text goes to `systemInstruction`, assistant turns are `model`. */
export function toGeminiChatBody(req: ChatRequest): GeminiChatBody {
  const system: string[] = [];
  const contents: GeminiContent[] = [];
  for (const msg of req.messages) {
    if (msg.role === 'system') {
      system.push(
        typeof msg.content === 'string'
          ? msg.content
          : msg.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n'),
      );
      continue;
    }
    contents.push({ role: msg.role === 'assistant' ? 'model' : 'user', parts: toParts(msg.content) });
  }
  const body: GeminiChatBody = { contents, generationConfig: { maxOutputTokens: req.maxTokens } };
  if (req.temperature !== undefined) body.generationConfig.temperature = req.temperature;
  if (system.length > 0) body.systemInstruction = { parts: [{ text: system.join('\n\n') }] };
  return body;
}
