/**
 * Lookups of CI jobs, which live in their pipelines' records (`PipelineRecord.builds`): job id ->
 * pipeline id, and a running job's token -> job id.
 */
import { emptyIndex, type Index } from '../../core/table.js';

export interface CiJobsState {
  /** job id -> pipeline id */
  byId: Index;
}

export const emptyCiJobs = (): CiJobsState => ({ byId: emptyIndex() });

declare module '../../core/state.js' {
  interface AreaStates {
    ciJobs: CiJobsState;
  }
}
