import { documentText } from '../documents';
import { ChatContentPart, ChatMessage, ChatOption, ChatRequest, ReasoningEffort, ThinkingRequest } from '../types';
import { modelParts } from './thoughts';
import { GeminiContent, GeminiPart } from './wire';

/** generateContent has every sampling control and JSON output, but no switch for parallel function calls. */
const SUPPORTED = new Set<ChatOption>([
  'temperature',
  'tools',
  'response_format.json_object',
  'response_format.json_schema',
  'stop',
  'top_p',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'pdf',
  'reasoning_effort',
  'top_k',
]);

export function geminiSupports(option: ChatOption): boolean {
  return SUPPORTED.has(option);
}

function toParts(content: string | ChatContentPart[]): GeminiPart[] {
  if (typeof content === 'string') return [{ text: content }];
  return content.map((p): GeminiPart => {
    if (p.type === 'text') return { text: p.text };
    if (p.type === 'document' || p.type === 'search_result') return { text: documentText(p) };
    return { inline_data: { mime_type: p.mime, data: p.data.toString('base64') } };
  });
}

function plainText(content: string | ChatContentPart[]): string {
  if (typeof content === 'string') return content;
  return content
    .flatMap((p) => (p.type === 'text' ? [p.text] : p.type === 'document' || p.type === 'search_result' ? [documentText(p)] : []))
    .join('\n');
}

function asObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

interface GenerationConfig {
  maxOutputTokens: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  stopSequences?: string[];
  responseMimeType?: string;
  responseJsonSchema?: Record<string, unknown>;
  thinkingConfig?: ThinkingConfig;
}

type ThinkingLevel = 'MINIMAL' | 'LOW' | 'MEDIUM' | 'HIGH';
type ThinkingConfig = ({ thinkingLevel: ThinkingLevel } | { thinkingBudget: number }) & { includeThoughts?: boolean };

// Gemini 2.5 takes a token budget (Pro cannot go below 128); Gemini 3 a level, of which Pro has only LOW and HIGH.
// Gemini 3 cannot switch thinking off: `none` is its lowest level; above high, HIGH is the most it does.
const BUDGETS: Record<ReasoningEffort, number> = { none: 0, minimal: 0, low: 1024, medium: 8192, high: 24576, xhigh: 32768, max: 32768 };
const LEVELS: Record<ReasoningEffort, ThinkingLevel> = {
  none: 'MINIMAL',
  minimal: 'MINIMAL',
  low: 'LOW',
  medium: 'MEDIUM',
  high: 'HIGH',
  xhigh: 'HIGH',
  max: 'HIGH',
};

/** Messages' thinking without an effort: a budget sizes it, adaptive is the model's middle. */
function effortOfThinking(thinking: ThinkingRequest): ReasoningEffort {
  if (thinking.type !== 'budget') return 'medium';
  return thinking.budgetTokens <= 1024 ? 'low' : thinking.budgetTokens <= 8192 ? 'medium' : 'high';
}

export function thinkingConfig(effort: ReasoningEffort, model: string): ThinkingConfig {
  const pro = model.includes('-pro');
  if (model.startsWith('gemini-2.5')) return { thinkingBudget: pro ? Math.max(128, BUDGETS[effort]) : BUDGETS[effort] };
  const level = LEVELS[effort];
  if (pro) return { thinkingLevel: level === 'MINIMAL' || level === 'LOW' ? 'LOW' : 'HIGH' };
  return { thinkingLevel: level };
}

export interface GeminiChatBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  generationConfig: GenerationConfig;
  tools?: { functionDeclarations: { name: string; description?: string; parametersJsonSchema?: Record<string, unknown> }[] }[];
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
}

/**
 * A chat message as Gemini parts: tool calls become `functionCall`, a tool answer a `functionResponse` named after
 * the call it answers (Gemini matches them by name), its JSON object as the response or `{result: text}`.
 */
function toContent(msg: ChatMessage, callNames: Map<string, string>): GeminiContent {
  if (msg.role === 'tool') {
    const text = plainText(msg.content);
    const name = callNames.get(msg.toolCallId ?? '') ?? 'tool';
    return { role: 'user', parts: [{ functionResponse: { name, response: asObject(text) ?? { result: text } } }] };
  }
  // A turn that only called tools has no text to send.
  const text = (msg.toolCalls?.length || msg.reasoning?.length) && plainText(msg.content) === '' ? [] : toParts(msg.content);
  const calls = msg.toolCalls ?? [];
  for (const call of calls) callNames.set(call.id, call.name);
  if (msg.role !== 'assistant') return { role: 'user', parts: text };
  // Gemini 3 signs each step's first function call and wants the signature back within the current turn (400
  // otherwise): the turn goes back with the signatures it came with.
  return { role: 'model', parts: modelParts(text, calls, msg.reasoning ?? [], (call) => asObject(call.arguments) ?? {}) };
}

function generationConfig(req: ChatRequest): GenerationConfig {
  const config: GenerationConfig = { maxOutputTokens: req.maxTokens };
  if (req.temperature !== undefined) config.temperature = req.temperature;
  if (req.topP !== undefined) config.topP = req.topP;
  if (req.topK !== undefined) config.topK = req.topK;
  if (req.seed !== undefined) config.seed = req.seed;
  if (req.presencePenalty !== undefined) config.presencePenalty = req.presencePenalty;
  if (req.frequencyPenalty !== undefined) config.frequencyPenalty = req.frequencyPenalty;
  if (req.stop?.length) config.stopSequences = req.stop;
  if (req.responseFormat?.type === 'json_object' || req.responseFormat?.type === 'json_schema')
    config.responseMimeType = 'application/json';
  if (req.responseFormat?.type === 'json_schema') config.responseJsonSchema = req.responseFormat.schema;
  // A request that asks for reasoning gets its summaries back, to show in each surface's shape.
  const effort = req.reasoningEffort ?? (req.thinking && req.thinking.type !== 'disabled' ? effortOfThinking(req.thinking) : undefined);
  if (effort !== undefined)
    config.thinkingConfig = { ...thinkingConfig(effort, req.upstreamModel), ...(effort !== 'none' ? { includeThoughts: true } : {}) };
  else if (req.thinking?.type === 'disabled') config.thinkingConfig = thinkingConfig('none', req.upstreamModel);
  return config;
}

function toolConfig(req: ChatRequest): GeminiChatBody['toolConfig'] {
  const choice = req.toolChoice;
  if (choice === undefined) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
}

/** Our chat request as a generateContent body: system text goes to `systemInstruction`, assistant turns are `model`. */
export function toGeminiChatBody(req: ChatRequest): GeminiChatBody {
  const system: string[] = [];
  const contents: GeminiContent[] = [];
  const callNames = new Map<string, string>();
  for (const msg of req.messages) {
    if (msg.role === 'system') {
      system.push(plainText(msg.content));
      continue;
    }
    const content = toContent(msg, callNames);
    const last = contents[contents.length - 1];
    // The answers to one turn's parallel calls go back together in one content.
    if (msg.role === 'tool' && last !== undefined && last.parts.every((p) => Object.hasOwn(p, 'functionResponse')))
      last.parts.push(...content.parts);
    else contents.push(content);
  }
  const body: GeminiChatBody = { contents, generationConfig: generationConfig(req) };
  if (system.length > 0) body.systemInstruction = { parts: [{ text: system.join('\n\n') }] };
  if (req.tools?.length) {
    body.tools = [
      {
        functionDeclarations: req.tools.map((t) => ({
          name: t.name,
          ...(t.description !== undefined ? { description: t.description } : {}),
          ...(t.parameters !== undefined ? { parametersJsonSchema: t.parameters } : {}),
        })),
      },
    ];
    const config = toolConfig(req);
    if (config) body.toolConfig = config;
  }
  return body;
}
