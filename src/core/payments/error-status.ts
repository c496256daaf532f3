/**
 * HTTP statuses of the payment errors' codes, for the API door's error table (kept beside the errors so a new
 * payment error is mapped in one place).
 */
export const PAYMENT_ERROR_STATUS: Readonly<Record<string, number>> = Object.freeze({
  unknown_article: 400,
  order_not_found: 404,
  unknown_charge: 404,
  order_not_refundable: 409,
  invalid_notification: 400,
  unknown_payment: 400,
  payments_unavailable: 503,
  payment_provider_unavailable: 503,
  payment_provider_rejected: 502,
});
