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

/**
 * A runner takes a few seconds to pick up a new pipeline on the platform; clients that create a pipeline
 * and read it back see `pending` first.
 */
export const DEFAULT_QUEUE_MS = 3000;

export const emptyCiJobs = (): CiJobsState => ({ byId: emptyIndex(), queue_ms: DEFAULT_QUEUE_MS });

declare module '../../core/state.js' {
  interface AreaStates {
    ciJobs: CiJobsState;
  }
}
