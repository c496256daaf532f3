import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { GenerationEntity } from '../../../db/entities';
import type { GenerationRecord } from '../../records';

/** Where a messenger result goes (`generations.delivery`), so any process can deliver it later. */
export const deliveryTargetSchema = z.object({
  chatId: z.number().int(),
  /** The progress message, edited while pending and removed once the result is there. */
  messageId: z.number().int().optional(),
  locale: z.string().optional(),
  /** The user turned notifications off: results arrive without a sound. */
  silent: z.boolean().optional(),
  /** Speech goes out as a voice message (the bot's voice answers) rather than as a track. */
  voice: z.boolean().optional(),
  /** The message the result answers (a voice answer replies to its text answer). */
  replyTo: z.number().int().optional(),
  /** The topic the request came from (a forum topic, or a topic of a private chat): the result goes there. */
  threadId: z.number().int().optional(),
  /** The messenger user who asked: in a group, the only one who may press the result's buttons. */
  askerId: z.number().int().optional(),
  /** How many of the user's photos the request worked on (a result made from one cannot simply be made again). */
  photos: z.number().int().optional(),
  deliveredAt: z.string().optional(),
  attempts: z.number().int().optional(),
});
export type DeliveryTarget = z.infer<typeof deliveryTargetSchema>;

/** The delivery target of a messenger generation, or undefined (not the bot's, or not readable). */
export function deliveryTargetOf(gen: Pick<GenerationRecord, 'source' | 'delivery'>): DeliveryTarget | undefined {
  if (gen.source !== 'bot' || !gen.delivery) return undefined;
  const parsed = deliveryTargetSchema.safeParse(gen.delivery);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The outbox of messenger results on `generations.delivery`: a finished result is claimed once (whichever process
 * claims it sends it), a failed send is put back with one more attempt, and the sweep finds what nobody delivered.
 */
export class DeliveryOutbox {
  constructor(
    private readonly ds: DataSource,
    readonly maxAttempts = 5,
  ) {}

  /** True for exactly one caller per finished generation (until `retryLater`). */
  async claim(id: number): Promise<boolean> {
    const rows = await this.ds.query<{ id: number }[]>(
      `WITH c AS (
         UPDATE generations SET delivery = delivery || jsonb_build_object('deliveredAt', now())
          WHERE id = $1 AND status <> 'pending' AND delivery IS NOT NULL AND (delivery->>'deliveredAt') IS NULL
          RETURNING id
       ) SELECT id FROM c`,
      [id],
    );
    return rows.length > 0;
  }

  /** Releases a claim after a failed send and counts the attempt. */
  async retryLater(id: number): Promise<void> {
    await this.ds.query(
      `UPDATE generations SET delivery = (delivery - 'deliveredAt') || jsonb_build_object('attempts', COALESCE((delivery->>'attempts')::int, 0) + 1)
        WHERE id = $1`,
      [id],
    );
  }

  /** Pending messenger generations of the last day that have a progress message to refresh. */
  pendingWithProgress(limit = 200): Promise<GenerationRecord[]> {
    return this.ds
      .getRepository(GenerationEntity)
      .createQueryBuilder('g')
      .where(`g.status = 'pending' AND g.source = 'bot' AND g.delivery IS NOT NULL`)
      .andWhere(`(g.delivery->>'messageId') IS NOT NULL AND g.created_at > now() - interval '1 day'`)
      .orderBy('g.id', 'ASC')
      .limit(limit)
      .getMany();
  }

  /** Finished messenger generations of the last day that nobody delivered (and that have attempts left). */
  undelivered(limit = 50): Promise<GenerationRecord[]> {
    return this.ds
      .getRepository(GenerationEntity)
      .createQueryBuilder('g')
      .where(`g.status <> 'pending' AND g.source = 'bot' AND g.delivery IS NOT NULL`)
      .andWhere(`(g.delivery->>'deliveredAt') IS NULL AND COALESCE((g.delivery->>'attempts')::int, 0) < :max`, { max: this.maxAttempts })
      .andWhere(`g.completed_at > now() - interval '1 day'`)
      .orderBy('g.id', 'ASC')
      .limit(limit)
      .getMany();
  }
}
