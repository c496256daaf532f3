import crypto from 'node:crypto';

// Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the
// bytes the secret `whsec_<base64>` encodes.

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(32).toString('base64');
}

/** A message id (the `webhook-id` header): unique per event, kept across retries. */
export function newMessageId(): string {
  return `msg_${crypto.randomBytes(16).toString('base64url')}`;
}

function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

export function signWebhook(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const mac = crypto.createHmac('sha256', secretKey(secret)).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three headers of one attempt (a fresh timestamp each time; the id stays). */
export function webhookHeaders(secret: string, messageId: string, body: string, now = new Date()): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, messageId, timestamp, body),
  };
}
