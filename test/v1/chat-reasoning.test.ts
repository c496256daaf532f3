import { reasoningContent, reasoningDetails, replayedReasoning } from '../../src/api/v1/chat-reasoning';
import { ReasoningEnvelope } from '../../src/core/generations/chat/reasoning-envelope';
import type { ChatReasoning } from '../../src/core/providers/types';

// Reasoning on /v1/chat/completions in the gateways' forms: reasoning_content for the text, OpenRouter's
// reasoning_details for the state; a replayed message may carry those or LiteLLM's thinking_blocks.

const envelope = new ReasoningEnvelope('a secret that is long enough for the service 0123');

const claude: ChatReasoning[] = [
  { type: 'redacted', provider: 'anthropic', data: 'RkFLRQ==' },
  { type: 'text', provider: 'anthropic', text: 'Think first.', signature: 'c2ln' },
];
const gemini: ChatReasoning[] = [{ type: 'encrypted', provider: 'google', data: 'Z3NpZw==', callId: 'call_1' }];
const openai: ChatReasoning[] = [{ type: 'encrypted', provider: 'openai', data: 'gAAAA', id: 'rs_1', text: 'Summary.' }];

test.each([
  ['Claude', claude],
  ['Gemini', gemini],
  ['OpenAI', openai],
])('%s reasoning goes out as reasoning_details and comes back as it was', (_vendor, reasoning) => {
  const details = reasoning.flatMap((r, i) => reasoningDetails(r, i));
  expect(replayedReasoning({ reasoning_details: details as never }, 'deepseek', envelope)).toEqual(reasoning);
});

test('the readable text is reasoning_content; the formats name the vendors as OpenRouter does', () => {
  expect(reasoningContent(claude)).toBe('Think first.');
  expect(reasoningContent(gemini)).toBeUndefined();
  expect(reasoningDetails(claude[1], 1)).toEqual([
    { type: 'reasoning.text', text: 'Think first.', signature: 'c2ln', format: 'anthropic-claude-v1', index: 1 },
  ]);
  expect(reasoningDetails(gemini[0], 0)).toEqual([
    { type: 'reasoning.encrypted', data: 'Z3NpZw==', id: 'call_1', format: 'google-gemini-v1', index: 0 },
  ]);
});

test('LiteLLM thinking_blocks, bare reasoning_content, and sealed details are read too', () => {
  expect(
    replayedReasoning(
      {
        thinking_blocks: [
          { type: 'thinking', thinking: 'T', signature: 's' },
          { type: 'redacted_thinking', data: 'd' },
        ],
      },
      'anthropic',
      envelope,
    ),
  ).toEqual([
    { type: 'text', provider: 'anthropic', text: 'T', signature: 's' },
    { type: 'redacted', provider: 'anthropic', data: 'd' },
  ]);
  // Without a format, reasoning text belongs to the requested model's vendor (DeepSeek wants its own back).
  expect(replayedReasoning({ reasoning_content: 'Step by step.' }, 'deepseek', envelope)).toEqual([
    { type: 'text', provider: 'deepseek', text: 'Step by step.' },
  ]);
  const sealed = envelope.seal(gemini);
  expect(
    replayedReasoning({ reasoning_details: [{ type: 'reasoning.encrypted', data: sealed, format: 'unknown' }] }, 'openai', envelope),
  ).toEqual(gemini);
});
