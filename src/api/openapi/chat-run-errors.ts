import type { z } from 'zod';
import type { ResponseSpec } from './registry';

/**
 * The failures of the one chat path (v1/chat-run.ts; /api/v2/generate/stream runs the same core call), whichever
 * surface renders them, in that surface's error body.
 */
export function chatRunErrors(errorSchema: z.ZodType): Record<number, ResponseSpec> {
  return {
    402: { description: 'The balance or the API key’s budget cannot cover the reservation', schema: errorSchema },
    404: { description: 'No model with this id', schema: errorSchema },
    410: { description: 'model_retired: the model is retired and has no replacement', schema: errorSchema },
    422: { description: 'An image could not be fetched or read', schema: errorSchema },
    502: { description: 'The provider failed', schema: errorSchema },
    503: { description: 'The provider is overloaded or unavailable', schema: errorSchema },
    504: { description: 'The provider did not answer in time', schema: errorSchema },
  };
}
