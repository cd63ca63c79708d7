/**
 * Terraform states of projects (`Terraform::State`, `Terraform::StateVersion`): a state is a project's
 * named lock and its versions, each version one file the http backend posted, numbered by the serial
 * inside it. The bytes are kept base64-encoded, so the state root stays plain JSON; `bytes` counts them
 * against the instance's upload bound.
 */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

export interface TerraformStateRecord {
  id: number;
  project_id: number;
  name: string;
  /** `SecureRandom.hex(16)` on the platform; derived here, so that a world replays the same. */
  uuid: string;
  lock_xid: string | null;
  locked_by_user_id: number | null;
  locked_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface TerraformStateVersionRecord {
  id: number;
  state_id: number;
  /** The serial of the state file (`version`). */
  version: number;
  /** The bytes, base64. */
  data: string;
  size: number;
  /** `created_by_user: locked_by_user`: whoever held the lock when it was posted. */
  created_by_user_id: number | null;
  /** The job whose token posted it (`build`). */
  ci_build_id: number | null;
  created_at: string;
}

export interface TerraformState {
  states: Table<TerraformStateRecord>;
  versions: Table<TerraformStateVersionRecord>;
  /** Bytes of every version together. */
  bytes: number;
  idx: {
    /** `<project id>/<name>` -> state id */
    byName: Index;
    /** project id -> state ids */
    byProject: MultiIndex;
    /** state id -> version ids */
    versions: MultiIndex;
  };
}

export const emptyTerraform = (): TerraformState => ({
  states: emptyTable(),
  versions: emptyTable(),
  bytes: 0,
  idx: { byName: emptyIndex(), byProject: emptyIndex(), versions: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    terraform: TerraformState;
  }
}
