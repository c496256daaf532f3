import { InitialSchema1732200000000 } from './1732200000000-InitialSchema';
import { SeedPlansAndAssistants1732200000001 } from './1732200000001-SeedPlansAndAssistants';
import { GenerationLookups1732200000002 } from './1732200000002-GenerationLookups';
import { ScheduleRuns1732200000003 } from './1732200000003-ScheduleRuns';
import { SecurityHardening1763800100000 } from './1763800100000-SecurityHardening';
import { Payments1763800200000 } from './1763800200000-Payments';
import { Webhooks1763800300000 } from './1763800300000-Webhooks';
import { GenerationLeases1763800400000 } from './1763800400000-GenerationLeases';
import { AccountChangeNotifications1763800500000 } from './1763800500000-AccountChangeNotifications';
import { VoiceMode1763800900000 } from './1763800900000-VoiceMode';
import { WebhookSubscriptionNotifications1763801000000 } from './1763801000000-WebhookSubscriptionNotifications';
import { SystemAssistantModels1763801100000 } from './1763801100000-SystemAssistantModels';
import { RefundPending1764022000000 } from './1764022000000-RefundPending';
import { SignInLockoutPerIdentifier1764024000000 } from './1764024000000-SignInLockoutPerIdentifier';
import { UsedIdTokens1764024001000 } from './1764024001000-UsedIdTokens';
import { LivingCatalog1764025000000 } from './1764025000000-LivingCatalog';
import { ApiKeyLimits1764027000000 } from './1764027000000-ApiKeyLimits';
import { ScheduledCommands1764240000000 } from './1764240000000-ScheduledCommands';
import { BotQuickRuns1764380000000 } from './1764380000000-BotQuickRuns';
import { ScheduleKeys1764310000000 } from './1764310000000-ScheduleKeys';
import { UpstreamConnection1764320000000 } from './1764320000000-UpstreamConnection';
import { OrphanPayments1764310100000 } from './1764310100000-OrphanPayments';
import { IdempotencyGenerations1764310200000 } from './1764310200000-IdempotencyGenerations';
import { IdempotencyAttemptOwner1764023000000 } from './1764023000000-IdempotencyAttemptOwner';
import { GenerationLinkOrigin1764028100000 } from './1764028100000-GenerationLinkOrigin';
import { VoiceAnswers1764030000000 } from './1764030000000-VoiceAnswers';
import { BotGroupChats1764030100000 } from './1764030100000-BotGroupChats';
import { CatalogRefreshModels1764230000000 } from './1764230000000-CatalogRefreshModels';
import { RateCounterMode1764230100000 } from './1764230100000-RateCounterMode';
import { TranscribeSuccessor1764390000000 } from './1764390000000-TranscribeSuccessor';
import { CatalogPriceOverrides1764390100000 } from './1764390100000-CatalogPriceOverrides';
import { RefusedRequests1764360000000 } from './1764360000000-RefusedRequests';
import { CatalogMissedChecks1764390200000 } from './1764390200000-CatalogMissedChecks';
import { AdminConsole1764470000000 } from './1764470000000-AdminConsole';
import { Referrals1764400000000 } from './1764400000000-Referrals';
import { PromoCodes1764472000000 } from './1764472000000-PromoCodes';
import { GenerationVendorCost1764390300000 } from './1764390300000-GenerationVendorCost';
import { StoredResponses1764340000000 } from './1764340000000-StoredResponses';
import { RevenueIndexes1764474000000 } from './1764474000000-RevenueIndexes';
import { GrowthIndexes1764480000000 } from './1764480000000-GrowthIndexes';
import { HistoryIndex1764540000000 } from './1764540000000-HistoryIndex';
import { Broadcasts1764541000000 } from './1764541000000-Broadcasts';
import { UserSearchIndexes1764510000000 } from './1764510000000-UserSearchIndexes';

/** Every migration in order; the data source lists them explicitly so the compiled build needs no glob. */
export const migrations = [
  InitialSchema1732200000000,
  SeedPlansAndAssistants1732200000001,
  GenerationLookups1732200000002,
  ScheduleRuns1732200000003,
  SecurityHardening1763800100000,
  Payments1763800200000,
  Webhooks1763800300000,
  GenerationLeases1763800400000,
  AccountChangeNotifications1763800500000,
  VoiceMode1763800900000,
  WebhookSubscriptionNotifications1763801000000,
  SystemAssistantModels1763801100000,
  RefundPending1764022000000,
  SignInLockoutPerIdentifier1764024000000,
  UsedIdTokens1764024001000,
  LivingCatalog1764025000000,
  ApiKeyLimits1764027000000,
  IdempotencyAttemptOwner1764023000000,
  GenerationLinkOrigin1764028100000,
  VoiceAnswers1764030000000,
  BotGroupChats1764030100000,
  CatalogRefreshModels1764230000000,
  RateCounterMode1764230100000,
  ScheduledCommands1764240000000,
  BotQuickRuns1764380000000,
  ScheduleKeys1764310000000,
  TranscribeSuccessor1764390000000,
  CatalogPriceOverrides1764390100000,
  UpstreamConnection1764320000000,
  RefusedRequests1764360000000,
  OrphanPayments1764310100000,
  CatalogMissedChecks1764390200000,
  GenerationVendorCost1764390300000,
  IdempotencyGenerations1764310200000,
  Referrals1764400000000,
  AdminConsole1764470000000,
  PromoCodes1764472000000,
  StoredResponses1764340000000,
  RevenueIndexes1764474000000,
  GrowthIndexes1764480000000,
  HistoryIndex1764540000000,
  UserSearchIndexes1764510000000,
  Broadcasts1764541000000,
];
