import type Router from '@koa/router';
import { z } from 'zod';
import type { AppConfig } from '../../config';
import type { ApiServices } from '../api-services';
import { components } from '../openapi/components';
import { addRoute } from './route';

export const PublicConfigSchema = z.object({
  telegram: z
    .object({
      bot_id: z.number().int().describe('the numeric id of the bot (the part of BOT_TOKEN before the colon), which the Login Widget needs'),
      widget_script_url: z.string().describe('the Telegram Login Widget script (TELEGRAM_WIDGET_SCRIPT_URL)'),
    })
    .nullable()
    .describe('null when BOT_TOKEN is not set: messenger sign-in is off'),
  oidc: z
    .object({
      issuer: z.string(),
      client_id: z.string(),
      authorization_url: z.string().describe('where the browser is sent for an ID token (OIDC_AUTHORIZATION_URL)'),
    })
    .nullable()
    .describe('null when OIDC_CLIENT_ID is not set: identity-provider sign-in is off'),
});
components.add(PublicConfigSchema, { id: 'PublicConfig', description: 'Which sign-in methods the web dashboard may offer, and how' });

export type PublicConfig = z.infer<typeof PublicConfigSchema>;

/** The public part of the configuration: nothing secret (the bot id is public; the token never leaves). */
export function publicConfig(config: AppConfig): PublicConfig {
  const botId = config.bot.token ? Number(config.bot.token.split(':', 1)[0]) : NaN;
  return {
    telegram: Number.isSafeInteger(botId) && botId > 0 ? { bot_id: botId, widget_script_url: config.web.telegramWidgetScriptUrl } : null,
    oidc: config.auth.oidcClientId
      ? { issuer: config.auth.oidcIssuer, client_id: config.auth.oidcClientId, authorization_url: config.web.oidcAuthorizationUrl }
      : null,
  };
}

/** GET /api/v2/config/public: no sign-in needed; the dashboard reads it before it shows the sign-in page. */
export function registerWebConfigRoute(router: Router, services: Pick<ApiServices, 'config'>): void {
  addRoute(
    router,
    {
      method: 'get',
      path: '/config/public',
      operationId: 'getPublicConfig',
      summary: 'Sign-in methods the web dashboard can offer (Telegram Login Widget, identity provider)',
      tags: ['Meta'],
      security: 'none',
      responses: { 200: { description: 'The public configuration', schema: PublicConfigSchema } },
    },
    async () => publicConfig(services.config),
  );
}
