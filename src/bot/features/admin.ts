import { Composer } from 'grammy';
import { isPlanSlug } from '../../core/accounts/plans';
import { hasErrorCode } from '../../core/error-registry';
import type { BotContext } from '../context';
import { formatDate, planName } from '../render/format';

const MAX_GRANT = 1_000_000;

/** Refunds a charge at its provider (refundStarPayment for Stars) and reverses what is left of the credit. */
async function refund(ctx: BotContext, chargeId: string | undefined): Promise<void> {
  if (!chargeId) {
    await ctx.reply(ctx.t('admin-usage'));
    return;
  }
  try {
    const result = await ctx.deps.services.payments.refunds.request(chargeId);
    if (result.state === 'refunded') {
      await ctx.reply(
        ctx.t('admin-refund-done', {
          order: result.order.reference,
          taken: result.reversal?.tokensTaken ?? 0,
          spent: result.reversal?.tokensSpent ?? 0,
        }),
      );
    } else if (result.state === 'already_refunded') await ctx.reply(ctx.t('admin-refund-already'));
    else if (result.state === 'queued') await ctx.reply(ctx.t('admin-refund-queued', { reason: result.error ?? '' }));
    else if (result.state === 'pending') await ctx.reply(ctx.t('admin-refund-pending', { order: result.order.reference }));
    else if (result.state === 'canceled')
      await ctx.reply(ctx.t('admin-refund-canceled', { order: result.order.reference, reason: result.error ?? '' }));
    else await ctx.reply(ctx.t('admin-refund-failed', { reason: result.error ?? '' }));
  } catch (err) {
    if (hasErrorCode(err, 'unknown_charge')) await ctx.reply(ctx.t('admin-refund-unknown', { charge: chargeId.slice(0, 80) }));
    else if (hasErrorCode(err, 'order_not_refundable')) await ctx.reply(ctx.t('admin-refund-not-refundable', { status: err.status }));
    else throw err;
  }
}

/**
 * /admin for the user ids in ADMIN_CHAT_IDS only: service stats, `grant <user> <tokens>` (bonus tokens),
 * `plan <user> <plan>`, `user <user>`, `refund <charge id>`. A user is an internal id, `tg:<telegram id>` or `@username`.
 */
export function adminFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('admin', async (ctx) => {
    const fromId = ctx.from?.id;
    if (fromId === undefined || !ctx.deps.adminIds.has(fromId)) {
      await ctx.reply(ctx.t('admin-only'));
      return;
    }
    const { plans, usage, accountAdmin } = ctx.deps.services;
    const [sub = 'stats', ...args] = ctx.match.trim().split(/\s+/).filter(Boolean);

    if (sub === 'stats') {
      const s = await usage.serviceStats();
      await ctx.reply(
        ctx.t('admin-stats', {
          users: s.users_total,
          newUsers: s.users_new_24h,
          plans:
            Object.entries(s.users_by_plan)
              .map(([slug, n]) => `${slug}: ${n}`)
              .join(', ') || '—',
          generations: s.generations_24h,
          failed: s.failed_24h,
          pending: s.pending_now,
          spent: s.tokens_spent_24h,
          top: s.top_models_24h.map((m) => `${m.model_slug} (${m.count})`).join(', ') || '—',
        }),
      );
      return;
    }

    if (sub === 'refund') {
      await refund(ctx, args[0]);
      return;
    }

    const user = args[0] ? await accountAdmin.findByReference(args[0]) : null;
    if (sub === 'grant' || sub === 'plan' || sub === 'user') {
      if (!user) {
        await ctx.reply(args[0] ? ctx.t('admin-user-not-found', { ref: args[0] }) : ctx.t('admin-usage'));
        return;
      }
    }
    if (sub === 'grant' && user) {
      const amount = Number(args[1]);
      if (!Number.isInteger(amount) || amount <= 0 || amount > MAX_GRANT) {
        await ctx.reply(ctx.t('admin-usage'));
        return;
      }
      // The update id makes the grant idempotent when Telegram delivers the same update twice.
      const balance = await accountAdmin.grantBonus(user.id, amount, `admin:${ctx.update.update_id}`, `granted by admin ${fromId}`);
      await ctx.reply(ctx.t('admin-granted', { tokens: amount, id: String(user.id), name: user.name, balance }));
      return;
    }
    if (sub === 'plan' && user) {
      const slug = args[1];
      if (!isPlanSlug(slug)) {
        await ctx.reply(ctx.t('admin-usage'));
        return;
      }
      const updated = await accountAdmin.changePlan(user.id, slug);
      await ctx.reply(ctx.t('admin-plan-changed', { id: String(user.id), name: user.name, plan: await planName(plans, updated.planSlug) }));
      return;
    }
    if (sub === 'user' && user) {
      const balance = await ctx.deps.services.profiles.totalTokens(user.id);
      await ctx.reply(
        ctx.t('admin-user', {
          id: String(user.id),
          name: user.name,
          username: user.messengerUsername ? `@${user.messengerUsername}` : '—',
          telegram: user.telegramId ?? '—',
          email: user.email ?? '—',
          plan: await planName(plans, user.planSlug),
          balance,
          created: formatDate(ctx.locale, user.createdAt),
        }),
      );
      return;
    }
    await ctx.reply(ctx.t('admin-usage'));
  });

  return composer;
}
