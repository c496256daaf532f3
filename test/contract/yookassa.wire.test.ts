import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { OrderRecord } from '../../src/core/payments/orders';
import { YooKassaGateway } from '../../src/core/payments/yookassa/client';
import { errorSchema, fromApiAmount, notificationSchema, paymentSchema, refundSchema } from '../../src/core/payments/yookassa/wire';
import { SandboxServer, startSandbox } from '../../src/sandbox/server';
import { createYooKassaSandbox, yookassaSandbox } from '../../src/sandbox/yookassa';

// The YooKassa fake and our adapter against the documented wire format (test/fixtures/yookassa/SOURCES.md).

const fixture = (name: string) =>
  JSON.parse(fs.readFileSync(path.resolve(__dirname, '../fixtures/yookassa', `${name}.json`), 'utf8')) as Record<string, unknown>;
const OPTIONAL = new Set(['description', 'expires_at', 'metadata', 'card', 'issuer_country', 'issuer_name', 'parameter']);

/** Every documented field (but the optional ones) is in `actual`, with the same JSON type, recursively. */
function expectDocumentedShape(actual: unknown, documented: unknown, at = '$'): void {
  if (documented === null || typeof documented !== 'object' || Array.isArray(documented)) {
    expect({ at, type: typeof actual }).toEqual({ at, type: typeof documented });
    return;
  }
  expect({ at, object: typeof actual === 'object' && actual !== null }).toEqual({ at, object: true });
  for (const [key, value] of Object.entries(documented)) {
    const a = (actual as Record<string, unknown>)[key];
    if (a === undefined && OPTIONAL.has(key)) continue;
    expect({ at: `${at}.${key}`, present: a !== undefined }).toEqual({ at: `${at}.${key}`, present: true });
    expectDocumentedShape(a, value, `${at}.${key}`);
  }
}

let sandbox: SandboxServer;
const received: unknown[] = [];
let hookServer: http.Server;
let hookUrl = '';
const SHOP = 'contract-shop';
const auth = `Basic ${Buffer.from(`${SHOP}:test_secret`).toString('base64')}`;
const api = () => `${sandbox.mountUrl('yookassa')}/v3`;

async function call(
  method: string,
  p: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${api()}${p}`, {
    method,
    headers: { Authorization: auth, 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  sandbox = await startSandbox({ yookassa: yookassaSandbox });
  hookServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/notify`;
});
afterAll(async () => {
  await sandbox.close();
  await new Promise((r) => hookServer.close(r));
});

test('our adapter reads the documented objects', () => {
  const created = paymentSchema.parse(fixture('payment-created'));
  expect(created.confirmation?.confirmation_url).toMatch(/^https:\/\//);
  expect(fromApiAmount(created.amount.value)).toBe(10000);
  const note = notificationSchema.parse(fixture('notification-succeeded'));
  expect(paymentSchema.parse(note.object).payment_method).toMatchObject({ id: '22d6d597-000f-5000-9000-145f6df21d6f', saved: false });
  expect(paymentSchema.parse(notificationSchema.parse(fixture('notification-canceled')).object).status).toBe('canceled');
  expect(refundSchema.parse(fixture('refund-succeeded')).status).toBe('succeeded');
  expect(errorSchema.parse(fixture('error-idempotence')).code).toBe('invalid_request');
});

test('the fake: payments, confirmation, notifications and refunds have the documented shape', async () => {
  expect((await call('POST', '/webhooks', { event: 'payment.succeeded', url: hookUrl }, { 'Idempotence-Key': 'wh-1' })).status).toBe(200);
  expect((await call('POST', '/webhooks', { event: 'payment.canceled', url: hookUrl }, { 'Idempotence-Key': 'wh-2' })).status).toBe(200);
  const body = {
    amount: { value: '100.00', currency: 'RUB' },
    capture: true,
    confirmation: { type: 'redirect', return_url: 'https://shop.example/back' },
    description: 'Заказ №1',
    metadata: { order_id: 'ord_1' },
  };
  const created = await call('POST', '/payments', body, { 'Idempotence-Key': 'pay-1' });
  expect(created.status).toBe(200);
  expectDocumentedShape(created.json, fixture('payment-created'));
  expect(created.json).toMatchObject({
    status: 'pending',
    paid: false,
    amount: { value: '100.00', currency: 'RUB' },
    metadata: { order_id: 'ord_1' },
  });

  // Idempotence: the same key answers the same payment and creates nothing new.
  const replay = await call('POST', '/payments', body, { 'Idempotence-Key': 'pay-1' });
  expect(replay.json.id).toBe(created.json.id);

  const read = await call('GET', `/payments/${String(created.json.id)}`);
  expect(read.json).toEqual(created.json);

  const confirmUrl = (created.json.confirmation as { confirmation_url: string }).confirmation_url;
  const approved = await fetch(`${confirmUrl}/approve`, { method: 'POST', redirect: 'manual' });
  expect(approved.status).toBe(303);
  expect(approved.headers.get('location')).toBe('https://shop.example/back');
  const note = received.pop() as Record<string, unknown>;
  expectDocumentedShape(note, fixture('notification-succeeded'));
  expect(note).toMatchObject({
    type: 'notification',
    event: 'payment.succeeded',
    object: { id: created.json.id, status: 'succeeded', paid: true },
  });

  const refund = await call(
    'POST',
    '/refunds',
    { payment_id: created.json.id, amount: { value: '100.00', currency: 'RUB' } },
    { 'Idempotence-Key': 'ref-1' },
  );
  expectDocumentedShape(refund.json, fixture('refund-succeeded'));
  const over = await call(
    'POST',
    '/refunds',
    { payment_id: created.json.id, amount: { value: '1.00', currency: 'RUB' } },
    { 'Idempotence-Key': 'ref-2' },
  );
  expect(over.status).toBe(400);
  expectDocumentedShape(over.json, fixture('error-idempotence'));

  const second = await call('POST', '/payments', { ...body, metadata: { order_id: 'ord_2' } }, { 'Idempotence-Key': 'pay-2' });
  await fetch(`${(second.json.confirmation as { confirmation_url: string }).confirmation_url}/cancel`, {
    method: 'POST',
    redirect: 'manual',
  });
  const canceled = received.pop() as Record<string, unknown>;
  expectDocumentedShape(canceled, fixture('notification-canceled'));
  expect(canceled).toMatchObject({
    event: 'payment.canceled',
    object: { status: 'canceled', cancellation_details: { party: expect.any(String), reason: expect.any(String) } },
  });
});

test('the fake enforces the protocol: Basic auth, Idempotence-Key, documented errors, unknown payments', async () => {
  const noAuth = await fetch(`${api()}/payments/x`, {});
  expect(noAuth.status).toBe(401);
  expectDocumentedShape(await noAuth.json(), fixture('error-idempotence'));
  const noKey = await call('POST', '/payments', {
    amount: { value: '1.00', currency: 'RUB' },
    confirmation: { type: 'redirect', return_url: 'https://x.example' },
  });
  expect(noKey.status).toBe(400);
  expect(noKey.json).toMatchObject({ type: 'error', code: 'invalid_request', parameter: 'Idempotence-Key' });
  const badAmount = await call('POST', '/payments', { amount: { value: '1,00', currency: 'RUB' } }, { 'Idempotence-Key': 'bad-1' });
  expect(badAmount.json).toMatchObject({ type: 'error', code: 'invalid_request', parameter: 'amount' });
  const missing = await call('GET', '/payments/2f3c6a99-000f-5000-9000-1d2a3b4c5d6e');
  expect(missing.status).toBe(404);
  expect(missing.json).toMatchObject({ type: 'error', code: 'not_found' });
  // Another shop does not see this shop's payments.
  const mine = await call(
    'POST',
    '/payments',
    { amount: { value: '5.00', currency: 'RUB' }, confirmation: { type: 'redirect', return_url: 'https://x.example' } },
    { 'Idempotence-Key': 'iso-1' },
  );
  const other = await fetch(`${api()}/payments/${String(mine.json.id)}`, {
    headers: { Authorization: `Basic ${Buffer.from('other-shop:k').toString('base64')}` },
  });
  expect(other.status).toBe(404);
});

test('our adapter against the fake: create, read, saved method, refund', async () => {
  const gateway = new YooKassaGateway({ shopId: 'adapter-shop', secretKey: 's', baseUrl: api(), sandbox: true });
  const payment = await gateway.createPayment({
    idempotenceKey: 'ord_adapter',
    amountMinor: 59000,
    currency: 'RUB',
    description: '500 tokens',
    orderReference: 'ord_adapter',
    returnUrl: 'https://shop.example/',
    savePaymentMethod: true,
  });
  expect(payment).toMatchObject({
    status: 'pending',
    amountMinor: 59000,
    currency: 'RUB',
    orderReference: 'ord_adapter',
    savedMethod: null,
  });
  await fetch(`${payment.confirmationUrl}/approve`, { method: 'POST', redirect: 'manual' });
  const paid = await gateway.getPayment(payment.id);
  expect(paid).toMatchObject({ status: 'succeeded', savedMethod: { id: expect.any(String) } });
  const again = await gateway.createPayment({
    idempotenceKey: 'ord_adapter_2',
    amountMinor: 14900,
    currency: 'RUB',
    description: '100 tokens',
    orderReference: 'ord_adapter_2',
    returnUrl: 'https://shop.example/',
    savePaymentMethod: false,
    paymentMethodId: paid!.savedMethod!.id,
  });
  expect(again).toMatchObject({ status: 'succeeded', confirmationUrl: null });
  const order = {
    providerPaymentId: payment.id,
    providerChargeId: payment.id,
    amountMinor: 59000,
    currency: 'RUB',
    reference: 'ord_adapter',
  } as OrderRecord;
  expect(await gateway.refund(order)).toEqual({ state: 'succeeded' });
  expect(await gateway.refund(order)).toEqual({ state: 'succeeded' }); // same Idempotence-Key: the same refund, not a second one
  expect(await gateway.getPayment('2f3c6a99-000f-5000-9000-1d2a3b4c5d6e')).toBeNull();
  expect(await gateway.getPayment('../../etc')).toBeNull();
});

test('the fake: a refund answered pending is read by id, then settled succeeded or canceled in the documented shapes', async () => {
  // YooKassa answers some refunds `pending` (the bank has not confirmed yet) and cancels some (issue 26's wave, 516a719).
  let outcome: 'pending' | 'canceled' = 'pending';
  const own = await startSandbox({ yookassa: createYooKassaSandbox({ refundOutcome: () => outcome }) });
  const at = (p: string) => `${own.mountUrl('yookassa')}/v3${p}`;
  const send = async (method: string, p: string, body?: unknown, key?: string) => {
    const res = await fetch(at(p), {
      method,
      headers: { Authorization: auth, 'Content-Type': 'application/json', ...(key ? { 'Idempotence-Key': key } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, any> };
  };
  try {
    const payment = await send(
      'POST',
      '/payments',
      {
        amount: { value: '100.00', currency: 'RUB' },
        capture: true,
        confirmation: { type: 'redirect', return_url: 'https://shop.example/back' },
      },
      'pay-r1',
    );
    await fetch(`${String(payment.json.confirmation.confirmation_url)}/approve`, { method: 'POST', redirect: 'manual' });
    const refundOf = (value: string, key: string) =>
      send('POST', '/refunds', { payment_id: payment.json.id, amount: { value, currency: 'RUB' } }, key);

    const pending = await refundOf('40.00', 'ref-p1');
    expect(pending.status).toBe(200);
    expect(pending.json).toMatchObject({ status: 'pending', payment_id: payment.json.id, amount: { value: '40.00', currency: 'RUB' } });
    expect(refundSchema.parse(pending.json).status).toBe('pending');
    expect((await send('GET', `/refunds/${String(pending.json.id)}`)).json).toEqual(pending.json);
    // The money of a pending refund is on its way back: it cannot be refunded twice.
    expect((await refundOf('61.00', 'ref-p2')).status).toBe(400);
    await fetch(`${own.mountUrl('yookassa')}/refunds/${String(pending.json.id)}/succeed`, { method: 'POST' });
    const succeeded = await send('GET', `/refunds/${String(pending.json.id)}`);
    expectDocumentedShape(succeeded.json, fixture('refund-succeeded'));
    expect(succeeded.json.status).toBe('succeeded');

    outcome = 'canceled';
    const canceled = await refundOf('10.00', 'ref-c1');
    expectDocumentedShape(canceled.json, fixture('refund-canceled'));
    expect(canceled.json).toMatchObject({ status: 'canceled', cancellation_details: { party: 'yoo_money', reason: expect.any(String) } });
    expect(refundSchema.parse(canceled.json).status).toBe('canceled');
    expect((await send('GET', '/refunds/00000000-0000-0000-0000-000000000000')).status).toBe(404);
  } finally {
    await own.close();
  }
});
