import type { DataSource } from 'typeorm';
import { isUniqueViolation } from '../../db/transaction';
import type { Logger } from '../../logger';
import { newReferralCode, normalizeReferralCode, REFERRAL_CODE_PATTERN } from './codes';
import type { ReferralBonuses } from './first-payment';
import { referralLink } from './links';

/** What the account holder sees of their invitations. */
export interface ReferralSummary {
  code: string;
  /** Accounts tied to this one through its links. */
  invited: number;
  /** Bonus tokens this account was credited as the inviter (at its invitees' first payments). */
  earnedTokens: number;
}

/**
 * What following a link did: `joined` (tied to the inviter now); `unknown_code`; `own_code` (never to oneself);
 * `already_joined` (tied before: never again); `not_new` (links tie new accounts only).
 */
export type JoinOutcome = 'joined' | 'unknown_code' | 'own_code' | 'already_joined' | 'not_new';

export interface JoinResult {
  outcome: JoinOutcome;
  /** The inviter's display name (known codes). */
  inviterName?: string;
}

const CODE_ATTEMPTS = 5;

/** Invitation codes and links, and tying new accounts to their inviters. The bonuses are paid in payments/fulfilment.ts. */
export class ReferralService {
  private botUsername?: () => Promise<string | undefined>;

  constructor(
    private readonly ds: DataSource,
    readonly bonuses: ReferralBonuses,
    private readonly log: Logger,
  ) {}

  /** The bot running in this process names itself here: links are then the bot's deep links. */
  useBot(username: () => Promise<string | undefined>): void {
    this.botUsername = username;
  }

  /**
   * The account's invitation link: the bot's deep link when a bot runs here (and Telegram answered who it is),
   * else the dashboard's sign-up page under `dashboardBase`.
   */
  async link(code: string, dashboardBase: string): Promise<string> {
    const botUsername = await this.botUsername?.().catch((err: unknown) => {
      this.log.warn({ err }, 'the bot’s username is unknown (Telegram unreachable?): the invitation link is the dashboard’s');
      return undefined;
    });
    return referralLink(code, { botUsername, dashboardBase });
  }

  /** The account's code, made on first use (random, unique). */
  async codeOf(userId: number): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const rows = await this.ds
        .query<{ code: string }[]>(
          `WITH ins AS (
           INSERT INTO referral_codes (user_id, code) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING RETURNING code
         ) SELECT code FROM ins UNION ALL SELECT code FROM referral_codes WHERE user_id = $1`,
          [userId, newReferralCode()],
        )
        .catch((err: unknown) => {
          // Another account drew the same code (one in a billion): draw again.
          if (isUniqueViolation(err) && attempt < CODE_ATTEMPTS) return [];
          throw err;
        });
      if (rows[0]) return rows[0].code;
    }
  }

  async summary(userId: number): Promise<ReferralSummary> {
    const code = await this.codeOf(userId);
    const [row] = await this.ds.query<{ invited: number; earned: number }[]>(
      `SELECT count(*)::int AS invited, COALESCE(sum(inviter_bonus), 0)::int AS earned FROM referrals WHERE inviter_id = $1`,
      [userId],
    );
    return { code, invited: row.invited, earnedTokens: row.earned };
  }

  /**
   * Ties the account `inviteeId` to the owner of `code`: only an account created by the very sign-up or first
   * contact that carried the link (`newAccount`), never to itself, and once.
   */
  async join(inviteeId: number, code: string, options: { newAccount: boolean }): Promise<JoinResult> {
    if (!REFERRAL_CODE_PATTERN.test(code)) return { outcome: 'unknown_code' };
    const [inviter] = await this.ds.query<{ user_id: number; name: string }[]>(
      'SELECT c.user_id, u.name FROM referral_codes c JOIN users u ON u.id = c.user_id WHERE c.code = $1',
      [normalizeReferralCode(code)],
    );
    if (!inviter) return { outcome: 'unknown_code' };
    const inviterName = inviter.name;
    if (inviter.user_id === inviteeId) return { outcome: 'own_code', inviterName };
    const [tied] = await this.ds.query<unknown[]>('SELECT 1 FROM referrals WHERE invitee_id = $1', [inviteeId]);
    if (tied) return { outcome: 'already_joined', inviterName };
    if (!options.newAccount) return { outcome: 'not_new', inviterName };
    const inserted = await this.ds.query<unknown[]>(
      `INSERT INTO referrals (invitee_id, inviter_id) VALUES ($1, $2) ON CONFLICT (invitee_id) DO NOTHING RETURNING invitee_id`,
      [inviteeId, inviter.user_id],
    );
    if (inserted.length === 0) return { outcome: 'already_joined', inviterName };
    this.log.info({ inviteeId, inviterId: inviter.user_id }, 'account joined through an invitation');
    return { outcome: 'joined', inviterName };
  }
}
