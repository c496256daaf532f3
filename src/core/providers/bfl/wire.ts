import { z } from 'zod';

/** POST /v1/<model> answers `AsyncResponse`. */
export const submitResponse = z.object({
  id: z.string().min(1),
  polling_url: z.string().optional(),
});

/** GET polling_url (or /v1/get_result?id=) answers `ResultResponse`. */
export const resultResponse = z.object({
  id: z.string().optional(),
  status: z.string(),
  result: z
    .object({
      sample: z.string().optional(),
      seed: z.number().optional(),
    })
    .passthrough()
    .nullish(),
  progress: z.number().nullish(),
  details: z.unknown().optional(),
  error: z.unknown().optional(),
});

export type ResultResponse = z.infer<typeof resultResponse>;
