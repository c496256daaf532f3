import { z } from 'zod';
import { isRowId, MAX_ROW_ID } from '../../core/row-ids';

const NOT_AN_ID = `must be a positive integer of at most ${MAX_ROW_ID}`;

/**
 * A row id in the path (`/keys/12`): decimal digits only (no `0x10`, `1e1` or spaces, which a plain number coercion
 * would take), within PostgreSQL's `integer`, so an out-of-range id is a 400 here instead of a database error.
 */
export const idParam = z.preprocess(
  (raw) => (typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : raw),
  z.number({ error: NOT_AN_ID }).int(NOT_AN_ID).min(1, NOT_AN_ID).max(MAX_ROW_ID, NOT_AN_ID),
);

export const idParams = z.object({ id: idParam });

/** A generation id: `42`, or `gen_42` as the music example of the spec writes it. */
export const generationIdParams = z.object({
  id: z
    .string()
    .regex(/^(gen_)?\d{1,10}$/, `${NOT_AN_ID}, optionally written gen_<id>`)
    .transform((raw, ctx) => {
      const id = parseGenerationId(raw);
      if (id === null) ctx.addIssue({ code: 'custom', message: `${NOT_AN_ID}, optionally written gen_<id>` });
      return id ?? 0;
    }),
});

/** Accepts `42` and the music example's `gen_42`. */
export function parseGenerationId(raw: string): number | null {
  const m = /^(?:gen_)?(\d{1,10})$/.exec(raw);
  if (!m) return null;
  const id = Number(m[1]);
  return isRowId(id) ? id : null;
}
