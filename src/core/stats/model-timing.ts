import { DataSource } from 'typeorm';
import { requireModel } from '../catalog';

/** The rolling window: the most recent completed generations of the model within the last week. */
export const AVG_TIME_WINDOW_DAYS = 7;
export const AVG_TIME_MAX_SAMPLES = 100;

export interface AvgTimeView {
  model_slug: string;
  avg_time_ms: number;
  samples: number;
}

/**
 * Average processing time of a model over its recent completed generations (all accounts). With no samples
 * yet, the catalog's typical time is the answer, with `samples: 0`. @throws UnknownModelError
 */
export async function modelAverageTime(ds: DataSource, slug: string): Promise<AvgTimeView> {
  const model = requireModel(slug);
  const rows: { avg: number | null; n: number }[] = await ds.query(
    `SELECT avg(processing_ms)::float8 AS avg, count(*)::int AS n FROM (
       SELECT processing_ms FROM generations
        WHERE model_slug = $1 AND status = 'completed' AND processing_ms IS NOT NULL
          AND completed_at >= now() - make_interval(days => $2)
        ORDER BY completed_at DESC
        LIMIT $3
     ) recent`,
    [model.slug, AVG_TIME_WINDOW_DAYS, AVG_TIME_MAX_SAMPLES],
  );
  const { avg, n } = rows[0];
  if (!n || avg === null) return { model_slug: model.slug, avg_time_ms: model.etaSeconds * 1000, samples: 0 };
  return { model_slug: model.slug, avg_time_ms: Math.round(avg), samples: n };
}
