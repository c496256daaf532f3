import { ReasoningEnvelope, reasoningEnvelope } from '../../src/core/generations/chat/reasoning-envelope';
import type { ChatReasoning } from '../../src/core/providers/types';

// The envelope that carries other vendors' reasoning state through the surfaces: it opens only under the key that
// sealed it (any instance sharing the secret), unaltered, and gives back exactly what went in.

const reasoning: ChatReasoning[] = [
  { type: 'text', provider: 'deepseek', text: 'First, 2 + 2 is 4.' },
  { type: 'encrypted', provider: 'google', data: 'c2lnbmF0dXJl', callId: 'call_1' },
];

test('sealed reasoning opens to the same reasoning, under another instance with the same secret', () => {
  const sealed = new ReasoningEnvelope('a secret that is long enough for the service 0123').seal(reasoning);
  expect(sealed).toMatch(/^nbr1\.[A-Za-z0-9_-]+$/);
  expect(sealed).not.toContain('2 + 2');
  expect(new ReasoningEnvelope('a secret that is long enough for the service 0123').open(sealed)).toEqual(reasoning);
  expect(reasoningEnvelope('x'.repeat(40))).toBe(reasoningEnvelope('x'.repeat(40)));
});

test('an altered envelope, another key, or a foreign string opens to nothing', () => {
  const envelope = new ReasoningEnvelope('a secret that is long enough for the service 0123');
  const sealed = envelope.seal(reasoning);
  const body = Buffer.from(sealed.slice(5), 'base64url');
  body[20] ^= 1;
  expect(envelope.open(`nbr1.${body.toString('base64url')}`)).toBeUndefined();
  expect(new ReasoningEnvelope('another secret that is long enough 0123456789').open(sealed)).toBeUndefined();
  expect(envelope.open('EqQBCkYIBxgCKkDsignatureFromAnthropic')).toBeUndefined();
  expect(envelope.open('nbr1.')).toBeUndefined();
});
