import crypto from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { SandboxHandler, SandboxRequest, sendJson } from './types';

// A fake of the YooKassa API v3 (https://yookassa.ru/developers/api) for offline checkout: HTTP Basic auth
// (shopId:secretKey), Idempotence-Key on POST, payments (redirect confirmation, capture, save_payment_method,
// payment_method_id), refunds, webhooks (the partner API's way to set the notification URL), and the
// notifications YooKassa POSTs ({type: "notification", event, object}). The confirmation_url opens a page on which
// a tester approves or cancels the payment. State is kept per shop, in memory.

type Status = 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled';

interface Payment {
  id: string;
  status: Status;
  paid: boolean;
  amount: { value: string; currency: string };
  income_amount?: { value: string; currency: string };
  description?: string;
  recipient: { account_id: string; gateway_id: string };
  payment_method?: { type: string; id: string; saved: boolean; title: string; card: Record<string, string> };
  captured_at?: string;
  authorization_details?: { rrn: string; auth_code: string; three_d_secure: { applied: boolean } };
  created_at: string;
  expires_at?: string;
  confirmation?: { type: 'redirect'; confirmation_url: string; return_url?: string };
  test: boolean;
  refunded_amount?: { value: string; currency: string };
  refundable: boolean;
  metadata?: Record<string, string>;
  cancellation_details?: { party: string; reason: string };
}

interface Shop {
  payments: Map<string, Payment>;
  /** Payments asked to save their method, by payment id. */
  saveRequested: Set<string>;
  savedMethods: Map<string, { type: string; title: string; card: Record<string, string> }>;
  idempotence: Map<string, { status: number; body: unknown }>;
  webhooks: { id: string; event: string; url: string }[];
}

const shops = new Map<string, Shop>();
const paymentShop = new Map<string, Shop>();

function shopOf(id: string): Shop {
  let shop = shops.get(id);
  if (!shop) {
    shop = { payments: new Map(), saveRequested: new Set(), savedMethods: new Map(), idempotence: new Map(), webhooks: [] };
    shops.set(id, shop);
  }
  return shop;
}

/** YooKassa ids look like UUIDs with a fixed middle ("2d...-000f-5000-9000-..."). */
function yooId(): string {
  const hex = crypto.randomBytes(16).toString('hex');
  return `${hex.slice(0, 8)}-000f-5000-${hex[8] === '0' ? '8' : '9'}000-${hex.slice(20, 32)}`;
}

/** What an API call answers; `after` runs once the answer is sent (a notification follows the payment's change). */
interface Answer {
  status: number;
  body: unknown;
  after?: () => Promise<void>;
}

function apiError(status: number, code: string, description: string, parameter?: string): Answer {
  return { status, body: { type: 'error', id: yooId(), code, description, ...(parameter ? { parameter } : {}) } };
}

function authenticate(req: SandboxRequest): string | null {
  const m = /^Basic\s+(.+)$/i.exec(String(req.headers.authorization ?? ''));
  if (!m) return null;
  const [shopId, secret] = Buffer.from(m[1], 'base64').toString('utf8').split(':');
  return shopId && secret ? shopId : null;
}

function parseJson(body: Buffer): Record<string, unknown> | null {
  try {
    const v = JSON.parse(body.toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const validAmount = (a: unknown): a is { value: string; currency: string } =>
  typeof a === 'object' &&
  a !== null &&
  typeof (a as { value?: unknown }).value === 'string' &&
  /^\d+(\.\d{1,2})?$/.test((a as { value: string }).value) &&
  Number((a as { value: string }).value) > 0 &&
  typeof (a as { currency?: unknown }).currency === 'string' &&
  /^[A-Z]{3}$/.test((a as { currency: string }).currency);

const fixed = (value: string) => Number(value).toFixed(2);

async function deliver(url: string, body: unknown): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Sends the event to every URL subscribed to it: the first attempt is awaited, failures are retried in the background. */
async function notify(shop: Shop, event: string, payment: Payment): Promise<void> {
  const body = { type: 'notification', event, object: payment };
  await Promise.all(
    shop.webhooks
      .filter((w) => w.event === event)
      .map(async (w) => {
        if (await deliver(w.url, body)) return;
        void (async () => {
          for (const delay of [500, 2000, 8000]) {
            await new Promise((r) => setTimeout(r, delay).unref());
            if (await deliver(w.url, body)) return;
          }
        })();
      }),
  );
}

function succeed(shop: Shop, p: Payment): void {
  const methodId = p.payment_method?.id ?? yooId();
  const saved = shop.saveRequested.has(p.id) || shop.savedMethods.has(methodId);
  const card = { first6: '220220', last4: '4444', expiry_month: '12', expiry_year: '2030', card_type: 'Mir' };
  p.payment_method = { type: 'bank_card', id: methodId, saved, title: 'Bank card *4444', card };
  if (saved) shop.savedMethods.set(methodId, { type: 'bank_card', title: 'Bank card *4444', card });
  p.paid = true;
  p.status = 'succeeded';
  p.authorization_details = {
    rrn: String(crypto.randomInt(10 ** 10, 10 ** 11)),
    auth_code: String(crypto.randomInt(100000, 999999)),
    three_d_secure: { applied: false },
  };
  p.captured_at = new Date().toISOString();
  p.refundable = true;
  p.income_amount = { value: (Number(p.amount.value) * 0.965).toFixed(2), currency: p.amount.currency };
  delete p.expires_at;
}

function createPayment(req: SandboxRequest, shopId: string): Answer {
  const shop = shopOf(shopId);
  const body = parseJson(req.body);
  if (!body) return apiError(400, 'invalid_request', 'Request body is not valid JSON');
  if (!validAmount(body.amount)) return apiError(400, 'invalid_request', 'Invalid amount', 'amount');
  const methodId = typeof body.payment_method_id === 'string' ? body.payment_method_id : undefined;
  const confirmation = body.confirmation as { type?: unknown; return_url?: unknown } | undefined;
  if (methodId && !shop.savedMethods.has(methodId))
    return apiError(400, 'invalid_request', 'Payment method is not saved', 'payment_method_id');
  if (!methodId) {
    if (!confirmation || confirmation.type !== 'redirect')
      return apiError(400, 'invalid_request', 'Confirmation type redirect is required in the sandbox', 'confirmation.type');
    if (typeof confirmation.return_url !== 'string' || !/^https?:\/\//.test(confirmation.return_url)) {
      return apiError(400, 'invalid_request', 'return_url is required for a redirect confirmation', 'confirmation.return_url');
    }
  }
  const id = yooId();
  const amount = { value: fixed(body.amount.value), currency: body.amount.currency };
  const p: Payment = {
    id,
    status: 'pending',
    paid: false,
    amount,
    ...(typeof body.description === 'string' ? { description: body.description.slice(0, 128) } : {}),
    recipient: { account_id: shopId, gateway_id: '100500' },
    created_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + 3600_000).toISOString(),
    test: true,
    refundable: false,
    ...(body.metadata && typeof body.metadata === 'object' ? { metadata: body.metadata as Record<string, string> } : {}),
  };
  shop.payments.set(id, p);
  paymentShop.set(id, shop);
  if (body.save_payment_method === true) shop.saveRequested.add(id);
  if (methodId) {
    p.payment_method = { type: 'bank_card', id: methodId, saved: true, title: 'Bank card *4444', card: {} };
    if (body.capture === false) {
      p.status = 'waiting_for_capture';
      p.paid = true;
    } else succeed(shop, p);
  } else {
    p.confirmation = { type: 'redirect', confirmation_url: `${req.mountUrl}/checkout/${id}`, return_url: String(confirmation?.return_url) };
  }
  return { status: 200, body: p, after: p.status === 'succeeded' ? () => notify(shop, 'payment.succeeded', p) : undefined };
}

function createRefund(req: SandboxRequest, shopId: string): Answer {
  const shop = shopOf(shopId);
  const body = parseJson(req.body);
  if (!body) return apiError(400, 'invalid_request', 'Request body is not valid JSON');
  const p = typeof body.payment_id === 'string' ? shop.payments.get(body.payment_id) : undefined;
  if (!p) return apiError(400, 'invalid_request', 'Payment not found', 'payment_id');
  if (!validAmount(body.amount)) return apiError(400, 'invalid_request', 'Invalid amount', 'amount');
  const already = Number(p.refunded_amount?.value ?? 0);
  if (p.status !== 'succeeded' || already + Number(body.amount.value) > Number(p.amount.value) + 1e-9) {
    return apiError(400, 'invalid_request', 'The payment cannot be refunded for this amount', 'amount');
  }
  p.refunded_amount = { value: (already + Number(body.amount.value)).toFixed(2), currency: p.amount.currency };
  p.refundable = Number(p.refunded_amount.value) < Number(p.amount.value);
  return {
    status: 200,
    body: {
      id: yooId(),
      payment_id: p.id,
      status: 'succeeded',
      amount: { value: fixed(body.amount.value), currency: body.amount.currency },
      created_at: new Date().toISOString(),
    },
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function checkoutPage(res: ServerResponse, p: Payment, mountUrl: string): void {
  const action = (what: string) => `${mountUrl}/checkout/${p.id}/${what}`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>YooKassa sandbox checkout</title></head><body>
<h1>YooKassa sandbox</h1><p>Nothing is charged: this is the built-in test checkout.</p>
<p>Payment <code>${escapeHtml(p.id)}</code>: <strong>${escapeHtml(p.amount.value)} ${escapeHtml(p.amount.currency)}</strong>${p.description ? ` — ${escapeHtml(p.description)}` : ''}</p>
<p>Status: <strong id="status">${p.status}</strong></p>
${
  p.status === 'pending'
    ? `<form method="post" action="${action('approve')}"><button type="submit" id="approve">Pay (test card *4444)</button></form>
<form method="post" action="${action('cancel')}"><button type="submit" id="cancel">Cancel</button></form>`
    : ''
}
</body></html>`;
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

async function confirm(res: ServerResponse, p: Payment, approve: boolean, mountUrl: string): Promise<void> {
  const shop = paymentShop.get(p.id) as Shop;
  if (p.status === 'pending') {
    if (approve) {
      succeed(shop, p);
      await notify(shop, 'payment.succeeded', p);
    } else {
      p.status = 'canceled';
      p.cancellation_details = { party: 'yoo_money', reason: 'expired_on_confirmation' };
      delete p.expires_at;
      await notify(shop, 'payment.canceled', p);
    }
  }
  const back = p.confirmation?.return_url;
  res.writeHead(303, { location: back ?? `${mountUrl}/checkout/${p.id}`, 'content-length': 0 });
  res.end();
}

function createWebhook(req: SandboxRequest, shop: Shop): Answer {
  const body = parseJson(req.body);
  if (!body || typeof body.event !== 'string' || typeof body.url !== 'string')
    return apiError(400, 'invalid_request', 'event and url are required');
  const existing = shop.webhooks.find((w) => w.event === body.event && w.url === body.url);
  const hook = existing ?? { id: `wh-${yooId()}`, event: body.event, url: body.url };
  if (!existing) shop.webhooks.push(hook);
  return { status: 200, body: hook };
}

/** POST: the Idempotence-Key is required; a repeated key answers the stored first answer and changes nothing. */
function post(req: SandboxRequest, shopId: string, path: string): Answer {
  const shop = shopOf(shopId);
  const key = String(req.headers['idempotence-key'] ?? '');
  if (!key) return apiError(400, 'invalid_request', 'Idempotence key is required', 'Idempotence-Key');
  if (key.length > 64) return apiError(400, 'invalid_request', 'Idempotence key is too long', 'Idempotence-Key');
  const stored = shop.idempotence.get(`${path}|${key}`);
  if (stored) return stored;
  const answer =
    path === '/payments'
      ? createPayment(req, shopId)
      : path === '/refunds'
        ? createRefund(req, shopId)
        : path === '/webhooks'
          ? createWebhook(req, shop)
          : apiError(404, 'not_found', 'Unknown endpoint');
  if (answer.status === 200) shop.idempotence.set(`${path}|${key}`, { status: answer.status, body: answer.body });
  return answer;
}

function get(shopId: string, path: string): Answer {
  const shop = shopOf(shopId);
  const one = /^\/payments\/([A-Za-z0-9-]+)$/.exec(path);
  if (one) {
    const p = shop.payments.get(one[1]);
    return p ? { status: 200, body: p } : apiError(404, 'not_found', 'Payment not found or deleted');
  }
  if (path === '/webhooks') return { status: 200, body: { type: 'list', items: shop.webhooks } };
  return apiError(404, 'not_found', 'Unknown endpoint');
}

function api(req: SandboxRequest): Answer {
  if (!req.path.startsWith('/v3/')) return apiError(404, 'not_found', 'Unknown endpoint');
  const shopId = authenticate(req);
  if (!shopId) return apiError(401, 'invalid_credentials', 'Authentication by given credentials failed');
  const path = req.path.slice(3);
  if (req.method === 'POST') return post(req, shopId, path);
  if (req.method === 'GET') return get(shopId, path);
  return apiError(405, 'invalid_request', 'Method not allowed');
}

export const yookassaSandbox: SandboxHandler = async (req, res) => {
  const checkout = /^\/checkout\/([A-Za-z0-9-]+)(?:\/(approve|cancel))?$/.exec(req.path);
  if (checkout) {
    const p = paymentShop.get(checkout[1])?.payments.get(checkout[1]);
    if (!p) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such payment');
      return;
    }
    if (!checkout[2] && req.method === 'GET') return checkoutPage(res, p, req.mountUrl);
    if (checkout[2] && req.method === 'POST') return confirm(res, p, checkout[2] === 'approve', req.mountUrl);
    res.writeHead(405).end();
    return;
  }
  const answer = api(req);
  sendJson(res, answer.status, answer.body);
  await answer.after?.();
};
