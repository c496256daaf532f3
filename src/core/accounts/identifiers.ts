import { z } from 'zod';

/** E.164; Russian numbers are `+7` followed by exactly 10 digits. */
export const phoneSchema = z
  .string()
  .trim()
  .regex(/^\+[1-9]\d{7,14}$/, 'must be in E.164 format, e.g. +79991234567')
  .refine((p) => !p.startsWith('+7') || /^\+7\d{10}$/.test(p), 'a +7 number must have exactly 10 digits after +7');

export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email('must be a valid email address'))
  .transform((e) => e.toLowerCase());
