import { z } from 'zod';

/** A positive 32-bit integer id in the path (`/keys/12`). */
export const idParam = z.coerce.number().int().min(1).max(2_147_483_647);

export const idParams = z.object({ id: idParam });
