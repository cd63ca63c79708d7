/** A project's environments (`Environment`): where its deployments go, available until stopped. */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

export type EnvironmentTier = 'production' | 'staging' | 'testing' | 'development' | 'other';

export interface EnvironmentRecord {
  id: number;
  project_id: number;
  name: string;
  /** Made from the name once, when the environment is created; renames keep it. */
  slug: string;
  external_url: string | null;
  state: 'available' | 'stopped';
  tier: EnvironmentTier;
  created_at: string;
  updated_at: string;
}

export interface EnvironmentsState {
  records: Table<EnvironmentRecord>;
  idx: {
    /** project id -> environment ids */
    byProject: MultiIndex;
    /** `<project id>:<name>` -> environment id (names are unique in a project) */
    names: Index;
  };
}

export const emptyEnvironments = (): EnvironmentsState => ({
  records: emptyTable(),
  idx: { byProject: emptyIndex(), names: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    environments: EnvironmentsState;
  }
}
