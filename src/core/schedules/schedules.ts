import { DataSource } from 'typeorm';
import { ScheduleEntity, UserEntity } from '../../db/entities';
import type { Logger } from '../../logger';
import type { ApiKeyService } from '../accounts/api-keys';
import { NotFoundError, QuotaExceededError } from '../accounts/errors';
import { assertKeyAllowsModel, KeyRestrictedError, type KeyScope } from '../accounts/key-limits';
import { withAccountLock } from '../accounts/per-account-limit';
import { PlanDirectory } from '../accounts/plans';
import { commandFromRequest, type GenerateRequest } from '../catalog/params';
import { assertCanUseModel } from '../generations/access';
import { Actor, GenerationService } from '../generations/service';
import { readStoredCommand, toStoredCommand } from './scheduled-command';

export const MIN_INTERVAL_MINUTES = 15;
export const MAX_INTERVAL_MINUTES = 7 * 24 * 60;
export const MAX_SCHEDULES_PER_USER = 20;

/** A schedule as its owner sees it (the API renders it with the request as the /generate body that asks for it). */
export interface ScheduleRecord {
  id: number;
  name: string;
  /** The request run each time. */
  request: GenerateRequest;
  intervalMinutes: number;
  enabled: boolean;
  nextRunAt: Date;
  lastRunAt: Date | null;
  lastGenerationId: number | null;
  lastError: string | null;
  createdAt: Date;
  /** The API key it runs as (its budget, models and expiry apply; deleting the key deletes the schedule), or null. */
  apiKeyId: number | null;
}

export function toScheduleRecord(s: ScheduleEntity): ScheduleRecord {
  return {
    id: s.id,
    name: s.name,
    request: readStoredCommand(s.id, s.command),
    intervalMinutes: s.intervalMinutes,
    enabled: s.enabled,
    nextRunAt: s.nextRunAt,
    lastRunAt: s.lastRunAt,
    lastGenerationId: s.lastGenerationId,
    lastError: s.lastError,
    createdAt: s.createdAt,
    apiKeyId: s.apiKeyId,
  };
}

/** Recurring generations: the same generate request run every `interval_minutes`, billed like any other. */
export class ScheduleService {
  constructor(
    private readonly ds: DataSource,
    private readonly plans: PlanDirectory,
    private readonly generations: GenerationService,
    private readonly apiKeys: Pick<ApiKeyService, 'scopeOf'>,
    private readonly log: Logger,
  ) {}

  private get repo() {
    return this.ds.getRepository(ScheduleEntity);
  }

  /**
   * Validates the request as generate would (model, its rules, plan, the key's model list) before storing it. Made
   * with an API key, the schedule runs as that key and is deleted with it; a restricted key makes none.
   * @throws KeyRestrictedError, ModelNotAllowedError, PlanTooLowError, QuotaExceededError
   */
  async create(
    actor: Actor,
    input: { name: string; request: GenerateRequest; intervalMinutes: number; startAt?: Date },
  ): Promise<ScheduleRecord> {
    if (actor.key?.restricted) throw new KeyRestrictedError();
    const { model } = commandFromRequest(input.request);
    assertKeyAllowsModel(actor.key, input.request.model);
    assertCanUseModel(actor.plan, model);
    // The count and the insert hold the account's lock: parallel creations never pass the cap.
    const saved = await withAccountLock(this.ds, actor.user.id, async (em) => {
      const repo = em.getRepository(ScheduleEntity);
      if ((await repo.countBy({ userId: actor.user.id })) >= MAX_SCHEDULES_PER_USER) {
        throw new QuotaExceededError('schedules', MAX_SCHEDULES_PER_USER);
      }
      return repo.save(
        repo.create({
          userId: actor.user.id,
          apiKeyId: actor.key?.id ?? null,
          name: input.name,
          command: toStoredCommand(input.request),
          intervalMinutes: input.intervalMinutes,
          nextRunAt: input.startAt ?? new Date(Date.now() + input.intervalMinutes * 60_000),
        }),
      );
    });
    return toScheduleRecord(saved);
  }

  async list(userId: number): Promise<ScheduleRecord[]> {
    return (await this.repo.find({ where: { userId }, order: { id: 'ASC' } })).map(toScheduleRecord);
  }

  async setEnabled(userId: number, id: number, enabled: boolean): Promise<ScheduleRecord> {
    const s = await this.repo.findOneBy({ id, userId });
    if (!s) throw new NotFoundError('Schedule');
    s.enabled = enabled;
    if (enabled && s.nextRunAt.getTime() < Date.now()) s.nextRunAt = new Date(Date.now() + s.intervalMinutes * 60_000);
    return toScheduleRecord(await this.repo.save(s));
  }

  async delete(userId: number, id: number): Promise<void> {
    const res = await this.repo.delete({ id, userId });
    if (!res.affected) throw new NotFoundError('Schedule');
  }

  /**
   * Starts every due schedule once: the row is claimed and moved to its next slot in one statement (SKIP LOCKED:
   * several instances never run the same slot twice), then the generation runs like a user request.
   */
  async runDue(limit = 50): Promise<number> {
    const claimed = await this.ds.query<{ id: number }[][]>(
      `UPDATE schedules SET next_run_at = GREATEST(next_run_at, now()) + make_interval(mins => interval_minutes), last_run_at = now()
        WHERE id IN (SELECT id FROM schedules WHERE enabled AND next_run_at <= now() ORDER BY next_run_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id`,
      [limit],
    );
    for (const { id } of claimed[0]) {
      // Deleted since the claim (by its owner, or with its key): nothing to run.
      const s = await this.repo.findOneBy({ id });
      if (!s) continue;
      const user = await this.ds.getRepository(UserEntity).findOneBy({ id: s.userId });
      if (!user || user.isBlocked) continue;
      try {
        const key = await this.keyOf(s.userId, s.apiKeyId);
        const actor: Actor = { user, plan: await this.plans.get(user.planSlug), ...(key ? { key } : {}) };
        const { generation } = await this.generations.generate(actor, commandFromRequest(readStoredCommand(s.id, s.command)), {
          source: 'schedule',
          ownOrigins: [],
        });
        await this.repo.update({ id }, { lastGenerationId: generation.id, lastError: null });
      } catch (err) {
        this.log.info({ schedule: id, err: (err as Error).message }, 'scheduled generation did not start');
        await this.repo.update({ id }, { lastError: (err as Error).message.slice(0, 500) });
      }
    }
    return claimed[0].length;
  }

  /** The scope of the key a schedule runs as. @throws Error when that key expired (or went since the claim) */
  private async keyOf(userId: number, keyId: number | null): Promise<KeyScope | undefined> {
    if (keyId === null) return undefined;
    const scope = await this.apiKeys.scopeOf(userId, keyId);
    if (!scope) throw new Error('the API key this schedule runs as has expired');
    return scope;
  }
}
