import { DataSource } from 'typeorm';
import { DailyUsage, dailyUsage, UsageRange } from './daily-usage';
import { HistoryEntryPage, HistoryPage, HistoryQuery, listHistory, listHistoryEntries } from './history';
import { AvgTimeView, modelAverageTime } from './model-timing';
import { ServiceStats, serviceStats } from './service-stats';
import { StatsView, userStats } from './user-stats';

/** Read-only usage views for the doors: a user's history and stats, model timing, service totals. */
export class UsageService {
  constructor(private readonly ds: DataSource) {}

  history(userId: number, query: HistoryQuery): Promise<HistoryPage> {
    return listHistory(this.ds, userId, query);
  }

  /** The same page with the start of each prompt (the bot labels its entries with it). */
  historyEntries(userId: number, query: HistoryQuery): Promise<HistoryEntryPage> {
    return listHistoryEntries(this.ds, userId, query);
  }

  /** Completed generations and tokens per UTC day over a range of days (and per model or key, when asked). */
  /** `onlyKey`: the reader is a restricted API key, which sees only its own requests. */
  dailyUsage(userId: number, range: UsageRange, onlyKey?: number): Promise<DailyUsage> {
    return dailyUsage(this.ds, userId, range, onlyKey);
  }

  /** `onlyKey`: the reader is a restricted API key, which sees only its own requests. */
  userStats(userId: number, onlyKey?: number): Promise<StatsView> {
    return userStats(this.ds, userId, onlyKey);
  }

  modelAverageTime(slug: string): Promise<AvgTimeView> {
    return modelAverageTime(this.ds, slug);
  }

  serviceStats(): Promise<ServiceStats> {
    return serviceStats(this.ds);
  }

  /** Throws when the database does not answer (the health probe). */
  async ping(): Promise<void> {
    await this.ds.query('SELECT 1');
  }
}
