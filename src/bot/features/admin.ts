import { Composer } from 'grammy';
import { isPlanSlug } from '../../core/accounts/plans';
import { adminActors, type AdminActor } from '../../core/admin/audit-log';
import { MAX_GRANT_TOKENS } from '../../core/admin/user-desk';
import { hasErrorCode } from '../../core/error-registry';
import type { BotContext } from '../context';
import { formatDate, planName } from '../render/format';

/** What a grant made in the bot says in the ledger and the audit log when the admin gives no reason. */
const BOT_GRANT_REASON = 'granted in the bot';

/**
 * Refunds a charge at its provider (refundStarPayment for Stars) and reverses what is left of the credit; a refund
 * that changed the order is in the audit log (`order.refund`), as from the dashboard.
 */
async function refund(ctx: BotContext, chargeId: string | undefined, actor: AdminActor): Promise<void> {
  if (!chargeId) {
    await ctx.reply(ctx.t('admin-usage'));
    return;
  }
  try {
    const { result } = await ctx.deps.services.adminOrders.refundCharge(chargeId, actor);
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
 * /admin for the user ids in ADMIN_CHAT_IDS only: service stats, `grant <user> <tokens> [reason]` (bonus tokens),
 * `plan <user> <plan>`, `user <user>`, `refund <charge id>`. A user is an internal id, `tg:<telegram id>` or `@username`.
 * Grants, plan changes and refunds go through the console's desks, so each is in the audit log (`bot:<telegram id>`).
 */
export function adminFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('admin', async (ctx) => {
    const fromId = ctx.from?.id;
    if (fromId === undefined || !ctx.deps.adminIds.has(fromId)) {
      await ctx.reply(ctx.t('admin-only'));
      return;
    }
    const { plans, usage, accountAdmin, adminUsers } = ctx.deps.services;
    const [sub = 'stats', ...args] = ctx.match.trim().split(/\s+/).filter(Boolean);
    const actor = adminActors.bot(ctx.account?.user.id ?? null, fromId);

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
      await refund(ctx, args[0], actor);
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
      const reason = args.slice(2).join(' ').slice(0, 500) || BOT_GRANT_REASON;
      if (!Number.isInteger(amount) || amount <= 0 || amount > MAX_GRANT_TOKENS) {
        await ctx.reply(ctx.t('admin-usage'));
        return;
      }
      // The update id makes the grant idempotent when Telegram delivers the same update twice.
      const granted = await adminUsers.grant(user.id, amount, reason, actor, `admin:${ctx.update.update_id}`);
      await ctx.reply(
        ctx.t('admin-granted', { tokens: amount, id: String(user.id), name: user.name, balance: granted.summary.tokenBalance }),
      );
      return;
    }
    if (sub === 'plan' && user) {
      const slug = args[1];
      if (!isPlanSlug(slug)) {
        await ctx.reply(ctx.t('admin-usage'));
        return;
      }
      const updated = await adminUsers.setPlan(user.id, slug, null, actor);
      await ctx.reply(
        ctx.t('admin-plan-changed', { id: String(user.id), name: user.name, plan: await planName(plans, updated.summary.plan) }),
      );
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
