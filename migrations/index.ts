import { InitialSchema1732200000000 } from './1732200000000-InitialSchema';
import { SeedPlansAndAssistants1732200000001 } from './1732200000001-SeedPlansAndAssistants';

/** Every migration in order; the data source lists them explicitly so the compiled build needs no glob. */
export const migrations = [InitialSchema1732200000000, SeedPlansAndAssistants1732200000001];
