/**
 * The repository area's slice: the instance's object store (outside immer's drafting, see objects.ts),
 * the protected branches and the commit statuses (comments on commits are notes, in the issuables area).
 * Branch and tag heads live in the core `refs` table, inside the immer state, so that moving a ref is
 * part of a request's one write.
 */
import { emptyIndex, emptyTable, type MultiIndex, type Table } from '../../core/table.js';
import { isDraft, original, type Draft } from 'immer';
import type { PlatformState } from '../../core/state.js';
import { ObjectStore, type PackedObjects } from './objects.js';

export interface ProtectedBranchRecord {
  id: number;
  project_id: number;
  /** A branch name or a wildcard (`release/*`). */
  name: string;
  push_access_level: number;
  merge_access_level: number;
  unprotect_access_level: number;
  allow_force_push: boolean;
  code_owner_approval_required: boolean;
}

/** A status an integration posted on a commit (`GenericCommitStatus`). */
export interface CommitStatusRecord {
  id: number;
  project_id: number;
  sha: string;
  ref: string;
  name: string;
  status: 'pending' | 'running' | 'success' | 'failed' | 'canceled';
  target_url: string | null;
  description: string | null;
  coverage: number | null;
  author_id: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** The pipeline it belongs to (`find_or_create_pipeline`: an external one when the commit had none). */
  pipeline_id?: number;
}

export interface RepositoryState {
  /**
   * The `ObjectStore`, or the packed objects of a state file until first use: read only through
   * `objectsOf` (typed opaquely, since immer's draft type of a class with private fields is another type).
   */
  objects: unknown;
  protected: Table<ProtectedBranchRecord>;
  statuses: Table<CommitStatusRecord>;
  idx: {
    /** project id -> protected branch ids */
    protectedBy: MultiIndex;
    /** project id -> commit status ids */
    statusesBy: MultiIndex;
  };
}

export const emptyRepository = (): RepositoryState => ({
  objects: new ObjectStore(),
  protected: emptyTable(),
  statuses: emptyTable(),
  idx: { protectedBy: emptyIndex(), statusesBy: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    repository: RepositoryState;
  }
}

// A state file holds the objects packed; the first read of such a state revives them once.
const revived = new WeakMap<object, ObjectStore>();

/** The instance's object store (on a draft too: a packed slice is read through its original). */
export function objectsOf(st: PlatformState): ObjectStore {
  const slice = isDraft(st.repository) ? (original(st.repository) ?? st.repository) : st.repository;
  const o = slice.objects;
  if (o instanceof ObjectStore) return o;
  const packed = (o ?? {}) as PackedObjects;
  let store = revived.get(packed);
  if (!store) {
    store = new ObjectStore();
    store.unpack(packed);
    revived.set(packed, store);
  }
  return store;
}

/** The store for a write: a revived one is put in the draft, so that the next save carries its additions. */
export function objectsFor(d: Draft<PlatformState>): ObjectStore {
  const store = objectsOf(d as PlatformState);
  if (!(d.repository.objects instanceof ObjectStore)) d.repository.objects = store;
  return store;
}
