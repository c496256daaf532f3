// What the public authentication routes share: password rules and the refusals of a limited sign-in route.
import { z } from 'zod';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../core/accounts/passwords';
import { ErrorSchema, IpRateLimitErrorSchema, PasswordSignInLimitErrorSchema } from '../openapi/components';

export const password = z.string().min(1, 'password is required').max(MAX_PASSWORD_LENGTH);
export const newPassword = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH);

export const BLOCKED = { description: 'The account is blocked (`account_blocked`)', schema: ErrorSchema };

export const SIGN_IN_ERRORS = {
  401: { description: 'Wrong credentials (`invalid_credentials`)', schema: ErrorSchema },
  403: BLOCKED,
  429: {
    description: 'Too many attempts from this address',
    schema: IpRateLimitErrorSchema,
    headers: { 'Retry-After': 'seconds until the limit resets' },
  },
};

export const PASSWORD_SIGN_IN_ERRORS = {
  ...SIGN_IN_ERRORS,
  429: {
    description:
      'Too many attempts from this address (`rate_limit_exceeded`), or password sign-in with this email or phone is locked after 10 failures within 15 minutes, whether or not an account has it (`account_locked`, for 15 minutes; the message says how long)',
    schema: PasswordSignInLimitErrorSchema,
    headers: { 'Retry-After': 'seconds until the limit or the lock ends' },
  },
};

export const AUTH_TAGS = ['Authentication'];
