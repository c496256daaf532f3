import type { Translate } from '../i18n/translate';
import { ApiFailure, minutesToWait } from './api-error';

/** Words for a failed call: the sign-in errors the issue names get their own sentences, the rest the server's text. */
export function describeError(err: unknown, t: Translate): string {
  if (err instanceof ApiFailure) {
    switch (err.code) {
      case 'invalid_credentials':
        return t('error.invalidCredentials');
      case 'account_locked':
        return t('error.locked', { minutes: minutesToWait(err.body.retry_after) });
      case 'rate_limit_exceeded':
        return t('error.rateLimited', { minutes: minutesToWait(err.body.retry_after) });
      case 'account_exists':
        return t('register.exists');
      default:
        return err.body.message;
    }
  }
  if (err instanceof TypeError) return t('error.network');
  return t('error.generic', { message: err instanceof Error ? err.message : String(err) });
}
