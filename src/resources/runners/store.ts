/**
 * CI runners (`Ci::Runner`): the instance's, a group's or a project's, registered with a registration
 * token and known to the API by id; the jobs the platform hands them come from `ci/` and `jobs/`.
 */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

/** `Ci::Runner.runner_types`. */
export const RUNNER_TYPES = ['instance_type', 'group_type', 'project_type'] as const;
export type RunnerType = (typeof RUNNER_TYPES)[number];
/** `Ci::Runner.access_levels`. */
export const ACCESS_LEVELS = ['not_protected', 'ref_protected'] as const;
export type RunnerAccessLevel = (typeof ACCESS_LEVELS)[number];

export interface RunnerRecord {
  id: number;
  runner_type: RunnerType;
  /** The runner's authentication token (`add_authentication_token_field :token`): 20 characters. */
  token: string;
  description: string | null;
  active: boolean;
  run_untagged: boolean;
  locked: boolean;
  access_level: RunnerAccessLevel;
  /** Seconds; null: the project's own timeout applies. */
  maximum_timeout: number | null;
  tag_list: string[];
  /** What the runner process told at registration or its last contact (`info`). */
  name: string | null;
  version: string | null;
  revision: string | null;
  platform: string | null;
  architecture: string | null;
  ip_address: string | null;
  /** Its last contact with the instance; null before the first (`not_connected`). */
  contacted_at: string | null;
  created_at: string;
  updated_at: string;
  /** A project runner's projects (`runner_projects`), in the order they were assigned. */
  project_ids: number[];
  /** A group runner's group (`runner_namespaces`: exactly one). */
  group_id: number | null;
}

export interface RunnersState {
  records: Table<RunnerRecord>;
  /**
   * The instance's registration token (`ApplicationSetting#runners_registration_token`): scenario
   * `runners_registration_token`; the application settings API does not show it.
   */
  registration_token: string;
  idx: {
    /** authentication token -> runner id */
    tokens: Index;
    /** project id -> ids of the project runners assigned to it */
    byProject: MultiIndex;
    /** group id -> ids of its group runners */
    byGroup: MultiIndex;
  };
}

/** The registration token of a fresh instance: fixed, so that a scenario's runners register the same way. */
export const DEFAULT_REGISTRATION_TOKEN = 'fauxlab-runners-registration';

export const emptyRunners = (): RunnersState => ({
  records: emptyTable(),
  registration_token: DEFAULT_REGISTRATION_TOKEN,
  idx: { tokens: emptyIndex(), byProject: emptyIndex(), byGroup: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    runners: RunnersState;
  }
}
