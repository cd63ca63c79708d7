/**
 * `PUT /projects/:id/merge_requests/:merge_request_iid/rebase` (`MergeRequest#rebase_async`): the
 * answer comes at once (202, `rebase_in_progress`), and `RebaseWorker` runs
 * `MergeRequests::RebaseService` in the background, here a job due when the rebase ends on the
 * instance clock. The source branch is rebased onto the target branch's head (`Repository#rebase`,
 * Gitaly's `UserRebaseConfirmable`) and moved as a push by the user (`-o ci.skip` with `skip_ci`):
 * push events and hooks, the merge request's new diff and head ref, a new pipeline unless skipped.
 * A rebase that cannot be done leaves the branch and sets `merge_error`.
 */
import type { Draft } from 'immer';
import { state, write, type Ctx, type Fx } from '../../core/context.js';
import { forbidden } from '../../core/errors.js';
import { scheduleJob } from '../../core/jobs.js';
import { requestBase } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { PlatformState } from '../../core/state.js';
import { tget } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { announceReceived, receiveMoves } from '../repository/post-receive.js';
import { rebaseOnto } from '../repository/rebase.js';
import { peel, refTarget } from '../repository/refs.js';
import { objectsOf } from '../repository/store.js';
import { signatureOf } from '../repository/write.js';
import { abilities } from './access.js';
import { findMergeRequest, loadProject } from './common.js';

/** How long a rebase runs on the instance clock (the platform's `RebaseWorker`). */
export const REBASE_MS = 1000;

const REBASE_JOB = 'merge_request.rebase';

const iidShape = { merge_request_iid: p.int().required() };

/** `MergeRequests::RebaseService::REBASE_ERROR`, saved on the merge request (`save_message_on_model`). */
export const REBASE_ERROR = 'Rebase failed. Please rebase locally';

/** `rebase_async`: the rebase runs for REBASE_MS, during which `include_rebase_in_progress` says so. */
function rebase(c: Ctx): Response {
  const prm = parse(c, { ...iidShape, skip_ci: p.bool() });
  const project = loadProject(c);
  const mr = findMergeRequest(c, project, prm.merge_request_iid);
  if (!abilities(state(c), c.get('viewer').user, project).developer)
    throw forbidden('Cannot push to source branch');
  const until = c.get('fx').clock.ms() + REBASE_MS;
  const payload = {
    mr: mr.id,
    user: c.get('viewer').user!.id,
    skip_ci: prm.skip_ci === true,
    base: requestBase(c),
  };
  write(c, (d) => {
    tget(d.issuables.mergeRequests, mr.id)!.rebase_until_ms = until;
    scheduleJob(d, REBASE_JOB, until, payload);
  });
  return c.json({ rebase_in_progress: true }, 202);
}

/** The job: `RebaseService#execute` at the moment the rebase ends. */
function runRebase(
  d: Draft<PlatformState>,
  payload: Record<string, unknown>,
  dueMs: number,
  fx: Fx,
): (() => void) | undefined {
  const st = d as PlatformState;
  const mr = tget(st.issuables.mergeRequests, payload.mr as number);
  if (!mr) return;
  const record = tget(d.issuables.mergeRequests, mr.id)!;
  const userId = payload.user as number;
  const user = tget(st.users, userId);
  const source = tget(st.projects, mr.source_project_id) as Project | undefined;
  const target = tget(st.projects, mr.project_id) as Project | undefined;
  const store = objectsOf(st);
  const head = source && refTarget(st, source, 'branch', mr.source_branch);
  const onto = target && refTarget(st, target, 'branch', mr.target_branch);
  const rebased =
    user && head !== undefined && onto !== undefined
      ? rebaseOnto(store, peel(store, head), peel(store, onto), signatureOf(user, Math.floor(dueMs / 1000)))
      : undefined;
  if (rebased === undefined || !source || head === undefined) {
    record.merge_error = REBASE_ERROR;
    return;
  }
  record.merge_error = null;
  if (rebased === peel(store, head)) return;
  const base = payload.base as string;
  const now = new Date(dueMs).toISOString();
  const received = receiveMoves(
    d,
    source,
    [{ kind: 'branch', name: mr.source_branch, id: rebased }],
    { userId, now },
    { userId, base, skipCi: payload.skip_ci === true },
  );
  return () => announceReceived(fx, base, received);
}

export function rebaseRoutes(r: ApiRouter): void {
  r.job(REBASE_JOB, (d, job, fx) => runRebase(d, job.payload, job.due_ms, fx));
  r.put('/projects/:id/merge_requests/:merge_request_iid/rebase', rebase);
}
