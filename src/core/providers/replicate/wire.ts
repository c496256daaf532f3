import { z } from 'zod';

/** The prediction object that create and get both answer. */
export const prediction = z
  .object({
    id: z.string().min(1),
    status: z.string(),
    output: z.unknown().optional(),
    error: z.unknown().optional(),
    metrics: z.object({ predict_time: z.number().optional() }).passthrough().nullish(),
  })
  .passthrough();

export type Prediction = z.infer<typeof prediction>;
