/**
 * Merge request pipelines (`MergeRequests::CreatePipelineService`, detached): a pipeline of the source
 * project for the merge request's head, with source `merge_request_event` and the ref
 * `refs/merge-requests/:iid/head`, whose jobs are those the CI file runs for merge requests
 * (`rules: - if: $CI_PIPELINE_SOURCE == "merge_request_event"`, `only: [merge_requests]`); and the
 * merge request's head pipeline (`MergeRequest#actual_head_pipeline`).
 */
import type { Draft } from 'immer';
import type { PipelineRecord, PlatformState, ProjectRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import type { MergeRequestRecord } from '../issuables/store.js';
import { MERGE_REQUEST_EVENT } from './config-expr.js';
import { BLANK_SHA, livePipeline, projectPipelineIds, projectVariables } from './model.js';
import { objectsOf } from '../repository/store.js';
import { queuePipeline, SKIP_PATTERN, skipPipeline } from './pipelines.js';
import { ciConfigAt, yamlJobs, type YamlJobs } from './yaml-pipeline.js';

/**
 * `MergeRequest#ref_path`: the ref a merge request's pipelines run for. The one place that names it, so
 * that the git side can advertise the ref under this name.
 */
export const mergeRequestRef = (iid: number) => `refs/merge-requests/${iid}/head`;

/** `Ci::Pipeline#merge_request_event_type` of a pipeline for the source branch's head. */
const DETACHED = 'detached';

/**
 * The variables a merge request's pipeline adds (`Ci::Pipeline#predefined_variables` for a merge
 * request, and `MergeRequest#predefined_variables` with its source project's): what its rules see.
 */
export function mergeRequestVariables(
  st: PlatformState,
  mr: MergeRequestRecord,
  base: string,
): Record<string, string> {
  const v: Record<string, string> = Object.create(null) as Record<string, string>;
  const project = tget(st.projects, mr.project_id);
  const source = tget(st.projects, mr.source_project_id);
  const diff = tget(st.issuables.diffs, mr.diff_id);
  v.CI_MERGE_REQUEST_EVENT_TYPE = DETACHED;
  // A detached pipeline has no merged result: both shas are empty (`source_sha`, `target_sha`).
  v.CI_MERGE_REQUEST_SOURCE_BRANCH_SHA = '';
  v.CI_MERGE_REQUEST_TARGET_BRANCH_SHA = '';
  if (diff) {
    v.CI_MERGE_REQUEST_DIFF_ID = String(diff.id);
    v.CI_MERGE_REQUEST_DIFF_BASE_SHA = diff.base_commit_sha ?? '';
  }
  v.CI_MERGE_REQUEST_ID = String(mr.id);
  v.CI_MERGE_REQUEST_IID = String(mr.iid);
  v.CI_MERGE_REQUEST_REF_PATH = mergeRequestRef(mr.iid);
  if (project) {
    v.CI_MERGE_REQUEST_PROJECT_ID = String(project.id);
    v.CI_MERGE_REQUEST_PROJECT_PATH = project.path_with_namespace;
    v.CI_MERGE_REQUEST_PROJECT_URL = `${base}/${project.path_with_namespace}`;
  }
  v.CI_MERGE_REQUEST_TARGET_BRANCH_NAME = mr.target_branch;
  v.CI_MERGE_REQUEST_TITLE = mr.title;
  const assignees = mr.assignee_ids.map((id) => tget(st.users, id)?.username).filter((u) => u !== undefined);
  if (assignees.length) v.CI_MERGE_REQUEST_ASSIGNEES = assignees.join(',');
  const milestone = mr.milestone_id === null ? undefined : tget(st.issuables.milestones, mr.milestone_id);
  if (milestone) v.CI_MERGE_REQUEST_MILESTONE = milestone.title;
  const labels = mr.label_ids
    .map((id) => tget(st.issuables.labels, id)?.title)
    .filter((t) => t !== undefined);
  if (labels.length) v.CI_MERGE_REQUEST_LABELS = labels.join(',');
  if (source) {
    v.CI_MERGE_REQUEST_SOURCE_PROJECT_ID = String(source.id);
    v.CI_MERGE_REQUEST_SOURCE_PROJECT_PATH = source.path_with_namespace;
    v.CI_MERGE_REQUEST_SOURCE_PROJECT_URL = `${base}/${source.path_with_namespace}`;
    v.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME = mr.source_branch;
  }
  return v;
}

/** What a merge request's pipeline would be made of now: its commit and jobs, or the pipeline's error. */
export type MergeRequestJobs = { sha: string; jobs: YamlJobs } | { error: string };

/**
 * The jobs of a merge request's pipeline at its head (`Ci::CreatePipelineService` with source
 * `merge_request_event`): the CI file of the source project at the head commit, its rules seeing the
 * merge request's variables; `Missing CI config file` without one.
 */
export function mergeRequestJobs(st: PlatformState, mr: MergeRequestRecord, base: string): MergeRequestJobs {
  const source = tget(st.projects, mr.source_project_id) as ProjectRecord | undefined;
  const sha = tget(st.issuables.diffs, mr.diff_id)?.head_commit_sha ?? null;
  if (!source || sha === null) return { error: 'Reference not found' };
  const config = ciConfigAt(st, source, sha);
  if (config === undefined) return { error: 'Missing CI config file' };
  const vars: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const v of projectVariables(st, source.id)) vars[v.key] = v.value;
  Object.assign(vars, mergeRequestVariables(st, mr, base));
  const jobs = yamlJobs(
    st,
    source,
    sha,
    config,
    { ref: mr.source_branch, tag: false, source: MERGE_REQUEST_EVENT },
    vars,
  );
  return 'error' in jobs ? jobs : { sha, jobs };
}

/** Writes the merge request's pipeline from `mergeRequestJobs`; returns its id. */
export function queueMergeRequestPipeline(
  d: Draft<PlatformState>,
  mr: MergeRequestRecord,
  made: { sha: string; jobs: YamlJobs },
  userId: number | null,
  now: string,
): number {
  return queuePipeline(d, {
    project_id: mr.source_project_id,
    ref: mergeRequestRef(mr.iid),
    tag: false,
    sha: made.sha,
    before_sha: BLANK_SHA,
    user_id: userId,
    variables: [],
    specs: made.jobs.specs,
    stages: made.jobs.stages,
    now,
    merge_request_id: mr.id,
  });
}

/**
 * A merge request's pipeline when the CI file has jobs for it, else none (a push or an opened merge
 * request whose file runs no job for merge requests makes no pipeline).
 */
export function mergeRequestPipelineIfAny(
  d: Draft<PlatformState>,
  mr: MergeRequestRecord,
  userId: number | null,
  now: string,
  base: string,
): number | undefined {
  const st = d as PlatformState;
  const sha = tget(st.issuables.diffs, mr.diff_id)?.head_commit_sha ?? null;
  const source = tget(st.projects, mr.source_project_id) as ProjectRecord | undefined;
  // `Chain::Skip` after the CI file is read: a `[ci skip]` head makes a skipped pipeline.
  if (sha !== null && source && ciConfigAt(st, source, sha) !== undefined) {
    if (SKIP_PATTERN.test(objectsOf(st).commit(sha)?.message ?? ''))
      return skipPipeline(d, {
        project_id: mr.source_project_id,
        ref: mergeRequestRef(mr.iid),
        tag: false,
        sha,
        before_sha: BLANK_SHA,
        user_id: userId,
        variables: [],
        now,
        merge_request_id: mr.id,
      });
  }
  const made = mergeRequestJobs(st, mr, base);
  return 'error' in made ? undefined : queueMergeRequestPipeline(d, mr, made, userId, now);
}

/** Whether a pipeline belongs to the merge request: its own, or one of its source branch. */
function ofMergeRequest(pl: PipelineRecord, mr: MergeRequestRecord): boolean {
  if (pl.merge_request_id !== undefined) return pl.merge_request_id === mr.id;
  return !pl.tag && pl.ref === mr.source_branch;
}

/**
 * `MergeRequest#all_pipelines`: its own pipelines and those of its source branch for any of its
 * commits (each diff version's), newest first.
 */
export function mergeRequestPipelines(st: PlatformState, mr: MergeRequestRecord): PipelineRecord[] {
  const shas = new Set<string>();
  for (const id of mget(st.issuables.idx.diffs, String(mr.id))) {
    const diff = tget(st.issuables.diffs, id);
    if (!diff) continue;
    if (diff.head_commit_sha) shas.add(diff.head_commit_sha);
    for (const cm of diff.commits) shas.add(cm.id);
  }
  const head = tget(st.issuables.diffs, mr.diff_id);
  if (head?.head_commit_sha) shas.add(head.head_commit_sha);
  for (const cm of head?.commits ?? []) shas.add(cm.id);
  const out: PipelineRecord[] = [];
  const ids = projectPipelineIds(st, mr.source_project_id);
  for (let i = ids.length - 1; i >= 0; i--) {
    const pl = tget(st.pipelines, ids[i]!);
    if (!pl || !ofMergeRequest(pl, mr)) continue;
    if (pl.merge_request_id === mr.id || shas.has(pl.sha)) out.push(pl);
  }
  return out;
}

/**
 * `actual_head_pipeline`: the newest of the merge request's pipelines (its own or its source branch's,
 * an external one included) for the head commit.
 */
export function headPipeline(st: PlatformState, mr: MergeRequestRecord): PipelineRecord | undefined {
  const sha = tget(st.issuables.diffs, mr.diff_id)?.head_commit_sha;
  if (!sha) return undefined;
  const ids = projectPipelineIds(st, mr.source_project_id);
  for (let i = ids.length - 1; i >= 0; i--) {
    const pl = tget(st.pipelines, ids[i]!);
    if (pl && pl.sha === sha && ofMergeRequest(pl, mr)) return pl;
  }
  return undefined;
}

/** `Ci::Pipeline#active?`: still to finish. */
const ACTIVE = new Set(['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'scheduled']);

export const pipelineActive = (pl: PipelineRecord, nowMs: number) =>
  ACTIVE.has(livePipeline(pl, nowMs).status);
