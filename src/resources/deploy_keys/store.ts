/**
 * Deploy keys (`DeployKey`, in the platform's `keys` table beside users' SSH keys) and their projects
 * (`DeployKeysProject`): one key record, enabled in as many projects as use it, each with its `can_push`.
 */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

export interface DeployKeyRecord {
  id: number;
  title: string;
  /** Sanitised: `<type> <base64>[ <comment>]`. */
  key: string;
  fingerprint: string;
  /** Who added it first. */
  user_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface DeployKeyLinkRecord {
  id: number;
  project_id: number;
  deploy_key_id: number;
  can_push: boolean;
  created_at: string;
  updated_at: string;
}

export interface DeployKeysState {
  keys: Table<DeployKeyRecord>;
  links: Table<DeployKeyLinkRecord>;
  idx: {
    /** fingerprint -> key id */
    fingerprints: Index;
    /** project id -> link ids */
    byProject: MultiIndex;
    /** key id -> link ids */
    byKey: MultiIndex;
    /** `<project id>:<key id>` -> link id */
    pairs: Index;
  };
}

export const emptyDeployKeys = (): DeployKeysState => ({
  keys: emptyTable(),
  links: emptyTable(),
  idx: { fingerprints: emptyIndex(), byProject: emptyIndex(), byKey: emptyIndex(), pairs: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    deployKeys: DeployKeysState;
  }
}
