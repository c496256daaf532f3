import { ApiKeyEntity } from './api-key.entity';
import { ArticleEntity } from './article.entity';
import { AssistantEntity } from './assistant.entity';
import { BalanceEntity } from './balance.entity';
import { BotSessionEntity } from './bot-session.entity';
import { GenerationEntity } from './generation.entity';
import { IdempotencyRecordEntity } from './idempotency-record.entity';
import { LedgerEntryEntity } from './ledger-entry.entity';
import { PasswordResetEntity } from './password-reset.entity';
import { PaymentOrderEntity } from './payment-order.entity';
import { PlanEntity } from './plan.entity';
import { RateCounterEntity } from './rate-counter.entity';
import { RefreshTokenEntity } from './refresh-token.entity';
import { ReservationEntity } from './reservation.entity';
import { SavedPaymentMethodEntity } from './saved-payment-method.entity';
import { ScheduleEntity } from './schedule.entity';
import { UserSettingsEntity } from './user-settings.entity';
import { UserEntity } from './user.entity';

export const entities = [
  ApiKeyEntity,
  ArticleEntity,
  AssistantEntity,
  BalanceEntity,
  BotSessionEntity,
  GenerationEntity,
  IdempotencyRecordEntity,
  LedgerEntryEntity,
  PasswordResetEntity,
  PaymentOrderEntity,
  PlanEntity,
  RateCounterEntity,
  RefreshTokenEntity,
  ReservationEntity,
  SavedPaymentMethodEntity,
  ScheduleEntity,
  UserEntity,
  UserSettingsEntity,
];

export * from './api-key.entity';
export * from './article.entity';
export * from './assistant.entity';
export * from './balance.entity';
export * from './bot-session.entity';
export * from './generation.entity';
export * from './idempotency-record.entity';
export * from './ledger-entry.entity';
export * from './password-reset.entity';
export * from './payment-order.entity';
export * from './plan.entity';
export * from './rate-counter.entity';
export * from './refresh-token.entity';
export * from './reservation.entity';
export * from './saved-payment-method.entity';
export * from './schedule.entity';
export * from './user-settings.entity';
export * from './user.entity';
