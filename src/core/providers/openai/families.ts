// OpenAI's reasoning model families as their model pages describe them (sources: test/fixtures/SOURCES.md): the
// `reasoning_effort` values each accepts, its output ceiling, and how it takes function calling on Chat Completions.

export interface OpenAiFamily {
  efforts: readonly string[];
  maxOutput: number;
  /**
   * `any`: tools with any effort; `without-reasoning`: tools only with `reasoning_effort: "none"`;
   * `responses-only`: no function calling on Chat Completions (the vendor asks for the Responses API).
   */
  tools: 'any' | 'without-reasoning' | 'responses-only';
}

const UP_TO_MAX = ['none', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

// First match wins, so the more specific patterns come first.
const FAMILIES: Array<[pattern: RegExp, family: OpenAiFamily]> = [
  [/^gpt-6\.2-/, { efforts: ['low', 'medium', 'high', 'xhigh', 'max'], maxOutput: 128000, tools: 'any' }],
  [/^gpt-6\.1-sol/, { efforts: ['low', 'medium', 'high', 'xhigh', 'max'], maxOutput: 128000, tools: 'responses-only' }],
  [/^gpt-6\.1-/, { efforts: UP_TO_MAX, maxOutput: 128000, tools: 'responses-only' }],
  [/^gpt-6-/, { efforts: UP_TO_MAX, maxOutput: 128000, tools: 'without-reasoning' }],
  [/^gpt-5\.6-/, { efforts: UP_TO_MAX, maxOutput: 128000, tools: 'any' }],
  [/^gpt-5/, { efforts: ['minimal', 'low', 'medium', 'high'], maxOutput: 128000, tools: 'any' }],
  [/^o\d/, { efforts: ['low', 'medium', 'high'], maxOutput: 100000, tools: 'any' }],
];

/** The reasoning family of an OpenAI model id; undefined for the older chat models. */
export function openAiFamily(model: string): OpenAiFamily | undefined {
  return FAMILIES.find(([pattern]) => pattern.test(model))?.[1];
}
