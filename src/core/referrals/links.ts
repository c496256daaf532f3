/**
 * An invitation link: the bot's deep link (`https://t.me/<bot>?start=ref_<code>`) when the service has a Telegram
 * bot, else the dashboard's sign-up page (`<dashboard>/register?ref=<code>`).
 */
export function referralLink(code: string, where: { botUsername?: string; dashboardBase: string }): string {
  if (where.botUsername) return `https://t.me/${where.botUsername}?start=ref_${code}`;
  return `${where.dashboardBase.replace(/\/+$/, '')}/register?ref=${encodeURIComponent(code)}`;
}
