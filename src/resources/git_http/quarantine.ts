/**
 * What a push may build on, and receive-pack's connectivity check against it. On the platform every
 * project is a repository of its own: a pushed pack may leave out (thin pack, REF_DELTA bases) or name
 * (parents, tree entries, ref commands) only objects that repository has: what its refs reach, and, for
 * a fork, what its object pool holds (the fork network root's objects, through `objects/info/alternates`).
 * The instance's object store holds every project's objects, so a bare id found there proves nothing.
 *
 * The pack's objects wait in a store of their own (receive-pack's quarantine, `tmp_objdir`), staged
 * into the instance's store while the platform's checks read them, and admitted only with the accepted
 * ref updates: a declined push leaves nothing behind to name with a later empty pack.
 */
import type { PlatformState } from '../../core/state.js';
import { tget } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import type { ObjectStore, ObjectType } from '../repository/objects.js';
import { reachOf } from '../repository/reach.js';
import { refTips } from '../repository/refs.js';

/** The objects a repository already has (every one with all it reaches). */
export interface Bases {
  has(id: string): boolean;
}

/** The most forks a chain is followed up to its root (a guard: `forked_from_project_id` makes no cycle). */
const MAX_FORK_DEPTH = 1_000;

/**
 * Whether a project's objects go into a pool its forks borrow from (`Project#git_objects_poolable?`:
 * neither the project nor its repository feature private, so no private object reaches a pool).
 */
const poolable = (p: Project) =>
  p.visibility !== 'private' &&
  (p.repository_access_level === 'enabled' || p.repository_access_level === 'public');

/**
 * The pool a fork borrows from: its fork network root's repository (`PoolRepository#source_project`),
 * when that one is poolable. A project that is no fork has none.
 */
function poolSource(st: PlatformState, project: Project): Project | undefined {
  let root = project;
  for (let i = 0; i < MAX_FORK_DEPTH && root.forked_from_project_id !== null; i++) {
    const up = tget(st.projects, root.forked_from_project_id) as Project | undefined;
    if (!up) break;
    root = up;
  }
  return root !== project && poolable(root) ? root : undefined;
}

/**
 * What a push to `project` may build on: the objects its refs reach and those of its pool's source,
 * read from the reachability index (`Reach`, kept per version of each project's refs), not walked.
 */
export function basesOf(st: PlatformState, project: Project): Bases {
  const own = reachOf(st, project, refTips).objects;
  const source = poolSource(st, project);
  if (source === undefined) return own;
  const pool = reachOf(st, source, refTips).objects;
  return { has: (id) => own.has(id) || pool.has(id) };
}

/** The objects of `store` a repository with `bases` can read: the lookup a thin pack's deltas get. */
export const basesView = (store: ObjectStore, bases: Bases): Pick<ObjectStore, 'type' | 'raw'> => ({
  type: (id: string) => (bases.has(id) ? store.type(id) : undefined),
  raw: (id: string, type?: ObjectType) => (bases.has(id) ? store.raw(id, type) : undefined),
});

/** What an object names: a tag's object, a commit's tree and parents, a tree's entries (not submodules). */
function links(pack: ObjectStore, id: string): string[] {
  const type = pack.type(id);
  if (type === 'tag') return [pack.tag(id)!.object];
  if (type === 'commit') {
    const c = pack.commit(id)!;
    return [c.tree, ...c.parents];
  }
  if (type === 'tree') {
    const out: string[] = [];
    for (const e of pack.tree(id)!) if (e.mode !== '160000') out.push(e.id);
    return out;
  }
  return [];
}

/**
 * receive-pack's `check_connected` (`rev-list --objects <new> --not --all`): whether everything `tip`
 * reaches is in the pack or among the bases. Each pack object is decided once for all the commands of a
 * push (memoised, iteratively: a walk bounded by the pack, whose size `PackLimits` bounds), and the
 * bases are not walked at all.
 */
export function connectivity(pack: ObjectStore, bases: Bases): (tip: string) => boolean {
  const done = new Map<string, boolean>();
  const expanded = new Set<string>();
  return (tip) => {
    const stack = [tip];
    while (stack.length > 0) {
      const id = stack[stack.length - 1]!;
      if (done.has(id)) stack.pop();
      else if (bases.has(id)) {
        done.set(id, true);
        stack.pop();
      } else if (!pack.has(id)) {
        done.set(id, false);
        stack.pop();
      } else if (!expanded.has(id)) {
        expanded.add(id);
        for (const next of links(pack, id)) if (!done.has(next)) stack.push(next);
      } else {
        // Every link was decided above it on the stack (object ids admit no cycle).
        done.set(
          id,
          links(pack, id).every((next) => done.get(next) === true),
        );
        stack.pop();
      }
    }
    return done.get(tip) === true;
  };
}
