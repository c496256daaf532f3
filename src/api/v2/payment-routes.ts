import type Router from '@koa/router';
import { z } from 'zod';
import type { ApiServices } from '../api-services';
import { authOf } from '../middleware/auth';
import {
  ArticleListSchema,
  CheckoutSchema,
  components,
  ErrorSchema,
  NotificationAckSchema,
  OrderListSchema,
  OrderSchema,
} from '../openapi/components';
import { toOrderView } from '../../core/payments/orders';
import { idParams } from './path-params';
import { publicBaseUrl } from './public-url';
import { addRoute } from './route';

const tags = ['Payments'];
const articleId = z.string().trim().min(1).max(100).describe('see GET /api/v2/payments/articles');
const initiateBody = z.strictObject({
  article_id: articleId,
  return_url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional()
    .describe('where the provider sends the buyer back (default: PUBLIC_URL, else the origin this request was sent to)'),
  save_payment_method: z.boolean().optional().describe('the buyer agrees to save the payment method for quick-checkout'),
});
const quickBody = z.strictObject({ article_id: articleId });
const StarsInvoiceLinkSchema = z.object({
  invoice_link: z.string().describe('the Telegram invoice link: `Telegram.WebApp.openInvoice(invoice_link)` inside the Mini App'),
  order: OrderSchema,
});
components.add(StarsInvoiceLinkSchema, { id: 'StarsInvoiceLink', description: 'A pending Stars order and its invoice link' });
const notificationBody = z.looseObject({
  type: z.string().max(50),
  event: z.string().max(100),
  object: z.looseObject({ id: z.string().max(100) }),
});

const unknownArticle = {
  description:
    'Unknown article id (`unknown_article`), invalid body, or receipts are on (YOOKASSA_RECEIPTS=1) and the account has no email or phone to send the receipt to (`receipt_contact_required`)',
  schema: ErrorSchema,
};
const unavailable = { description: 'Online payment is not configured, or the provider is unreachable', schema: ErrorSchema };
const rejected = { description: 'The payment provider refused the request (`payment_provider_rejected`)', schema: ErrorSchema };

/** What needs no sign-in: the articles, and the carrier's notifications (believed only after re-reading the payment). */
export function registerPublicPaymentRoutes(router: Router, services: Pick<ApiServices, 'payments'>): void {
  const { payments } = services;
  addRoute(
    router,
    {
      method: 'get',
      path: '/payments/articles',
      operationId: 'listArticles',
      summary: 'What can be bought: token packages and plans, with RUB and Stars prices',
      tags,
      security: 'none',
      responses: { 200: { description: 'Articles', schema: ArticleListSchema } },
    },
    async () => ({ articles: await payments.articles() }),
  );
  addRoute(
    router,
    {
      method: 'post',
      path: '/payments/carrier/notifications',
      operationId: 'carrierNotification',
      summary: 'YooKassa notifications (payment.succeeded, payment.canceled)',
      description:
        'The payment named in `object.id` is re-read from the YooKassa API before anything changes: a forged or replayed notification changes nothing.',
      tags,
      security: 'none',
      body: notificationBody,
      responses: {
        200: { description: 'Handled (what it did to the order)', schema: NotificationAckSchema },
        400: { description: 'Not a notification, or a payment the provider does not know (`unknown_payment`)', schema: ErrorSchema },
        502: rejected,
        503: unavailable,
      },
    },
    async (_ctx, { body }) => ({ status: await payments.carrier.handleNotification(body) }),
  );
}

/** The signed-in user's checkout and orders. */
export function registerPaymentRoutes(router: Router, services: Pick<ApiServices, 'payments' | 'config'>): void {
  const { payments } = services;
  addRoute(
    router,
    {
      method: 'post',
      path: '/payments/carrier/initiate',
      operationId: 'carrierInitiate',
      summary: 'Start a web payment (YooKassa) for an article',
      description:
        'Creates the order and the provider payment; open `confirmation_url` to pay. The order is fulfilled when the provider confirms.',
      tags,
      security: 'bearer',
      body: initiateBody,
      status: 201,
      responses: { 201: { description: 'A pending order', schema: CheckoutSchema }, 400: unknownArticle, 502: rejected, 503: unavailable },
    },
    async (ctx, { body }) =>
      payments.carrier.initiate(authOf(ctx).userId, body.article_id, {
        returnUrl: body.return_url ?? `${publicBaseUrl(ctx, services.config)}/`,
        savePaymentMethod: body.save_payment_method,
        publicOrigin: publicBaseUrl(ctx, services.config),
      }),
  );
  addRoute(
    router,
    {
      method: 'post',
      path: '/payments/carrier/quick-checkout',
      operationId: 'carrierQuickCheckout',
      summary: 'Pay for an article with the saved payment method (like initiate when none is saved)',
      tags,
      security: 'bearer',
      body: quickBody,
      status: 201,
      responses: {
        201: { description: 'The order (fulfilled when the saved method was charged)', schema: CheckoutSchema },
        400: unknownArticle,
        502: rejected,
        503: unavailable,
      },
    },
    async (ctx, { body }) => {
      const origin = publicBaseUrl(ctx, services.config);
      return payments.carrier.quickCheckout(authOf(ctx).userId, body.article_id, { returnUrl: `${origin}/`, publicOrigin: origin });
    },
  );
  addRoute(
    router,
    {
      method: 'post',
      path: '/payments/stars/invoice-link',
      operationId: 'starsInvoiceLink',
      summary: 'Start a Telegram Stars payment for an article: an invoice link for the Mini App',
      description:
        'Creates a pending Stars order and its invoice link (the bot’s createInvoiceLink; a plan is a 30-day subscription). Inside Telegram the dashboard opens it with `Telegram.WebApp.openInvoice`; the payment reaches the bot, which fulfils the order as any Stars payment. The account must be linked to Telegram.',
      tags,
      security: 'bearer',
      body: quickBody,
      status: 201,
      responses: {
        201: { description: 'The pending order and its invoice link', schema: StarsInvoiceLinkSchema },
        400: { description: 'Unknown article id (`unknown_article`) or invalid body', schema: ErrorSchema },
        409: { description: 'The account is not linked to Telegram (`telegram_account_required`)', schema: ErrorSchema },
        502: rejected,
        503: { description: 'No Telegram bot runs here (`stars_unavailable`), or Telegram is unreachable', schema: ErrorSchema },
      },
    },
    async (ctx, { body }) => {
      const { order, link } = await payments.stars.startLinkPurchase(authOf(ctx).userId, body.article_id);
      return { invoice_link: link, order: toOrderView(order) };
    },
  );
  addRoute(
    router,
    {
      method: 'get',
      path: '/payments/orders',
      operationId: 'listOrders',
      summary: "The caller's orders, newest first",
      tags,
      security: 'bearer',
      responses: { 200: { description: 'Orders', schema: OrderListSchema } },
    },
    async (ctx) => ({ orders: await payments.orders(authOf(ctx).userId) }),
  );
  addRoute(
    router,
    {
      method: 'get',
      path: '/payments/orders/:id',
      operationId: 'getOrder',
      summary: "One of the caller's orders",
      tags,
      security: 'bearer',
      params: idParams,
      responses: {
        200: { description: 'The order', schema: OrderSchema },
        404: { description: 'No such order of the caller', schema: ErrorSchema },
      },
    },
    async (ctx, { params }) => payments.order(authOf(ctx).userId, params.id),
  );
}
