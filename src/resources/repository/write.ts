/**
 * Committing to a branch (`Commits::CreateService`, `Files::MultiService` and Gitaly's
 * `UserCommitFiles`): the actions are checked against the start commit's tree, the changed trees and
 * the commit go into the object store, and the caller moves the branch in its one write. A refused
 * request may leave unreachable objects behind (as git does), never a moved ref.
 */
import type { Draft } from 'immer';
import type { Ctx } from '../../core/context.js';
import { apiError } from '../../core/errors.js';
import { branchMoved } from '../../core/push.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { walk } from './history.js';
import { TREE_MODE, type Mode, type ObjectStore, type Signature } from './objects.js';
import { peel, refTarget, resolveCommit, setRef } from './refs.js';
import { objectsOf } from './store.js';
import { pushRuleRefusal } from '../push_rules/check.js';
import { applyChanges, entryAt, MAX_PATH_DEPTH, splitPath, type Change } from './tree.js';

export type ActionKind = 'create' | 'delete' | 'move' | 'update' | 'chmod';

export interface Action {
  action: ActionKind;
  file_path: string;
  previous_path?: string;
  content?: string;
  encoding?: 'text' | 'base64';
  last_commit_id?: string;
  execute_filemode?: boolean;
}

export interface CommitRequest {
  branch: string;
  message: string;
  actions: readonly Action[];
  start_branch?: string;
  start_sha?: string;
  /** Where `start_branch` or `start_sha` is looked up (a fork's parent); the project itself by default. */
  start_project?: Project;
  force?: boolean;
  author_name?: string;
  author_email?: string;
}

/** The most actions one commit takes, and the most bytes of content. */
export const MAX_ACTIONS = 1_000;
export const MAX_CONTENT_BYTES = 64 * 1024 * 1024;

const fail = (message: string) => apiError(400, message);

/** The user as a commit signature (`commit_email`, else the primary email). */
export const signatureOf = (u: UserRecord, time: number): Signature => ({
  name: u.name,
  email: u.commit_email ?? u.email,
  time,
});

/** The last commit from `head` that changed `path` (`last_commit_for_path`). */
export function lastCommitFor(store: ObjectStore, head: string, path: string): string | undefined {
  return walk(store, [head], { path, limit: 5_000 })[0];
}

/**
 * `.git` as a path component, as git's `verify_path` and libgit2's `git_path_validate` refuse it
 * (case-insensitively, and in the spellings NTFS takes for it, `core.protectNTFS`: trailing dots and
 * spaces, the 8.3 short name `git~1`).
 */
const DOT_GIT = /^(?:\.git[. ]*|git~1)$/i;

/**
 * The checks of a path an action writes: Gitaly's `UserCommitFiles` (nothing empty, no `//`, no
 * traversal) and libgit2's index (`invalid path: '...'` for a component git's tree format cannot hold:
 * a NUL byte ends a name there, `.git` would be the repository itself). A leading or trailing `/` is
 * dropped as Gitaly's cleaning drops it. Nothing refused reaches the object store.
 */
export function checkPath(path: string): string {
  const invalid = () => fail(`invalid path: '${path}'`);
  const parts = splitPath(path);
  if (parts.length === 0) throw fail('You must provide a file path');
  if (path.includes('\0') || path.includes('//')) throw invalid();
  if (parts.some((p) => p === '..' || p === '.')) throw fail('Path cannot include directory traversal');
  if (parts.length > MAX_PATH_DEPTH || parts.some((p) => DOT_GIT.test(p))) throw invalid();
  return parts.join('/');
}

interface Start {
  /** The commit the new one builds on; undefined for the first commit of an empty repository. */
  parent: string | undefined;
  tree: string | undefined;
}

/** `validate!` of `Commits::CreateService`: where the commit starts. */
function startOf(st: PlatformState, p: Project, req: CommitRequest): Start {
  const store = objectsOf(st);
  const source = req.start_project ?? p;
  const branchHead = refTarget(st, p, 'branch', req.branch);
  const empty = p.default_branch === null && branchHead === undefined && !hasAnyBranch(st, p);
  let parent: string | undefined;
  if (req.start_sha !== undefined) {
    parent = resolveCommit(st, source, req.start_sha);
    if (parent === undefined) throw fail(`Cannot find start_sha '${req.start_sha}'`);
  } else {
    const start = req.start_branch ?? req.branch;
    const head = refTarget(st, source, 'branch', start);
    // `validate_on_branch!` asks the start project: an empty one has no branch to be on.
    const sourceEmpty = source === p ? empty : source.default_branch === null && !hasAnyBranch(st, source);
    if (head === undefined && !sourceEmpty)
      throw fail('You can only create or edit files when you are on a branch');
    parent = head === undefined ? undefined : peel(store, head);
  }
  const different =
    source.id !== p.id || req.start_sha !== undefined || (req.start_branch ?? req.branch) !== req.branch;
  if (different && branchHead !== undefined && !req.force)
    throw fail(
      `A branch called '${req.branch}' already exists. Switch to that branch in order to make changes`,
    );
  return { parent, tree: parent === undefined ? undefined : store.commit(parent)?.tree };
}

const hasAnyBranch = (st: PlatformState, p: Project) =>
  Object.keys(tget(st.refs, p.id)?.branches ?? {}).length > 0;

function contentOf(a: Action): Buffer {
  const text = a.content ?? '';
  return a.encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
}

/**
 * Builds the commit the actions make (objects only) and returns its id; throws the platform's 400 for
 * an action the tree refuses.
 */
export function buildCommit(
  st: PlatformState,
  p: Project,
  req: CommitRequest,
  committer: Signature,
): { id: string; parent: string | undefined } {
  const store = objectsOf(st);
  const start = startOf(st, p, req);
  const changes = new Map<string, Change>();
  // The tree as the actions so far left it: later actions see earlier ones.
  const at = (path: string) => {
    if (changes.has(path)) return changes.get(path) ?? undefined;
    return start.tree === undefined ? undefined : entryAt(store, start.tree, path);
  };
  const isDir = (path: string) =>
    [...changes.keys()].some((k) => k.startsWith(`${path}/`) && changes.get(k) !== null) ||
    (start.tree !== undefined && entryAt(store, start.tree, path)?.mode === TREE_MODE);
  for (const a of req.actions) {
    const path = checkPath(a.file_path);
    const source = a.action === 'move' ? checkPath(a.previous_path ?? '') : path;
    if (a.last_commit_id !== undefined && start.parent !== undefined) {
      const last = lastCommitFor(store, start.parent, source);
      if (last !== undefined && last !== a.last_commit_id)
        throw fail(`The file has changed since you started editing it: ${source}`);
    }
    const existing = at(source);
    const file = existing && existing.mode !== TREE_MODE ? existing : undefined;
    switch (a.action) {
      case 'create': {
        if (isDir(path)) throw fail('A directory with this name already exists');
        if (at(path)) throw fail('A file with this name already exists');
        changes.set(path, { mode: '100644', id: store.putBlob(contentOf(a)) });
        break;
      }
      case 'update':
      case 'delete':
      case 'chmod': {
        if (!file) throw fail("A file with this name doesn't exist");
        if (a.action === 'delete') changes.set(path, null);
        else if (a.action === 'update')
          changes.set(path, { mode: file.mode, id: store.putBlob(contentOf(a)) });
        else changes.set(path, { mode: (a.execute_filemode ? '100755' : '100644') as Mode, id: file.id });
        break;
      }
      case 'move': {
        if (!file) throw fail("A file with this name doesn't exist");
        if (source !== path && at(path)) throw fail('A file with this name already exists');
        const id = a.content === undefined ? file.id : store.putBlob(contentOf(a));
        changes.set(source, null);
        changes.set(path, { mode: file.mode, id });
        break;
      }
    }
  }
  const tree = applyChanges(store, start.tree, changes);
  const author =
    req.author_name !== undefined || req.author_email !== undefined
      ? {
          name: req.author_name ?? committer.name,
          email: req.author_email ?? committer.email,
          time: committer.time,
        }
      : committer;
  const parents = start.parent === undefined ? [] : [start.parent];
  return {
    id: store.putCommit({ tree, parents, author, committer, message: req.message }),
    parent: start.parent,
  };
}

/** Who moved a branch, and when: the push hooks (src/core/push.ts) are told. */
export interface Pusher {
  userId: number;
  now: string;
}

/** Points a branch at `id` (null removes it) and tells the areas that follow pushes. */
export function updateBranch(
  d: Draft<PlatformState>,
  p: Project,
  branch: string,
  id: string | null,
  by: Pusher,
): void {
  const project = tget(d.projects, p.id)!;
  const before = refTarget(d as PlatformState, project, 'branch', branch);
  setRef(d, project, 'branch', branch, id);
  const store = objectsOf(d as PlatformState);
  branchMoved(d, {
    projectId: p.id,
    branch,
    before: before === undefined ? undefined : peel(store, before),
    after: id === null ? undefined : peel(store, id),
    userId: by.userId,
    now: by.now,
  });
}

/** Moves the branch to the new commit; the first commit of an empty repository makes its default branch. */
export function moveBranch(
  d: Draft<PlatformState>,
  p: Project,
  branch: string,
  id: string,
  by: Pusher,
): void {
  const project = tget(d.projects, p.id)!;
  if (project.default_branch === null) project.default_branch = branch;
  updateBranch(d, project as Project, branch, id, by);
}

/** The pusher of a request: its user and the instance clock. */
export const pusherOf = (c: Ctx): Pusher => ({
  userId: c.get('viewer').user?.id ?? 0,
  now: c.get('fx').clock.iso(),
});

/**
 * The project's push rule on a change the API makes (Gitaly runs the pre-receive hook for it): the
 * refusal is the request's 400, without the hook's `GitLab: ` prefix. `id` is the new commit when the
 * change brings one.
 */
export function refuseByPushRule(
  st: PlatformState,
  p: Project,
  kind: 'branch' | 'tag',
  name: string,
  change: { id?: string; deleting?: boolean } = {},
): void {
  const refusal = pushRuleRefusal(st, objectsOf(st), p.id, {
    kind,
    name,
    creating: refTarget(st, p, kind, name) === undefined,
    deleting: change.deleting ?? false,
    commits: change.id === undefined ? [] : [change.id],
    fromWeb: true,
    user: null,
  });
  if (refusal !== undefined) throw fail(refusal);
}
