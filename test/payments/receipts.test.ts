// 54-FZ receipts: with YOOKASSA_RECEIPTS=1 every payment and refund request carries the documented `receipt`
// (customer email or phone; one item per article with vat_code from YOOKASSA_VAT_CODE, payment_subject and
// payment_mode). The sandbox shop has fiscalisation on and refuses a payment without one, as YooKassa does.
import fs from 'node:fs';
import path from 'node:path';
import { YooKassaGateway } from '../../src/core/payments/yookassa/client';
import type { SandboxHandler } from '../../src/sandbox/types';
import { createYooKassaSandbox } from '../../src/sandbox/yookassa';
import { ApiHarness, startApi } from '../api/harness';
import { waitUntil } from '../support/wait';

const recorded: { path: string; body: Record<string, unknown> }[] = [];
const fiscal = createYooKassaSandbox({ fiscalisation: true });
const recording: SandboxHandler = (req, res) => {
  if (req.method === 'POST' && req.path.startsWith('/v3/')) recorded.push({ path: req.path, body: JSON.parse(req.body.toString('utf8')) });
  return fiscal(req, res);
};

let api: ApiHarness;
const NOTIFY_PATH = '/api/v2/payments/carrier/notifications';

beforeAll(async () => {
  api = await startApi({ YOOKASSA_RECEIPTS: '1', YOOKASSA_VAT_CODE: '4' }, { handlers: { yookassa: recording } });
  await api.services.payments.connectSandboxNotifications(`${api.baseUrl}${NOTIFY_PATH}`);
});
afterAll(() => api.close());

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.resolve(__dirname, '../fixtures/yookassa', `${name}.json`), 'utf8'));
const lastBodyOf = (p: string) => recorded.filter((r) => r.path === p).pop()!.body;

async function waitForStatus(orderId: number, status: string): Promise<void> {
  await waitUntil(
    async () => (await api.db.dataSource.query('SELECT status FROM payment_orders WHERE id = $1', [orderId]))[0].status === status,
    20_000,
    `order ${orderId} ${status}`,
  );
}

test('payment and refund requests carry the receipt: email, one item, vat_code, payment_subject, payment_mode', async () => {
  const account = await api.account('free');
  const token = await api.accessToken(account);
  const res = await api.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: 'tokens-500' } });
  expect(res.status).toBe(201);
  const receipt = {
    customer: { email: account.email },
    items: [
      {
        description: '500 tokens',
        quantity: '1.00',
        amount: { value: '590.00', currency: 'RUB' },
        vat_code: 4,
        payment_subject: 'service',
        payment_mode: 'full_payment',
      },
    ],
  };
  expect(lastBodyOf('/v3/payments').receipt).toEqual(receipt);

  expect((await fetch(`${res.body.confirmation_url}/approve`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
  await waitForStatus(res.body.order_id, 'fulfilled');
  const [{ provider_charge_id: chargeId }] = await api.db.dataSource.query('SELECT provider_charge_id FROM payment_orders WHERE id = $1', [
    res.body.order_id,
  ]);
  const refund = await api.services.payments.refunds.request(chargeId);
  expect(refund.state).toBe('refunded');
  expect(lastBodyOf('/v3/refunds')).toMatchObject({ payment_id: chargeId, amount: { value: '590.00', currency: 'RUB' }, receipt });
});

test('an account without email sends the receipt to its phone; with neither, 400 receipt_contact_required and no order', async () => {
  const withPhone = await api.account('free', { phone: '+7 (900) 123-45-67' });
  const token = await api.accessToken(withPhone);
  await api.db.dataSource.query('UPDATE users SET email = NULL WHERE id = $1', [withPhone.user.id]);
  const res = await api.request('POST', '/api/v2/payments/carrier/initiate', { token, body: { article_id: 'plan-basic-month' } });
  expect(res.status).toBe(201);
  expect(lastBodyOf('/v3/payments').receipt).toMatchObject({
    customer: { phone: '79001234567' },
    items: [{ description: expect.any(String), vat_code: 4 }],
  });

  const nobody = await api.account('free');
  const nobodyToken = await api.accessToken(nobody);
  await api.db.dataSource.query('UPDATE users SET email = NULL, phone = NULL WHERE id = $1', [nobody.user.id]);
  const sent = recorded.length;
  const refused = await api.request('POST', '/api/v2/payments/carrier/initiate', {
    token: nobodyToken,
    body: { article_id: 'tokens-100' },
  });
  expect(refused.status).toBe(400);
  expect(refused.body).toMatchObject({ error: 'receipt_contact_required' });
  expect(recorded.length).toBe(sent);
  expect(await api.db.dataSource.query('SELECT id FROM payment_orders WHERE user_id = $1', [nobody.user.id])).toEqual([]);
});

test('the fiscal sandbox refuses a payment without a receipt with YooKassa error body, and one whose items do not add up', async () => {
  const gateway = new YooKassaGateway({
    shopId: 'fiscal-shop',
    secretKey: 'test_secret',
    baseUrl: `${api.sandbox.mountUrl('yookassa')}/v3`,
    sandbox: true,
  });
  const input = {
    idempotenceKey: 'no-receipt-1',
    amountMinor: 59000,
    currency: 'RUB',
    description: '500 tokens',
    orderReference: 'ord_no_receipt',
    returnUrl: 'https://shop.example/',
    savePaymentMethod: false,
  };
  await expect(gateway.createPayment(input)).rejects.toMatchObject({
    code: 'payment_provider_rejected',
    message: expect.stringContaining('invalid_request: Receipt is missing or illegal'),
  });
  const raw = await fetch(`${api.sandbox.mountUrl('yookassa')}/v3/payments`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from('fiscal-shop:test_secret').toString('base64')}`,
      'Idempotence-Key': 'no-receipt-2',
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({
      amount: { value: '590.00', currency: 'RUB' },
      confirmation: { type: 'redirect', return_url: 'https://shop.example/' },
    }),
  });
  expect(raw.status).toBe(400);
  const { id: _id, ...body } = (await raw.json()) as Record<string, unknown>;
  const { id: _fid, ...documented } = fixture('error-receipt-missing');
  expect(body).toEqual(documented);

  const receipt = {
    customer: { email: 'buyer@example.com' },
    items: [
      {
        description: 'x',
        quantity: 1,
        amountMinor: 10000,
        currency: 'RUB',
        vatCode: 1,
        paymentSubject: 'service' as const,
        paymentMode: 'full_payment' as const,
      },
    ],
  };
  await expect(gateway.createPayment({ ...input, idempotenceKey: 'bad-sum', receipt })).rejects.toMatchObject({
    message: expect.stringContaining('receipt.items.amount'),
  });
  const ok = await gateway.createPayment({
    ...input,
    idempotenceKey: 'good',
    receipt: { ...receipt, items: [{ ...receipt.items[0], amountMinor: 59000 }] },
  });
  expect(ok.status).toBe('pending');
});
