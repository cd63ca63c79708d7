/**
 * What follows refs moving, whoever moved them (`PostReceive` with `Git::BranchPushService`,
 * `Git::BranchHooksService`, `Git::TagPushService`): a `git push` and the API's writes alike, since on
 * the platform Gitaly's operations (`UserCommitFiles`, `UserCreateBranch`, `UserDeleteBranch`) run the
 * same hooks. In the write that moved the refs: the push events (`EventCreateService#push`), the
 * project's activity, the default branch's protection on the first push
 * (`Projects::ProtectDefaultBranchService`), the push pipelines, and the pipelines of the open merge
 * requests from a moved branch (`MergeRequests::RefreshService#refresh_pipelines_on_merge_requests`).
 * After it: the push hooks and integrations, the pipelines' events, and the pusher's activity.
 */
import type { Draft } from 'immer';
import { recordActivity } from '../../core/activity.js';
import { write, type Ctx, type Fx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { PipelineVariable, PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { mergeRequestPipelineIfAny } from '../ci/mr-pipelines.js';
import { projectVariables } from '../ci/model.js';
import { queuePipeline, SKIP_PATTERN, skipPipeline } from '../ci/pipelines.js';
import { ciConfigAt, yamlJobs } from '../ci/yaml-pipeline.js';
import { recordPush } from '../events/store.js';
import { dispatch } from '../integrations/events.js';
import type { PushedCommits } from '../integrations/kinds.js';
import { openMergeRequestsFrom } from '../issuables/model/merge-requests.js';
import type { Project } from '../projects/model.js';
import { ancestors, walk } from './history.js';
import { protectDefaultBranch } from './protect.js';
import { BLANK_SHA, peel, refTarget, setRef, type RefKind } from './refs.js';
import { objectsOf } from './store.js';
import { moveBranch, pusherOf, updateBranch, type Pusher } from './write.js';

/** One ref that moved: its old and new heads, `BLANK_SHA` for none (created, removed). */
export interface RefChange {
  kind: RefKind;
  name: string;
  old: string;
  next: string;
}

/** What the write recorded, for the step after it. */
export interface Received {
  projectId: number;
  userId: number | null;
  changes: readonly RefChange[];
  /** The repository had no branch before (the first push: every commit of the default branch counts). */
  wasEmpty: boolean;
  pipelines: number[];
}

export interface ReceiveOptions {
  userId: number | null;
  now: string;
  /** The repository was empty before these changes (its default branch unset). */
  wasEmpty: boolean;
  /**
   * `git push -o ci.skip`: the push pipelines are skipped (`Chain::Skip#push_option_skips_ci?`), and
   * the merge requests' pipelines are not made.
   */
  skipCi?: boolean;
  /** The request's base URL, for the merge request pipelines' variables. */
  base: string;
  /** `git push -o ci.variable="KEY=value"`: variables of the push pipelines. */
  variables?: readonly PipelineVariable[];
}

/** `Event::RESET_PROJECT_ACTIVITY_INTERVAL`: a project's `last_activity_at` moves at most hourly. */
const PROJECT_ACTIVITY_MS = 3_600_000;

/**
 * The post-receive work inside the write that moved the refs (after the refs and `branchMoved`): push
 * events, activity, protection, pipelines. Returns what `announceReceived` sends afterwards.
 */
export function postReceive(
  d: Draft<PlatformState>,
  projectId: number,
  changes: readonly RefChange[],
  o: ReceiveOptions,
): Received {
  const received: Received = {
    projectId,
    userId: o.userId,
    changes,
    wasEmpty: o.wasEmpty,
    pipelines: [],
  };
  const project = tget(d.projects, projectId);
  if (!project || changes.length === 0) return received;
  if (o.userId !== null) {
    for (const ch of changes)
      recordPush(d, {
        project_id: projectId,
        author_id: o.userId,
        ref: ch.name,
        ref_type: ch.kind,
        action: ch.old === BLANK_SHA ? 'created' : ch.next === BLANK_SHA ? 'removed' : 'pushed',
        commit_from: ch.old === BLANK_SHA ? null : ch.old,
        commit_to: ch.next === BLANK_SHA ? null : ch.next,
        created_at: o.now,
      });
    // `Event#update_project`: the push is the project's activity.
    if (Date.parse(o.now) - Date.parse(project.last_activity_at) >= PROJECT_ACTIVITY_MS)
      project.last_activity_at = o.now;
  }
  const first = changes.find(
    (ch) => ch.kind === 'branch' && ch.next !== BLANK_SHA && ch.name === project.default_branch,
  );
  if (o.wasEmpty && first) protectDefaultBranch(d, projectId);
  for (const ch of changes) {
    if (ch.next === BLANK_SHA) continue;
    const id = pushPipeline(d, project, ch, o.userId, o.now, o.variables ?? [], o.skipCi === true);
    if (id !== undefined) received.pipelines.push(id);
  }
  if (o.skipCi) return received;
  for (const ch of changes) {
    if (ch.kind !== 'branch' || ch.next === BLANK_SHA) continue;
    for (const mr of openMergeRequestsFrom(d as PlatformState, projectId, ch.name)) {
      const id = mergeRequestPipelineIfAny(d, mr, o.userId, o.now, o.base);
      if (id !== undefined) received.pipelines.push(id);
    }
  }
  return received;
}

/**
 * The pipeline a pushed head gets from the project's CI file at that commit (source `push`), or none: no
 * CI file, or a file whose rules select no job. A file with errors makes no pipeline here either (the
 * platform records a failed one with its `yaml_errors`). A `[ci skip]` head or `-o ci.skip` makes a
 * skipped one once the file is found (`Chain::Skip` runs before the workflow rules and the jobs).
 */
function pushPipeline(
  d: Draft<PlatformState>,
  project: ProjectRecord,
  ch: RefChange,
  userId: number | null,
  now: string,
  variables: readonly PipelineVariable[],
  skipOption: boolean,
): number | undefined {
  const st = d as PlatformState;
  const store = objectsOf(st);
  const sha = peel(store, ch.next);
  const config = ciConfigAt(st, project, sha);
  if (config === undefined) return undefined;
  const pipeline = { project_id: project.id, ref: ch.name, tag: ch.kind === 'tag', sha, before_sha: ch.old };
  if (skipOption || SKIP_PATTERN.test(store.commit(sha)?.message ?? ''))
    return skipPipeline(d, { ...pipeline, user_id: userId, variables: [...variables], now });
  const vars: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const v of projectVariables(st, project.id)) vars[v.key] = v.value;
  for (const v of variables) vars[v.key] = v.value;
  const facts = { ref: ch.name, tag: ch.kind === 'tag', source: 'push' };
  const jobs = yamlJobs(st, project, sha, config, facts, vars, Date.parse(now));
  if ('error' in jobs) return undefined;
  return queuePipeline(d, {
    project_id: project.id,
    ref: ch.name,
    tag: ch.kind === 'tag',
    sha,
    before_sha: ch.old,
    user_id: userId,
    variables: [...variables],
    specs: jobs.specs,
    stages: jobs.stages,
    now,
  });
}

/**
 * After the write: each ref's push to the hooks and integrations (the payload's commits as
 * `Git::BranchHooksService` lists them), then the new pipelines, and the pusher's activity
 * (`Users::ActivityService` from `EventCreateService#push`).
 */
export function announceReceived(fx: Fx, base: string, received: Received): void {
  if (received.changes.length === 0) return;
  const st = fx.store.state;
  const project = tget(st.projects, received.projectId) as Project | undefined;
  if (!project) return;
  for (const ch of received.changes)
    dispatch(fx, base, received.userId, {
      kind: 'push',
      projectId: project.id,
      ref: ch.name,
      tag: ch.kind === 'tag',
      before: ch.old,
      after: ch.next,
      userId: received.userId,
      commits: pushedCommits(st, project, ch, received.wasEmpty),
    });
  for (const id of received.pipelines) dispatch(fx, base, received.userId, { kind: 'pipeline', id });
  const user = received.userId === null ? undefined : (tget(st.users, received.userId) as UserRecord);
  recordActivity(fx, user);
}

/** The most commits a push's hooks look at (`PROCESS_COMMIT_LIMIT`), and the most a payload lists. */
const PROCESS_COMMIT_LIMIT = 100;
const PAYLOAD_COMMITS = 20;

/**
 * `Git::BranchHooksService#commits` after the refs moved: a new default branch's latest commits (its
 * count every commit of it), a new branch's commits that the default branch does not reach, an updated
 * branch's commits since its old head; none for tags and deletions. The payload takes the last 20.
 */
function pushedCommits(
  st: PlatformState,
  p: Project,
  ch: RefChange,
  wasEmpty: boolean,
): PushedCommits | undefined {
  if (ch.kind !== 'branch' || ch.next === BLANK_SHA) return undefined;
  const store = objectsOf(st);
  let ids: string[];
  let total: number;
  if (ch.old === BLANK_SHA && (wasEmpty || ch.name === p.default_branch)) {
    ids = walk(store, [ch.next], { limit: PROCESS_COMMIT_LIMIT });
    total = ancestors(store, ch.next).size;
  } else {
    const base =
      ch.old !== BLANK_SHA
        ? ch.old
        : p.default_branch === null
          ? undefined
          : refTarget(st, p, 'branch', p.default_branch);
    const known = base === undefined ? new Set<string>() : ancestors(store, peel(store, base));
    ids = walk(store, [ch.next])
      .filter((id) => !known.has(id))
      .reverse()
      .slice(-PROCESS_COMMIT_LIMIT);
    total = ids.length;
  }
  return { ids: ids.slice(-PAYLOAD_COMMITS), total };
}

/** A branch or tag the API moves to `id` (`null` removes it). */
export interface RefMove {
  kind: RefKind;
  name: string;
  id: string | null;
}

/**
 * Inside a write: moves the refs as Gitaly's operations do (`UserCreateBranch`, `UserDeleteBranch`,
 * `UserCommitFiles`, `UserCreateTag`, `UserDeleteTag`) and runs the post-receive step those operations'
 * hooks start, as for a push. A branch given a commit on an empty repository becomes its default branch.
 */
export function receiveMoves(
  d: Draft<PlatformState>,
  p: Project,
  moves: readonly RefMove[],
  by: Pusher,
  o: { userId: number | null; base: string; skipCi?: boolean },
): Received {
  const project = tget(d.projects, p.id)! as Project;
  const wasEmpty = project.default_branch === null;
  const changes: RefChange[] = [];
  for (const m of moves) {
    const old = refTarget(d as PlatformState, project, m.kind, m.name) ?? BLANK_SHA;
    if (m.kind === 'tag') setRef(d, project, 'tag', m.name, m.id);
    else if (m.id === null) updateBranch(d, project, m.name, null, by);
    else moveBranch(d, project, m.name, m.id, by);
    changes.push({ kind: m.kind, name: m.name, old, next: m.id ?? BLANK_SHA });
  }
  return postReceive(d, p.id, changes, {
    userId: o.userId,
    now: by.now,
    wasEmpty,
    base: o.base,
    skipCi: o.skipCi,
  });
}

/**
 * Moves branches and tags through the API in one write (with `also`, the request's other changes in
 * the same write), then announces them as a push: the push and tag push hooks, the pipelines' events.
 */
export function pushRefs(
  c: Ctx,
  p: Project,
  moves: readonly RefMove[],
  also?: (d: Draft<PlatformState>) => void,
): void {
  const by = pusherOf(c);
  const userId = c.get('viewer').user?.id ?? null;
  const base = requestBase(c);
  const received = write(c, (d) => {
    const done = receiveMoves(d, p, moves, by, { userId, base });
    also?.(d);
    return done;
  });
  announceReceived(c.get('fx'), base, received);
}

/** `pushRefs` of branches. */
export function pushBranches(
  c: Ctx,
  p: Project,
  moves: readonly { branch: string; id: string | null }[],
): void {
  pushRefs(
    c,
    p,
    moves.map((m) => ({ kind: 'branch', name: m.branch, id: m.id })),
  );
}
