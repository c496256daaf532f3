import crypto from 'node:crypto';
import type { Middleware } from 'koa';
import type { Update } from 'grammy/types';
import { ApiError } from '../../api/middleware/errors';
import { readJsonBody } from '../../api/middleware/json-body';
import type { TelegramBot } from '../bot';

export const WEBHOOK_PATH = '/telegram/webhook';
export const SECRET_HEADER = 'X-Telegram-Bot-Api-Secret-Token';

function sameSecret(given: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b) && given.length > 0;
}

function isUpdate(value: unknown): value is Update {
  return typeof value === 'object' && value !== null && Number.isInteger((value as { update_id?: unknown }).update_id);
}

/**
 * POST /telegram/webhook (BOT_MODE=webhook): checks Telegram's secret token header, then handles the update.
 * Telegram is answered once the update is handled, or after `answerAfterMs` while a long handler (a streamed
 * chat reply) carries on; an unanswered webhook would be delivered again. Any instance behind the load balancer
 * can take any update: sessions and conversations live in PostgreSQL.
 */
export function telegramWebhook(app: TelegramBot, secret: string, answerAfterMs = 8_000): Middleware {
  return async (ctx) => {
    if (!sameSecret(ctx.get(SECRET_HEADER), secret)) {
      throw new ApiError(401, 'invalid_webhook_secret', `Missing or wrong ${SECRET_HEADER}`);
    }
    // Telegram's own text is taken as sent (a refusal would only make Telegram redeliver the update).
    const update = await readJsonBody(ctx, { allowUnsafeText: true });
    if (!isUpdate(update)) throw new ApiError(400, 'invalid_update', 'The body is not a Telegram update');
    // The webhook may be set by hand (no PUBLIC_URL): the bot then learns who it is on its first update.
    if (!app.bot.isInited()) await app.bot.init();
    const handled = app.bot.handleUpdate(update).catch((err: unknown) => {
      app.deps.services.log.error({ err, update: update.update_id }, 'webhook update failed');
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([handled, new Promise<void>((resolve) => (timer = setTimeout(resolve, answerAfterMs)))]);
    clearTimeout(timer);
    ctx.status = 200;
    ctx.body = { ok: true };
  };
}
