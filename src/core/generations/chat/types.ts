import type { RateDecision } from '../../limits/rate-limiter';
import type { TextModel } from '../../catalog/types';
import type { ChatResult, ChatStreamEvent, ChatUsage } from '../../providers/types';
import type { ChatInputMessage, ChatOptions } from './request';

// What the doors hand the chat service and get back from it.

export interface ChatInput extends ChatOptions {
  model: string;
  /** Models to try in order when `model` cannot serve before its first byte (outage, overload, retirement). */
  fallbacks?: string[];
  messages: ChatInputMessage[];
  maxTokens?: number | null;
  temperature?: number | null;
}

export interface ChatBilling {
  generationId: number;
  /** Tokens charged after reconciliation with the real usage. */
  tokensSpent: number;
  /** Balance after the charge; unknown while the charge is deferred. */
  balance?: number;
  /** The database was unavailable: the outcome waits in the billing outbox and is applied when it returns. */
  deferred?: boolean;
}

/** The retired model a request named, when its replacement answered (the doors say so: header, warnings). */
export interface ModelReplaced {
  from: string;
  shutdownAt: string | null;
}

export interface ChatOutcome extends ChatBilling {
  /** The model that answered: the requested one, or its replacement when that one is retired. */
  model: TextModel;
  replaced?: ModelReplaced;
  result: ChatResult;
  rate: RateDecision;
  /** Request parameters the model does not take, dropped before the call (for `X-Ignored-Parameters`). */
  ignored: string[];
}

export interface ChatStream {
  model: TextModel;
  replaced?: ModelReplaced;
  generationId: number;
  rate: RateDecision;
  /** The prompt's size as estimated before the call (the vendor's count comes with the `usage` event). */
  promptTokens: number;
  /** Request parameters the model does not take, dropped before the call (for `X-Ignored-Parameters`). */
  ignored: string[];
  /** Deltas as the vendor sends them. Stopping early (or aborting the signal) aborts the upstream request. */
  events: AsyncIterable<ChatStreamEvent>;
  /** Resolves once the stream ended and was billed: on what was delivered when it was cut off. */
  billed: Promise<StreamBilling>;
}

/** How a stream was billed; `usage` is what it was billed on (the vendor's count, or the delivered text measured). */
export type StreamBilling = ChatBilling & { failed: boolean; usage?: ChatUsage };
