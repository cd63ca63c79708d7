/**
 * A merge request's pipelines (`lib/api/merge_requests.rb`: `GET`/`POST .../pipelines`) and merging when
 * the pipeline succeeds (`AutoMerge::MergeWhenPipelineSucceedsService`): the flag is set while the head
 * pipeline is active, and a job on the instance clock merges at the moment the pipeline finishes green.
 */
import type { Draft } from 'immer';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx, type Fx } from '../../core/context.js';
import { apiError, recordNotFound, unauthorized, validationError } from '../../core/errors.js';
import { cancelJobs, scheduleJob } from '../../core/jobs.js';
import { mergeBlocked } from '../../core/merge-checks.js';
import { paginate, paginationParams, requestBase } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { jsonResponse } from '../../core/respond.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { canCi } from '../ci/access.js';
import { PipelineRenderer } from '../ci/entities.js';
import { livePipeline } from '../ci/model.js';
import {
  headPipeline,
  mergeRequestJobs,
  mergeRequestPipelines,
  pipelineActive,
  queueMergeRequestPipeline,
} from '../ci/mr-pipelines.js';
import { emitEvent } from '../integrations/events.js';
import type { Project } from '../projects/model.js';
import { isAncestor } from '../repository/history.js';
import { objectsOf } from '../repository/store.js';
import { abilities, canSeeIssue } from './access.js';
import { announceMerged, receiveMerged } from './merge-push.js';
import { loadProject, mergeRequestByIid } from './common.js';
import { canMerge } from './entities.js';
import { headsOf } from './model/git.js';
import { checkedMergeStatus, defaultMergeCommitMessage, mergeMergeRequest } from './model.js';
import { MWPS_JOB } from './model/merge-requests.js';
import { systemNote } from './model/notes.js';
import type { MergeRequestRecord } from './store.js';

export { MWPS_JOB };

const iidShape = { id: p.str().required(), merge_request_iid: p.int().required() };

/** `find_merge_request_with_access(iid)`: 404 without the merge request, 403 without the feature. */
function readable(c: Ctx, project: Project, iid: number): MergeRequestRecord {
  const st = state(c);
  const mr = mergeRequestByIid(st, project.id, iid);
  if (!mr) throw recordNotFound('no such merge request');
  if (!abilities(st, c.get('viewer').user, project).mergeRequests)
    throw recordNotFound('merge requests hidden');
  return mr;
}

/** What a merge when the pipeline succeeds is asked with (`merge_params`). */
export interface AutoMergeParams {
  squash?: boolean;
  should_remove_source_branch?: boolean;
  message?: string;
  squash_message?: string;
}

/** The instant the pipeline finishes if nothing changes it, or undefined when it waits (a manual job). */
function finishAt(st: PlatformState, pipelineId: number, nowMs: number): number | undefined {
  const pl = tget(st.pipelines, pipelineId);
  if (!pl) return undefined;
  const far = livePipeline(pl, nowMs + 10 * 365 * 86_400_000);
  if (far.finished_at === null || pipelineActive(pl, nowMs + 10 * 365 * 86_400_000)) return undefined;
  return Math.max(nowMs, Date.parse(far.finished_at));
}

/**
 * `AutoMergeService#execute` with `merge_when_pipeline_succeeds`: the flag, a system note, and the job
 * that merges when the head pipeline finishes.
 */
export function enableAutoMerge(
  c: Ctx,
  mr: MergeRequestRecord,
  userId: number,
  params: AutoMergeParams,
): void {
  const nowMs = c.get('fx').clock.ms();
  // The hooks of the merge the job makes link to the instance as this request reached it.
  const base = requestBase(c);
  write(c, (d) => autoMergeInWrite(d, mr.id, userId, params, { nowMs, base, note: true }));
}

/**
 * In a write: the merge request set to merge when its head pipeline succeeds, as `userId` asked, with
 * the head it was asked for (`merge_params['sha']`, the merge request's head by default), and the job
 * at the pipeline's finish (none while no pipeline runs: the flag waits). `note`: the system note of
 * `AutoMergeService#execute`; a push option sets the attributes alone (`PushOptionsHandlerService`).
 */
export function autoMergeInWrite(
  d: Draft<PlatformState>,
  mrId: number,
  userId: number,
  params: AutoMergeParams & { sha?: string },
  o: { nowMs: number; base: string; note: boolean },
): void {
  const st = d as PlatformState;
  const draft = tget(d.issuables.mergeRequests, mrId)!;
  const now = new Date(o.nowMs).toISOString();
  const pl = headPipeline(st, draft);
  const due = pl && finishAt(st, pl.id, o.nowMs);
  const sha = params.sha ?? tget(st.issuables.diffs, draft.diff_id)?.head_commit_sha;
  draft.merge_when_pipeline_succeeds = true;
  draft.merge_user_id = userId;
  if (params.squash !== undefined) draft.squash = params.squash;
  draft.updated_at = now;
  const t = { type: 'MergeRequest' as const, id: mrId, project_id: draft.project_id };
  if (o.note && pl)
    systemNote(d, t, userId, `enabled an automatic merge when the pipeline for ${pl.sha} succeeds`, now);
  cancelJobs(d, (j) => j.kind === MWPS_JOB && j.payload.mr === mrId);
  if (due !== undefined)
    scheduleJob(d, MWPS_JOB, due, { ...params, mr: mrId, user: userId, base: o.base, sha });
}

/** `AutoMerge::BaseService#clear_auto_merge_parameters`, with its system note. */
function cancelAutoMerge(d: Draft<PlatformState>, mr: MergeRequestRecord, userId: number, now: string): void {
  const draft = tget(d.issuables.mergeRequests, mr.id)!;
  draft.merge_when_pipeline_succeeds = false;
  draft.merge_user_id = null;
  draft.updated_at = now;
  systemNote(
    d,
    { type: 'MergeRequest', id: mr.id, project_id: mr.project_id },
    userId,
    'canceled the automatic merge',
    now,
  );
  cancelJobs(d, (j) => j.kind === MWPS_JOB && j.payload.mr === mr.id);
}

/**
 * The job: at the pipeline's finish, a green head pipeline merges the merge request as the user who
 * asked (`AutoMerge::MergeWhenPipelineSucceedsService#process`); a pipeline still running (retried,
 * its jobs played) is waited for again; a failed one leaves the flag set, as the platform does. The
 * merge's pushes and its merge hook are told once the job's write has committed.
 */
function runAutoMerge(
  d: Draft<PlatformState>,
  payload: Record<string, unknown>,
  dueMs: number,
  fx: Fx,
): (() => void) | undefined {
  const st = d as PlatformState;
  const mr = tget(st.issuables.mergeRequests, payload.mr as number);
  if (!mr || mr.state !== 'opened' || !mr.merge_when_pipeline_succeeds) return;
  const pl = headPipeline(st, mr);
  if (!pl) return;
  if (pipelineActive(pl, dueMs)) {
    const next = finishAt(st, pl.id, dueMs);
    if (next !== undefined && next > dueMs) scheduleJob(d, MWPS_JOB, next, payload);
    return;
  }
  if (livePipeline(pl, dueMs).status !== 'success') return;
  const userId = payload.user as number;
  const user = tget(st.users, userId) ?? null;
  const project = tget(st.projects, mr.project_id) as Project | undefined;
  const heads = headsOf(st, mr);
  const now = new Date(dueMs).toISOString();
  // `MergeService#validate!`: what could have changed since the flag was set.
  const ffOnly = project?.merge_method === 'ff' || project?.merge_method === 'rebase_merge';
  if (
    !project ||
    !heads ||
    !canMerge(st, user, project, mr.target_branch) ||
    checkedMergeStatus(st, mr) !== 'can_be_merged' ||
    (ffOnly && !isAncestor(objectsOf(st), heads.start, heads.head)) ||
    mergeBlocked(st, mr.id)
  ) {
    tget(d.issuables.mergeRequests, mr.id)!.merge_error = 'Merge request is not mergeable';
    return;
  }
  const a = abilities(st, user, project);
  const closes = mget(st.issuables.idx.closing, `m${mr.id}`).filter((id) => {
    const i = tget(st.issuables.issues, id);
    return i !== undefined && canSeeIssue(a, i);
  });
  const fullRef = `${project.path_with_namespace}!${mr.iid}`;
  // The committed record, as it was before this write: the merge hook's changes are against it.
  const before = tget(fx.store.state.issuables.mergeRequests, mr.id)!;
  const moved = mergeMergeRequest(d, mr.id, userId, now, {
    squash: payload.squash as boolean | undefined,
    should_remove_source_branch: payload.should_remove_source_branch as boolean | undefined,
    message: (payload.message as string | undefined) ?? defaultMergeCommitMessage(st, mr, closes, fullRef),
    squash_message: payload.squash_message as string | undefined,
    closes,
  });
  tget(d.issuables.mergeRequests, mr.id)!.merge_when_pipeline_succeeds = false;
  const base = (payload.base as string | undefined) ?? fx.baseUrl ?? 'http://localhost';
  const received = receiveMerged(d, moved, userId, now, base);
  return () => announceMerged(fx, base, userId, received, before);
}

export function mergeRequestPipelineRoutes(r: ApiRouter): void {
  r.job(MWPS_JOB, (d, job, fx) => runAutoMerge(d, job.payload, job.due_ms, fx));

  // `Ci::PipelinesForMergeRequestFinder`: none for a viewer who may not read the source's pipelines.
  r.get(
    '/projects/:id/merge_requests/:merge_request_iid/pipelines',
    { params: { ...iidShape, ...paginationParams } },
    (c, prm) => {
      const project = loadProject(c);
      const mr = readable(c, project, prm.merge_request_iid);
      const st = state(c);
      const source = tget(st.projects, mr.source_project_id);
      const list = source && canCi(c, source, 'read_pipeline') ? mergeRequestPipelines(st, mr) : [];
      const pr = new PipelineRenderer(c);
      return paginate(c, list, (pl) => pr.basic(pl, source!));
    },
  );

  // `MergeRequests::CreatePipelineService` with `allow_duplicate`: 200 with the Pipeline entity; the
  // pipeline's errors as a validation error; 405 when the viewer may not create it.
  r.post('/projects/:id/merge_requests/:merge_request_iid/pipelines', { params: iidShape }, (c, prm) => {
    const project = loadProject(c);
    const mr = readable(c, project, prm.merge_request_iid);
    const user = requireUser(c);
    const st = state(c);
    const source = tget(st.projects, mr.source_project_id);
    if (!source || !canCi(c, source, 'create_pipeline') || mr.state !== 'opened')
      throw apiError(405, '405 Method Not Allowed');
    const made = mergeRequestJobs(st, mr, requestBase(c));
    if ('error' in made) throw validationError({ base: [made.error] });
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) => queueMergeRequestPipeline(d, mr, made, user.id, now));
    emitEvent(c, { kind: 'pipeline', id });
    return jsonResponse(
      Buffer.from(JSON.stringify(new PipelineRenderer(c).full(tget(state(c).pipelines, id)!, source))),
      200,
    );
  });

  // The service's result as it is (`{"status":"success"}`, or its error hash), with POST's 201.
  r.post(
    '/projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds',
    { params: iidShape },
    (c, prm) => {
      const project = loadProject(c);
      const mr = readable(c, project, prm.merge_request_iid);
      const user = requireUser(c);
      const st = state(c);
      // `can_cancel_auto_merge?`: who may merge, or the author.
      if (!canMerge(st, user, project, mr.target_branch) && mr.author_id !== user.id) throw unauthorized();
      if (!mr.merge_when_pipeline_succeeds)
        return c.json(
          { message: "Can't cancel the automatic merge", status: 'error', http_status: 406 },
          201,
        );
      write(c, (d) => cancelAutoMerge(d, mr, user.id, c.get('fx').clock.iso()));
      return c.json({ status: 'success' }, 201);
    },
  );
}
