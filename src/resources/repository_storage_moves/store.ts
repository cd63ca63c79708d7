/**
 * Repository storage moves (`RepositoryStorageMovable`): one model for the three kinds the platform
 * has, `Projects::RepositoryStorageMove`, `Snippets::RepositoryStorageMove` and (EE)
 * `Groups::RepositoryStorageMove` (a group's wiki), each in a table and id sequence of its own.
 */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

export type MoveKind = 'project' | 'snippet' | 'group';
export const MOVE_KINDS: readonly MoveKind[] = ['project', 'snippet', 'group'];

/** The state machine's states (`state :initial, value: 1` ...), by their names. */
export type MoveState =
  'initial' | 'scheduled' | 'started' | 'finished' | 'failed' | 'replicated' | 'cleanup_failed';

export interface StorageMoveRecord {
  id: number;
  kind: MoveKind;
  /** The project, snippet or group id. */
  container_id: number;
  state: MoveState;
  source_storage_name: string;
  destination_storage_name: string;
  created_at: string;
  updated_at: string;
}

export interface StorageMovesState {
  project: Table<StorageMoveRecord>;
  snippet: Table<StorageMoveRecord>;
  group: Table<StorageMoveRecord>;
  /**
   * `<kind>:<id>` -> the storage of a snippet's repository or a group's wiki, when not `default`
   * (a project's is its record's `repository_storage`).
   */
  storages: Index<string>;
  idx: {
    /** `<kind>:<container id>` -> move ids, in creation order */
    byContainer: MultiIndex;
  };
}

export const emptyStorageMoves = (): StorageMovesState => ({
  project: emptyTable(),
  snippet: emptyTable(),
  group: emptyTable(),
  storages: emptyIndex(),
  idx: { byContainer: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    storage_moves: StorageMovesState;
  }
}
