// What the doors read of a signed-in user and of a generation: plain views, so a door never sees an entity (and
// never reaches the database through one). The core's entities satisfy them structurally; the core maps nothing
// by hand, and a field the doors need is added here on purpose.
import type { GenerationSource, GenerationStatus } from '../db/entities';

export interface UserRecord {
  readonly id: number;
  readonly name: string;
  readonly email: string | null;
  readonly emailVerifiedAt: Date | null;
  readonly telegramId: string | null;
  readonly messengerUsername: string | null;
  readonly planSlug: string;
  readonly planExpiresAt: Date | null;
  readonly nextRefillAt: Date;
  readonly isBlocked: boolean;
  /** Telegram said this user blocked the bot (a broadcast found it); cleared when they write to it again. */
  readonly botBlockedAt?: Date | null;
  /** May use the operator's console. */
  readonly isAdmin: boolean;
  readonly createdAt: Date;
}

export interface GenerationRecord {
  readonly id: number;
  readonly userId: number;
  readonly modelSlug: string;
  readonly prompt: string | null;
  readonly status: GenerationStatus;
  readonly source: GenerationSource;
  readonly resultKey: string | null;
  /** The origin the request came in through, for the result's link. */
  readonly linkOrigin: string | null;
  readonly resultText: string | null;
  /** The result's own details (an image's width and height, a transcript's segments, the vendor's warnings). */
  readonly resultMetadata: Readonly<Record<string, unknown>> | null;
  readonly error: string | null;
  readonly errorKind: string | null;
  readonly category: string;
  /** The normalised options it ran with (core/catalog NormalizedParams, plus what the worker keeps). */
  readonly params: Readonly<Record<string, unknown>>;
  /** Set once the vendor took the job (a pending generation is then in progress). */
  readonly upstreamJobId: string | null;
  readonly etaSeconds: number | null;
  readonly completedAt: Date | null;
  /** When retention deletes the result file (null: never). */
  readonly expiresAt: Date | null;
  /** When the result file was deleted (retention, or its owner). */
  readonly resultDeletedAt: Date | null;
  readonly tokensSpent: number;
  readonly processingMs: number | null;
  /** The seed the vendor reported, when it did. */
  readonly seed: number | null;
  /** When its owner deleted it: the result, text and prompt are gone. */
  readonly userDeletedAt: Date | null;
  /** The API key that asked for it, if one did. */
  readonly apiKeyId: number | null;
  /** Seconds of music or video, as generated. */
  readonly durationSeconds: number | null;
  readonly sandbox: boolean;
  /** Where a bot result goes (core/generations/delivery/delivery-outbox.ts reads it). */
  readonly delivery: Readonly<Record<string, unknown>> | null;
  readonly createdAt: Date;
}
