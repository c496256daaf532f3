import type { EntityManager } from 'typeorm';

/** The identity that proved the email, and what it says about its owner. */
export interface TakeoverIdentity {
  issuer: string;
  subject: string;
  /** The display name the account gets (the provider's name, else the email's local part). */
  name: string;
  /** The provider's picture (http/https), or null. */
  avatarUrl: string | null;
}

/**
 * Hands an account whose email was never verified to the identity that just proved that email, within the
 * caller's transaction. Whoever registered it without the proof keeps nothing that acts on their behalf or
 * reports to them. Table by table:
 *
 * - users: identity linked, email verified now, password removed, display name and picture replaced; a Telegram
 *   link and a phone number set without the proof (only the operator CLI sets them on such an account) removed,
 *   or that Telegram user would keep signing in through the bot and the Login Widget. Plan, paid-through date,
 *   refill dates and a block stay.
 * - refresh_tokens: every session revoked. api_keys: deleted.
 * - password_resets, email_verifications: unused links deleted (issued before the proof).
 * - sign_in_lockouts: counted per submitted identifier, not per account: the email's count stays (it ends by itself).
 * - webhook_endpoints: deleted, with their webhook_deliveries and webhook_attempts (foreign-key cascade): a
 *   pending delivery is never sent, and a queued attempt finds no delivery. webhook_balance_alerts: deleted.
 * - schedules: deleted (they would keep spending the account's tokens).
 * - assistants: the account's own deleted; system assistants untouched.
 * - saved_payment_methods: deleted (nobody is charged through a card the registrant saved); pending
 *   payment_orders no longer save the card they are paid with (a payment the registrant completes later still
 *   credits the account, as any payment does).
 * - user_settings: back to the defaults (chat model, image format and size, notifications, voice mode, voice
 *   answers and their speech model, language).
 * - Kept: balances, ledger_entries, token_reservations, generations (with their result files; one still running
 *   is delivered to the chat that asked for it), generation_leases, payment_orders (the money history),
 *   idempotency_records (answer only the account's own authenticated requests, expire within a day),
 *   rate_counters (the spent quota stays spent).
 * - Not the account's: bot_sessions (keyed by Telegram chat), bot_group_chats (by group), used_id_tokens,
 *   used_login_widgets, plans, articles, catalog_overrides, catalog_vendor_status. The jobs queue holds no
 *   account state of its own: a queued webhook attempt finds its delivery gone, a queued mail carries a link
 *   whose token was deleted.
 *
 * @returns false when the account no longer qualifies (verified or linked meanwhile): nothing changed then.
 */
export async function takeOverUnverifiedAccount(em: EntityManager, userId: number, identity: TakeoverIdentity): Promise<boolean> {
  const taken: unknown[] = await em.query(
    `UPDATE users SET idp_issuer = $2, idp_subject = $3, email_verified_at = now(), password_hash = NULL,
            name = $4, avatar_url = $5, telegram_id = NULL, messenger_username = NULL, phone = NULL, updated_at = now()
      WHERE id = $1 AND idp_subject IS NULL AND email_verified_at IS NULL RETURNING id`,
    [userId, identity.issuer, identity.subject, identity.name, identity.avatarUrl],
  );
  if (taken.length === 0) return false;
  await em.query('UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [userId]);
  for (const statement of [
    'DELETE FROM api_keys WHERE user_id = $1',
    'DELETE FROM password_resets WHERE user_id = $1 AND used_at IS NULL',
    'DELETE FROM email_verifications WHERE user_id = $1 AND used_at IS NULL',
    'DELETE FROM webhook_endpoints WHERE user_id = $1',
    'DELETE FROM webhook_balance_alerts WHERE user_id = $1',
    'DELETE FROM schedules WHERE user_id = $1',
    'DELETE FROM assistants WHERE owner_id = $1 AND NOT is_system',
    'DELETE FROM saved_payment_methods WHERE user_id = $1',
    `UPDATE payment_orders SET save_payment_method = false, updated_at = now() WHERE user_id = $1 AND status = 'pending'`,
  ]) {
    await em.query(statement, [userId]);
  }
  await em.query(
    `UPDATE user_settings SET language = DEFAULT, image_format = DEFAULT, notifications_enabled = DEFAULT,
            default_image_size = DEFAULT, chat_model = DEFAULT, voice_mode = DEFAULT, voice_answers = DEFAULT,
            tts_model = DEFAULT, updated_at = now()
      WHERE user_id = $1`,
    [userId],
  );
  return true;
}
