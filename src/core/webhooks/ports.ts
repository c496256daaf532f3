/** Durable trigger for delivery attempts (pg-boss in src/jobs). The database row stays the source of truth. */
export interface WebhookQueue {
  /** Runs an attempt of delivery `deliveryId` after `delayMs`. */
  enqueue(deliveryId: number, delayMs?: number): Promise<void>;
}

export interface FailingEndpoint {
  endpointId: number;
  userId: number;
  url: string;
  event: string;
  messageId: string;
  attempts: number;
  lastError: string | null;
  /** The receiver answered 410 Gone: the endpoint is disabled, not merely failing. */
  disabled: boolean;
}

/**
 * Told when an endpoint turns `failing` (a delivery exhausted its retries) or `disabled` (410 Gone); the bot forwards
 * it to the admins.
 */
export type FailingEndpointListener = (endpoint: FailingEndpoint) => void;
