import { z } from 'zod';

// YooKassa API v3 objects as documented (https://yookassa.ru/developers/api): only the fields we read are
// required; everything else passes through.

export const amountSchema = z.object({ value: z.string().regex(/^\d+(\.\d{1,2})?$/), currency: z.string().length(3) });

export const paymentSchema = z.looseObject({
  id: z.string().min(1),
  status: z.enum(['pending', 'waiting_for_capture', 'succeeded', 'canceled']),
  paid: z.boolean(),
  amount: amountSchema,
  confirmation: z.looseObject({ type: z.string(), confirmation_url: z.string().optional() }).optional(),
  created_at: z.string(),
  description: z.string().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  payment_method: z.looseObject({ type: z.string(), id: z.string(), saved: z.boolean(), title: z.string().optional() }).optional(),
  refundable: z.boolean(),
  test: z.boolean(),
});

export type YooKassaPayment = z.infer<typeof paymentSchema>;

export const errorSchema = z.looseObject({
  type: z.literal('error'),
  id: z.string().optional(),
  code: z.string(),
  description: z.string().optional(),
  parameter: z.string().optional(),
});

/** What YooKassa POSTs to the notification URL: `{type: "notification", event, object}`. */
export const notificationSchema = z.looseObject({
  type: z.literal('notification'),
  event: z.string().min(1).max(100),
  object: z.looseObject({ id: z.string().min(1).max(100) }),
});

export const refundSchema = z.looseObject({
  id: z.string(),
  payment_id: z.string(),
  status: z.enum(['pending', 'succeeded', 'canceled']),
  amount: amountSchema,
  created_at: z.string(),
  cancellation_details: z.looseObject({ party: z.string(), reason: z.string() }).optional(),
});

/** Kopecks to the API's decimal string ("590.00"). */
export function toApiAmount(minor: number): string {
  return (minor / 100).toFixed(2);
}

/** The API's decimal string to kopecks. */
export function fromApiAmount(value: string): number {
  const [whole, frac = ''] = value.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0').slice(0, 2));
}
