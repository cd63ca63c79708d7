/** A project's push mirrors (`RemoteMirror`): records only, fauxlab pushes nowhere. */
import { emptyIndex, emptyTable, type MultiIndex, type Table } from '../../core/table.js';

export interface RemoteMirrorRecord {
  id: number;
  project_id: number;
  /** As given, credentials included: the API shows it masked (`safe_url`). */
  url: string;
  enabled: boolean;
  only_protected_branches: boolean;
  keep_divergent_refs: boolean | null;
  /** The mirror's state machine; fauxlab never starts an update, so it stays `none`. */
  update_status: 'none' | 'started' | 'finished' | 'failed' | 'to_retry';
  last_update_at: string | null;
  last_update_started_at: string | null;
  last_successful_update_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface RemoteMirrorsState {
  records: Table<RemoteMirrorRecord>;
  idx: { byProject: MultiIndex };
}

export const emptyRemoteMirrors = (): RemoteMirrorsState => ({
  records: emptyTable(),
  idx: { byProject: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    remoteMirrors: RemoteMirrorsState;
  }
}
