/** The repository's entities (`lib/api/entities/commit.rb`, `branch.rb`, `tag.rb`, `tree_object.rb`). */
import { state, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import type { Project } from '../projects/model.js';
import { userRenderer } from '../users/entities.js';
import { tget } from '../../core/table.js';
import { canPushToBranch, protectionsOf } from './access.js';
import { isAncestor } from './history.js';
import { offsetText, type CommitObject, type ObjectStore } from './objects.js';
import { names, peel, refTarget } from './refs.js';
import { objectsOf } from './store.js';

/**
 * A git time as the platform shows it: in the signer's own offset (`Gitlab::Git::Commit`'s
 * `init_date_from_gitaly` reads Gitaly's `timezone`), with milliseconds: `2021-03-01T10:00:00.000+01:00`.
 */
export const gitTime = (seconds: number, offset = 0) => {
  const zone = offsetText(offset);
  return new Date((seconds + offset * 60) * 1000)
    .toISOString()
    .replace('Z', `${zone.slice(0, 3)}:${zone.slice(3)}`);
};

export const projectWebUrl = (c: Ctx, p: ProjectRecord) => `${requestBase(c)}/${p.path_with_namespace}`;

/** A commit's title: the first line of its message. */
export const commitTitle = (message: string) => message.split('\n', 1)[0]!;

/** `Entities::Commit`; an id the store does not know (a ref given a bare sha) shows its id only. */
export function commitEntity(c: Ctx, p: ProjectRecord, id: string, commit?: CommitObject) {
  const o = commit ?? objectsOf(state(c)).commit(id);
  return {
    id,
    short_id: id.slice(0, 8),
    created_at: o ? gitTime(o.committer.time, o.committer.offset) : null,
    parent_ids: o ? [...o.parents] : [],
    title: o ? commitTitle(o.message) : '',
    message: o ? o.message : '',
    author_name: o?.author.name ?? null,
    author_email: o?.author.email ?? null,
    authored_date: o ? gitTime(o.author.time, o.author.offset) : null,
    committer_name: o?.committer.name ?? null,
    committer_email: o?.committer.email ?? null,
    committed_date: o ? gitTime(o.committer.time, o.committer.offset) : null,
    trailers: {},
    web_url: `${projectWebUrl(c, p)}/-/commit/${id}`,
  };
}

/** `ProtectedBranch.developers_can?`: a rule for the branch lets developers push (or merge). */
function developersCan(st: PlatformState, p: ProjectRecord, branch: string, what: 'push' | 'merge') {
  return protectionsOf(st, p.id, branch).some(
    (r) => (what === 'push' ? r.push_access_level : r.merge_access_level) === 30,
  );
}

/** `merged_to_root_ref?`: another head than the default branch's, and one of its ancestors. */
function mergedToRoot(store: ObjectStore, st: PlatformState, p: ProjectRecord, name: string, head: string) {
  const d = p.default_branch;
  if (d === null || name === d) return false;
  const root = refTarget(st, p, 'branch', d);
  if (root === undefined || root === head) return false;
  return isAncestor(store, head, root);
}

/** `Entities::Branch`. */
export function branchEntity(c: Ctx, p: Project, name: string) {
  const st = state(c);
  const store = objectsOf(st);
  const head = peel(store, refTarget(st, p, 'branch', name)!);
  return {
    name,
    commit: commitEntity(c, p, head),
    merged: mergedToRoot(store, st, p, name, head),
    protected: protectionsOf(st, p.id, name).length > 0,
    developers_can_push: developersCan(st, p, name, 'push'),
    developers_can_merge: developersCan(st, p, name, 'merge'),
    can_push: canPushToBranch(st, c.get('viewer').user, p, name),
    default: p.default_branch === name,
    web_url: `${projectWebUrl(c, p)}/-/tree/${name}`,
  };
}

/** Branch names as `BranchesFinder` lists them: sorted by name, `search` anywhere (`^x` / `x$` anchor). */
export function branchNames(st: PlatformState, p: ProjectRecord, search?: string): string[] {
  const all = names(st, p, 'branch').sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (!search) return all;
  const q = search.toLowerCase();
  if (q.startsWith('^')) return all.filter((n) => n.toLowerCase().startsWith(q.slice(1)));
  if (q.endsWith('$')) return all.filter((n) => n.toLowerCase().endsWith(q.slice(0, -1)));
  return all.filter((n) => n.toLowerCase().includes(q));
}

/** `UserBasic` of a record's author, or null for a user that is gone. */
export function authorEntity(c: Ctx, userId: number) {
  const u = tget(state(c).users, userId);
  return u ? userRenderer(c).basic(u) : null;
}
