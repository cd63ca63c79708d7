/**
 * A project's deployments (`Deployment`): one environment, one ref and sha, and a status that either the
 * API sets or, for a deployment a pipeline made, its job's state decides on the instance clock.
 */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

/** `Deployment.statuses` of 13.12. */
export const DEPLOYMENT_STATUSES = [
  'created',
  'running',
  'success',
  'failed',
  'canceled',
  'skipped',
] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

export interface DeploymentRecord {
  id: number;
  /** Per project, from 1. */
  iid: number;
  project_id: number;
  environment_id: number;
  ref: string;
  tag: boolean;
  sha: string;
  user_id: number | null;
  /** The job that deploys (`deployable`), for a deployment a pipeline made; null for the API's. */
  deployable_id: number | null;
  /**
   * The status as stored: the API's own, or, once the job is gone, the last one it gave. A live job's
   * state decides the status of a deployment with a job.
   */
  status: DeploymentStatus;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface DeploymentsState {
  records: Table<DeploymentRecord>;
  idx: {
    /** project id -> deployment ids */
    byProject: MultiIndex;
    /** environment id -> deployment ids */
    byEnvironment: MultiIndex;
    /** job id -> the deployment id of its job */
    byJob: Index;
    /** project id -> the last iid given */
    iids: Index;
  };
}

export const emptyDeployments = (): DeploymentsState => ({
  records: emptyTable(),
  idx: { byProject: emptyIndex(), byEnvironment: emptyIndex(), byJob: emptyIndex(), iids: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    deployments: DeploymentsState;
  }
}
