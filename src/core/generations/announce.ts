import { DataSource } from 'typeorm';
import { GenerationEntity } from '../../db/entities';
import type { Logger } from '../../logger';
import { GenerationNotifier } from './ports';

/**
 * Announces a generation that has just finished (call it only from the code that made the transition). Never
 * throws: a listener's failure must not undo or repeat the transition.
 */
export async function announceFinished(
  ds: DataSource,
  notifier: GenerationNotifier | undefined,
  generationId: number,
  log: Logger,
): Promise<void> {
  if (!notifier) return;
  try {
    const gen = await ds.getRepository(GenerationEntity).findOneBy({ id: generationId });
    if (gen) await notifier.generationFinished(gen);
  } catch (err) {
    log.warn({ err, generationId }, 'finished generation not announced');
  }
}
