import { AdminAuditEntryEntity } from './admin-audit-entry.entity';
import { ApiKeyEntity } from './api-key.entity';
import { ArticleEntity } from './article.entity';
import { AssistantEntity } from './assistant.entity';
import { BalanceEntity } from './balance.entity';
import { BotGroupChatEntity } from './bot-group-chat.entity';
import { BotSessionEntity } from './bot-session.entity';
import { CatalogOverrideEntity } from './catalog-override.entity';
import { CatalogPriceOverrideEntity } from './catalog-price-override.entity';
import { CatalogVendorStatusEntity } from './catalog-vendor-status.entity';
import { EmailVerificationEntity } from './email-verification.entity';
import { GenerationEntity } from './generation.entity';
import { GenerationLeaseEntity } from './generation-lease.entity';
import { IdempotencyRecordEntity } from './idempotency-record.entity';
import { LedgerEntryEntity } from './ledger-entry.entity';
import { OrphanPaymentEntity } from './orphan-payment.entity';
import { PasswordResetEntity } from './password-reset.entity';
import { PaymentOrderEntity } from './payment-order.entity';
import { PlanEntity } from './plan.entity';
import { RateCounterEntity } from './rate-counter.entity';
import { RateCounterStateEntity } from './rate-counter-state.entity';
import { BroadcastRecipientEntity } from './broadcast-recipient.entity';
import { BroadcastEntity } from './broadcast.entity';
import { PromoCodeEntity } from './promo-code.entity';
import { PromoRedemptionEntity } from './promo-redemption.entity';
import { ReferralCodeEntity } from './referral-code.entity';
import { ReferralEntity } from './referral.entity';
import { RefreshTokenEntity } from './refresh-token.entity';
import { RefusedRequestEntity } from './refused-request.entity';
import { ReservationEntity } from './reservation.entity';
import { SavedPaymentMethodEntity } from './saved-payment-method.entity';
import { ScheduleEntity } from './schedule.entity';
import { SignInLockoutEntity } from './sign-in-lockout.entity';
import { StoredResponseEntity } from './stored-response.entity';
import { UsedIdTokenEntity } from './used-id-token.entity';
import { UsedLoginWidgetEntity } from './used-login-widget.entity';
import { UserSettingsEntity } from './user-settings.entity';
import { UserEntity } from './user.entity';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookBalanceAlertEntity } from './webhook-balance-alert.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

export const entities = [
  BroadcastEntity,
  BroadcastRecipientEntity,
  AdminAuditEntryEntity,
  ApiKeyEntity,
  ArticleEntity,
  AssistantEntity,
  BalanceEntity,
  BotGroupChatEntity,
  BotSessionEntity,
  CatalogOverrideEntity,
  CatalogPriceOverrideEntity,
  CatalogVendorStatusEntity,
  EmailVerificationEntity,
  GenerationEntity,
  GenerationLeaseEntity,
  IdempotencyRecordEntity,
  LedgerEntryEntity,
  OrphanPaymentEntity,
  PasswordResetEntity,
  PaymentOrderEntity,
  PlanEntity,
  RateCounterEntity,
  RateCounterStateEntity,
  PromoCodeEntity,
  PromoRedemptionEntity,
  ReferralCodeEntity,
  ReferralEntity,
  RefreshTokenEntity,
  RefusedRequestEntity,
  ReservationEntity,
  SavedPaymentMethodEntity,
  ScheduleEntity,
  SignInLockoutEntity,
  StoredResponseEntity,
  UsedIdTokenEntity,
  UsedLoginWidgetEntity,
  UserEntity,
  UserSettingsEntity,
  WebhookAttemptEntity,
  WebhookBalanceAlertEntity,
  WebhookDeliveryEntity,
  WebhookEndpointEntity,
];

export * from './admin-audit-entry.entity';
export * from './api-key.entity';
export * from './article.entity';
export * from './assistant.entity';
export * from './balance.entity';
export * from './bot-group-chat.entity';
export * from './bot-session.entity';
export * from './catalog-override.entity';
export * from './catalog-price-override.entity';
export * from './catalog-vendor-status.entity';
export * from './email-verification.entity';
export * from './generation.entity';
export * from './generation-lease.entity';
export * from './idempotency-record.entity';
export * from './ledger-entry.entity';
export * from './orphan-payment.entity';
export * from './password-reset.entity';
export * from './payment-order.entity';
export * from './plan.entity';
export * from './rate-counter.entity';
export * from './rate-counter-state.entity';
export * from './broadcast.entity';
export * from './broadcast-recipient.entity';
export * from './promo-code.entity';
export * from './promo-redemption.entity';
export * from './referral-code.entity';
export * from './referral.entity';
export * from './refresh-token.entity';
export * from './refused-request.entity';
export * from './reservation.entity';
export * from './saved-payment-method.entity';
export * from './schedule.entity';
export * from './sign-in-lockout.entity';
export * from './used-id-token.entity';
export * from './used-login-widget.entity';
export * from './user-settings.entity';
export * from './stored-response.entity';
export * from './user.entity';
export * from './webhook-attempt.entity';
export * from './webhook-balance-alert.entity';
export * from './webhook-delivery.entity';
export * from './webhook-endpoint.entity';
