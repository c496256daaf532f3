import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ChatReasoning, ProviderName } from '../../providers/types';

// Reasoning state a surface has no field of its own for (a Gemini thought signature in a Responses reasoning item,
// DeepSeek's reasoning in a Messages thinking block's signature...) travels to the client sealed, and comes back to
// the vendor that produced it exactly as it was: AES-256-GCM under a key derived from the service's secret, so a
// client can neither read nor forge it, and any instance of the service (sharing the secret) can open it.

const PREFIX = 'nbr1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const AAD = Buffer.from('nebula reasoning envelope v1');

// What is sealed was written by this service, so its vendor name is one it knows.
const provider = z.string().transform((name) => name as ProviderName);
const sealed = z.array(
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('text'), provider, text: z.string(), signature: z.string().optional() }),
    z.object({ type: z.literal('redacted'), provider, data: z.string() }),
    z.object({
      type: z.literal('encrypted'),
      provider,
      data: z.string(),
      id: z.string().optional(),
      callId: z.string().optional(),
      text: z.string().optional(),
    }),
  ]),
);

export class ReasoningEnvelope {
  private readonly key: Buffer;

  /** `secret`: REASONING_KEY, or JWT_SECRET; the envelope key is derived from it (HKDF-SHA256). */
  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'nebula', 'reasoning-envelope-v1', 32));
  }

  /** The reasoning as one opaque string. */
  seal(reasoning: readonly ChatReasoning[]): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(AAD);
    const body = Buffer.concat([cipher.update(JSON.stringify(reasoning), 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The reasoning an envelope holds; undefined when the string is not one this service sealed (or was altered). */
  open(text: string): ChatReasoning[] | undefined {
    if (!text.startsWith(PREFIX)) return undefined;
    const raw = Buffer.from(text.slice(PREFIX.length), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(AAD);
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
      const parsed = sealed.safeParse(JSON.parse(plain.toString('utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }
}

const envelopes = new Map<string, ReasoningEnvelope>();

/** One envelope per secret (the key derivation runs once). */
export function reasoningEnvelope(secret: string): ReasoningEnvelope {
  let envelope = envelopes.get(secret);
  if (!envelope) envelopes.set(secret, (envelope = new ReasoningEnvelope(secret)));
  return envelope;
}
