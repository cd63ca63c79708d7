/** Pipeline triggers (`Ci::Trigger`): tokens that start a project's pipeline without a user's credentials. */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

export interface TriggerRecord {
  id: number;
  project_id: number;
  /** The user whose pipelines the trigger starts; null once that user is gone. */
  owner_id: number | null;
  description: string;
  /**
   * Kept as it is (the platform keeps it encrypted, not hashed): its owner reads it back in full, as on
   * the platform.
   */
  token: string;
  created_at: string;
  updated_at: string;
  /** When a pipeline was last triggered with it. */
  last_used: string | null;
}

export interface TriggersState {
  records: Table<TriggerRecord>;
  idx: {
    /** project id -> trigger ids */
    byProject: MultiIndex;
    /** token -> trigger id */
    tokens: Index;
  };
}

export const emptyTriggers = (): TriggersState => ({
  records: emptyTable(),
  idx: { byProject: emptyIndex(), tokens: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    triggers: TriggersState;
  }
}
