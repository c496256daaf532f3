import { DataSource } from 'typeorm';
import { ReceiptContactMissingError } from './errors';

/** YOOKASSA_RECEIPTS=1: every payment and refund carries a 54-FZ receipt with this VAT code (YOOKASSA_VAT_CODE). */
export interface ReceiptSettings {
  vatCode: number;
}

/** Tokens and plans are a service, paid in full when bought (a receipt's `payment_subject` and `payment_mode`). */
export const RECEIPT_PAYMENT_SUBJECT = 'service';
export const RECEIPT_PAYMENT_MODE = 'full_payment';

export interface ReceiptItem {
  /** What was sold, up to 128 characters. */
  description: string;
  quantity: number;
  /** Price of one, in minor units. */
  amountMinor: number;
  currency: string;
  vatCode: number;
  paymentSubject: typeof RECEIPT_PAYMENT_SUBJECT;
  paymentMode: typeof RECEIPT_PAYMENT_MODE;
}

/** A fiscal receipt, provider-neutral: whom it is sent to and one item per article. */
export interface CarrierReceipt {
  customer: { email: string } | { phone: string };
  items: ReceiptItem[];
}

/**
 * The receipt for one article bought (or given back): sent to the account's email, else its phone (digits only, as
 * the register takes it). @throws ReceiptContactMissingError when the account has neither.
 */
export function receiptFor(
  contact: { email: string | null; phone: string | null },
  article: { title: string; amountMinor: number; currency: string },
  settings: ReceiptSettings,
): CarrierReceipt {
  const phone = contact.phone?.replace(/\D/g, '') ?? '';
  const customer = contact.email ? { email: contact.email } : phone.length >= 10 ? { phone } : null;
  if (!customer) throw new ReceiptContactMissingError();
  return {
    customer,
    items: [
      {
        description: article.title.slice(0, 128),
        quantity: 1,
        amountMinor: article.amountMinor,
        currency: article.currency,
        vatCode: settings.vatCode,
        paymentSubject: RECEIPT_PAYMENT_SUBJECT,
        paymentMode: RECEIPT_PAYMENT_MODE,
      },
    ],
  };
}

/** Where an account's receipts go: its email and phone. */
export async function contactOf(ds: DataSource, userId: number): Promise<{ email: string | null; phone: string | null }> {
  const [row] = await ds.query<{ email: string | null; phone: string | null }[]>('SELECT email, phone FROM users WHERE id = $1', [userId]);
  return { email: row?.email ?? null, phone: row?.phone ?? null };
}
