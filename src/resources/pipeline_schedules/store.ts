/** A project's pipeline schedules (`Ci::PipelineSchedule`) and their variables. */
import { emptyIndex, emptyTable, type MultiIndex, type Table } from '../../core/table.js';

export interface ScheduleVariable {
  key: string;
  value: string;
  variable_type: 'env_var' | 'file';
}

export interface ScheduleRecord {
  id: number;
  project_id: number;
  description: string;
  ref: string;
  cron: string;
  cron_timezone: string;
  active: boolean;
  owner_id: number | null;
  /** When the schedule runs next (kept even while inactive, as the platform computes it on each save). */
  next_run_at: string | null;
  created_at: string;
  updated_at: string;
  variables: ScheduleVariable[];
  /** The pipelines the schedule started, oldest first (the newest is `last_pipeline`). */
  pipeline_ids: number[];
}

export interface SchedulesState {
  records: Table<ScheduleRecord>;
  idx: {
    /** project id -> schedule ids */
    byProject: MultiIndex;
  };
}

export const emptySchedules = (): SchedulesState => ({
  records: emptyTable(),
  idx: { byProject: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    pipelineSchedules: SchedulesState;
  }
}
