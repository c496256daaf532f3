import { DataSource } from 'typeorm';
import { GenerationEntity } from '../../../db/entities';
import { entityFromRow } from '../../../db/hydrate';
import type { Logger } from '../../../logger';
import type { GenerationRow } from '../settlement/lifecycle';
import { GenerationNotifier } from '../ports';

/**
 * Announces a generation that has just finished (call it only from the code that made the transition), given by
 * its id or by the row the transition returned (then nothing is read again). Never throws: a listener's failure
 * must not undo or repeat the transition.
 */
export async function announceFinished(
  ds: DataSource,
  notifier: GenerationNotifier | undefined,
  generation: number | GenerationRow,
  log: Logger,
): Promise<void> {
  if (!notifier) return;
  const generationId = typeof generation === 'number' ? generation : generation.id;
  try {
    const gen =
      typeof generation === 'number'
        ? await ds.getRepository(GenerationEntity).findOneBy({ id: generation })
        : entityFromRow(ds, GenerationEntity, generation);
    if (gen) await notifier.generationFinished(gen);
  } catch (err) {
    log.warn({ err, generationId }, 'finished generation not announced');
  }
}
