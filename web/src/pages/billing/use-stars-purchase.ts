import { useEffect, useRef, useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useApp } from '../../app-context';
import { describeError } from '../../lib/describe-error';
import { openInvoice } from '../../lib/telegram-webapp';

type Article = components['schemas']['Article'];

const CREDIT_POLL_MS = 1000;
const CREDIT_POLL_TRIES = 60;

export interface StarsNote {
  kind: 'success' | 'info' | 'error';
  text: string;
}

/**
 * Inside Telegram a purchase is a Stars invoice link opened in Telegram's payment sheet; the bot hears the payment
 * and credits it, so after "paid" the order is watched until it is fulfilled, then `onCredited` refreshes the page.
 */
export function useStarsPurchase(onCredited: () => Promise<void>) {
  const { t, telegram } = useApp();
  const [busy, setBusy] = useState<string | null>(null);
  const [note, setNote] = useState<StarsNote | null>(null);
  // Set again on every mount: React's strict mode unmounts and mounts once more in development.
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  /** Watches the order until the bot has credited it (or it ended otherwise), then refreshes the page. */
  const waitForCredit = async (orderId: number) => {
    for (let tries = 0; tries < CREDIT_POLL_TRIES && mounted.current; tries++) {
      await new Promise((resolve) => setTimeout(resolve, CREDIT_POLL_MS));
      const order = unwrap(await api.GET('/api/v2/payments/orders/{id}', { params: { path: { id: orderId } } }));
      if (order.status === 'pending' || order.status === 'paid') continue;
      await onCredited();
      setNote(
        order.status === 'fulfilled'
          ? { kind: 'success', text: t('billing.starsPaid') }
          : { kind: 'error', text: t('billing.starsFailed') },
      );
      return;
    }
    await onCredited();
  };

  const buy = async (article: Article) => {
    if (!telegram) return;
    setNote(null);
    setBusy(article.id);
    try {
      const started = unwrap(await api.POST('/api/v2/payments/stars/invoice-link', { body: { article_id: article.id } }));
      const status = await openInvoice(telegram, started.invoice_link);
      if (status === 'cancelled') setNote({ kind: 'info', text: t('billing.starsCancelled') });
      else if (status === 'failed') setNote({ kind: 'error', text: t('billing.starsFailed') });
      else {
        setNote({ kind: 'info', text: t('billing.starsConfirming') });
        await waitForCredit(started.order.id);
      }
    } catch (err) {
      setNote({ kind: 'error', text: describeError(err, t) });
    } finally {
      setBusy(null);
    }
  };

  return { busy, note, buy };
}
