import { InitialSchema1732200000000 } from './1732200000000-InitialSchema';
import { SeedPlansAndAssistants1732200000001 } from './1732200000001-SeedPlansAndAssistants';
import { GenerationLookups1732200000002 } from './1732200000002-GenerationLookups';
import { ScheduleRuns1732200000003 } from './1732200000003-ScheduleRuns';
import { Payments1763800200000 } from './1763800200000-Payments';

/** Every migration in order; the data source lists them explicitly so the compiled build needs no glob. */
export const migrations = [
  InitialSchema1732200000000,
  SeedPlansAndAssistants1732200000001,
  GenerationLookups1732200000002,
  ScheduleRuns1732200000003,
  Payments1763800200000,
];
