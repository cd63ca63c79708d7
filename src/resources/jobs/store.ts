/**
 * Lookups of CI jobs, which live in their pipelines' records (`PipelineRecord.builds`): job id ->
 * pipeline id; and the instance's queue time.
 */
import { emptyIndex, type Index } from '../../core/table.js';

export interface CiJobsState {
  /** job id -> pipeline id */
  byId: Index;
  /**
   * How long a new pipeline waits for a runner (pending) before its first jobs run, in milliseconds.
   * Scenario `ci.queue_time`, control plane `PUT /__fauxlab/ci`.
   */
  queue_ms: number;
}

export const emptyCiJobs = (): CiJobsState => ({ byId: emptyIndex(), queue_ms: 0 });

declare module '../../core/state.js' {
  interface AreaStates {
    ciJobs: CiJobsState;
  }
}
