/**
 * Deploy freeze periods (`Ci::FreezePeriod`, `lib/api/freeze_periods.rb`, 13.0): a project's windows, each
 * opened by one cron line and closed by another in a time zone.
 */
import { emptyIndex, emptyTable, type MultiIndex, type Table } from '../../core/table.js';

export interface FreezePeriodRecord {
  id: number;
  project_id: number;
  freeze_start: string;
  freeze_end: string;
  cron_timezone: string;
  created_at: string;
  updated_at: string;
}

export interface FreezePeriodsState {
  records: Table<FreezePeriodRecord>;
  idx: {
    /** project id -> freeze period ids, in creation order */
    byProject: MultiIndex;
  };
}

export const emptyFreezePeriods = (): FreezePeriodsState => ({
  records: emptyTable(),
  idx: { byProject: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    freeze_periods: FreezePeriodsState;
  }
}
