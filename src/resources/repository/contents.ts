/**
 * What a project's repository holds: the objects its branches and tags reach. The object store is the
 * instance's, shared by every project, so a bare id (a blob's sha) must be checked against this before
 * it opens anything, and the repository's size is the sum of these objects.
 */
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { ObjectStore } from './objects.js';
import { extend, reachOf } from './reach.js';
import { initialCommit, refTips } from './refs.js';

/** Whether the project's refs reach the object (`Gitlab::Git::Blob.raw` finds only the repository's). */
export const inRepository = (st: PlatformState, project: ProjectRecord, id: string): boolean =>
  reachOf(st, project, refTips).objects.has(id);

/**
 * The repository's size: the payload bytes of the objects its refs reach. A repository never written
 * to is its initial commit, whose size only its creation time's digits change: counted without storing
 * it, so that ordering a large world by size stores nothing.
 */
export function repositoryBytes(st: PlatformState, project: ProjectRecord): number {
  if (tget(st.refs, project.id) !== undefined) return reachOf(st, project, refTips).bytes;
  if (project.default_branch === null) return 0;
  const time = Math.floor(Date.parse(project.created_at) / 1000);
  return INITIAL_BYTES + 2 * String(time).length;
}

/** The initial commit's objects, less the digits of its time (written twice: author and committer). */
const INITIAL_BYTES = (() => {
  const scratch = new ObjectStore();
  const id = initialCommit(scratch, { created_at: '1970-01-01T00:00:00Z' } as ProjectRecord);
  const seen = new Set<string>();
  return extend(scratch, seen, [id]) - 2 * '0'.length;
})();
