/**
 * The merge request shapes: `MergeRequestBasic` for lists, `MergeRequest` for one, `MergeRequestSimple`
 * for view=simple, kept as bytes per record.
 */
import { PipelineRenderer } from '../ci/entities.js';
import { livePipeline } from '../ci/model.js';
import { headPipeline } from '../ci/mr-pipelines.js';
import type { Ctx } from '../../core/context.js';
import type { RecordRenderings } from '../../core/render-cache.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { setting } from '../settings/model.js';
import { abilities } from './access.js';
import { projectSet } from './finder.js';
import { IssueRenderer } from './issue-entity.js';
import { effectiveMergeStatus } from './model.js';
import { detailedMergeStatus, discussionsResolved } from './merge-status.js';
import { MR_DETAILED_MERGE_STATUS, MR_DRAFT, MR_MERGE_USER } from './versions.js';
import { has, type Minor } from '../../core/versions.js';
import { commitsBetween, headsOf } from './model/git.js';
import type { From, Json } from './render-base.js';
import type { MergeRequestRecord } from './store.js';
import { isWip, taskCompletion } from './text.js';
import { objectsOf } from '../repository/store.js';

/** What `mergeRequestFull` shows beyond the record (values the route computed for this viewer). */
export interface MergeRequestFullOptions {
  subscribed?: boolean;
  divergedCommits?: boolean;
  rebaseInProgress?: boolean;
  firstContribution?: boolean;
}

export class MergeRequestRenderer extends IssueRenderer {
  readonly #mergeRequests: RecordRenderings<MergeRequestRecord>;
  /** The fields of this instance's release (issuables/versions.ts). */
  readonly #draft: boolean;
  readonly #mergeUser: boolean;
  readonly #detailedStatus: boolean;
  readonly #minor: Minor;

  constructor(c: Ctx, from: From = null) {
    super(c, from);
    this.#mergeRequests = c.get('fx').renderings.kind<MergeRequestRecord>('merge_request');
    this.#draft = has(c, MR_DRAFT);
    this.#mergeUser = has(c, MR_MERGE_USER);
    this.#detailedStatus = has(c, MR_DETAILED_MERGE_STATUS);
    this.#minor = c.get('fx').gitlab();
  }

  /** `mergeRequestSimple` as bytes: it reads the record, its project and the base URL. */
  mergeRequestSimpleBytes(mr: MergeRequestRecord): Buffer<ArrayBuffer> {
    const p = this.project(mr.project_id);
    return this.#mergeRequests.bytes(mr, `s|${this.base}`, [p], () =>
      JSON.stringify(this.mergeRequestSimple(mr)),
    );
  }

  /** The key and deps of `mergeRequest`'s rendering (see `issueBytes`); the status is a value of the clock. */
  #mergeRequestView(mr: MergeRequestRecord, p: Project): { key: string; deps: readonly unknown[] } {
    // What the statuses read beyond the deps (notes, branches, pipelines, approvals) goes in as values.
    const key =
      `${effectiveMergeStatus(mr, this.nowMs)}|${+this.paid}${+this.withLabelsDetails}` +
      `${this.referenceForm(p)}|${mr.milestone_id === null ? '' : this.today}|${this.base}` +
      `|${+discussionsResolved(this.st, mr, p)}${this.#detailedStatus ? detailedMergeStatus(this.st, mr, p, this.nowMs) : ''}`;
    const deps = [...this.issuableDeps(mr, p), tget(this.st.issuables.diffs, mr.diff_id)];
    return { key, deps };
  }

  /** `mergeRequest` (`MergeRequestBasic`) as bytes, kept per record. */
  mergeRequestBytes(mr: MergeRequestRecord): Buffer<ArrayBuffer> {
    const { key, deps } = this.#mergeRequestView(mr, this.project(mr.project_id));
    return this.#mergeRequests.bytes(mr, `b|${key}`, deps, () => JSON.stringify(this.mergeRequest(mr)));
  }

  /**
   * `mergeRequestFull` as bytes, kept per record. What it reads of the viewer and the clock goes into the
   * key as values (pipelines shown, can_merge, rebase in progress, first contribution); the diverged
   * commits count reads the repository, so an answer with it is built every time.
   */
  mergeRequestFullBytes(mr: MergeRequestRecord, o: MergeRequestFullOptions = {}): Buffer<ArrayBuffer> {
    if (o.divergedCommits) return Buffer.from(JSON.stringify(this.mergeRequestFull(mr, o)));
    const p = this.project(mr.project_id);
    const { key, deps } = this.#mergeRequestView(mr, p);
    const a = abilities(this.st, this.viewer, p);
    const builds =
      p.builds_access_level !== 'disabled' &&
      (p.builds_access_level !== 'private' || a.level >= 10 || a.admin);
    const full =
      `f${o.subscribed === undefined ? '-' : +o.subscribed}${+builds}` +
      `${+canMerge(this.st, this.viewer, p, mr.target_branch)}` +
      `${o.rebaseInProgress ? +((mr.rebase_until_ms ?? 0) > this.nowMs) : '-'}` +
      `${o.firstContribution ? +this.firstContribution(mr, p) : '-'}|${this.#headPipelineKey(mr, builds)}|${key}`;
    return this.#mergeRequests.bytes(mr, full, deps, () => JSON.stringify(this.mergeRequestFull(mr, o)));
  }

  /** What the head pipeline shows now: its id, status and update time (the clock moves them). */
  #headPipelineKey(mr: MergeRequestRecord, builds: boolean): string {
    const hp = builds ? headPipeline(this.st, mr) : undefined;
    if (!hp) return '-';
    const live = livePipeline(hp, this.nowMs);
    return `${hp.id}:${live.status}:${live.updated_at}:${hp.user_id}`;
  }

  /** `MergeRequestSimple` (view=simple). */
  mergeRequestSimple(mr: MergeRequestRecord): Json {
    const p = this.project(mr.project_id);
    return {
      id: mr.id,
      iid: mr.iid,
      project_id: mr.project_id,
      title: mr.title,
      description: mr.description,
      state: mr.state,
      created_at: mr.created_at,
      updated_at: mr.updated_at,
      web_url: `${this.base}/${p.path_with_namespace}/-/merge_requests/${mr.iid}`,
    };
  }

  /** `MergeRequestBasic`. */
  mergeRequest(mr: MergeRequestRecord): Json {
    const p = this.project(mr.project_id);
    const assignees = mr.assignee_ids.map((id) => this.user(id)).filter((u) => u !== null);
    const diff = tget(this.st.issuables.diffs, mr.diff_id);
    const status = effectiveMergeStatus(mr, this.nowMs);
    const out: Json = {
      id: mr.id,
      iid: mr.iid,
      project_id: mr.project_id,
      title: mr.title,
      description: mr.description,
      state: mr.state,
      created_at: mr.created_at,
      updated_at: mr.updated_at,
      merged_by: this.user(mr.merged_by_id),
      ...(this.#mergeUser && { merge_user: this.user(mr.merged_by_id ?? mr.merge_user_id ?? null) }),
      merged_at: mr.merged_at,
      closed_by: this.user(mr.closed_by_id),
      closed_at: mr.closed_at,
      target_branch: mr.target_branch,
      source_branch: mr.source_branch,
      user_notes_count: mr.user_notes_count,
      upvotes: mr.upvotes,
      downvotes: mr.downvotes,
      author: this.user(mr.author_id),
      assignees,
      assignee: assignees[0] ?? null,
      reviewers: mr.reviewer_ids.map((id) => this.user(id)).filter((u) => u !== null),
      source_project_id: mr.source_project_id,
      target_project_id: mr.project_id,
      labels: this.labels(mr.label_ids),
      ...(this.#draft && { draft: isWip(mr.title, this.#minor) }),
      work_in_progress: isWip(mr.title, this.#minor),
      milestone:
        mr.milestone_id === null ? null : this.milestone(tget(this.st.issuables.milestones, mr.milestone_id)),
      merge_when_pipeline_succeeds: mr.merge_when_pipeline_succeeds,
      merge_status: status,
      ...(this.#detailedStatus && {
        detailed_merge_status: detailedMergeStatus(this.st, mr, p, this.nowMs),
      }),
      sha: diff?.head_commit_sha ?? null,
      merge_commit_sha: mr.merge_commit_sha,
      squash_commit_sha: mr.squash_commit_sha,
      discussion_locked: mr.discussion_locked,
      should_remove_source_branch: mr.should_remove_source_branch,
      force_remove_source_branch: mr.force_remove_source_branch ?? false,
    };
    if (mr.source_project_id !== mr.project_id) {
      out.allow_collaboration = mr.allow_collaboration;
      out.allow_maintainer_to_push = mr.allow_collaboration;
    }
    out.reference = this.reference(p, '!', mr.iid);
    out.references = this.references(p, '!', mr.iid);
    out.web_url = `${this.base}/${p.path_with_namespace}/-/merge_requests/${mr.iid}`;
    out.time_stats = this.timeStats(mr);
    out.squash = mr.squash;
    out.task_completion_status = taskCompletion(mr.description);
    out.has_conflicts = status === 'cannot_be_merged';
    out.blocking_discussions_resolved = discussionsResolved(this.st, mr, p);
    if (this.paid) out.approvals_before_merge = mr.approvals_before_merge;
    return out;
  }

  /** `MergeRequest`: the single shape. */
  mergeRequestFull(mr: MergeRequestRecord, o: MergeRequestFullOptions = {}): Json {
    const out = this.mergeRequest(mr);
    const p = this.project(mr.project_id);
    const a = abilities(this.st, this.viewer, p);
    const diff = tget(this.st.issuables.diffs, mr.diff_id);
    if (o.subscribed !== undefined) out.subscribed = o.subscribed;
    out.changes_count = diff?.real_size ?? '0';
    const builds =
      p.builds_access_level !== 'disabled' &&
      (p.builds_access_level !== 'private' || a.level >= 10 || a.admin);
    // `actual_head_pipeline`, as `pipeline` (PipelineBasic) and `head_pipeline` (Pipeline).
    const hp = builds ? headPipeline(this.st, mr) : undefined;
    const source = hp ? tget(this.st.projects, hp.project_id) : undefined;
    const pr = hp && source ? new PipelineRenderer(this.c, this.nowMs) : undefined;
    if (builds) {
      out.latest_build_started_at = null;
      out.latest_build_finished_at = null;
      out.first_deployed_to_production_at = null;
      out.pipeline = pr ? pr.basic(hp!, source!) : null;
    }
    if (builds) out.head_pipeline = pr ? pr.full(hp!, source!) : null;
    out.diff_refs = diff
      ? { base_sha: diff.base_commit_sha, head_sha: diff.head_commit_sha, start_sha: diff.start_commit_sha }
      : null;
    out.merge_error = mr.merge_error;
    if (o.rebaseInProgress) out.rebase_in_progress = (mr.rebase_until_ms ?? 0) > this.nowMs;
    if (o.divergedCommits) {
      // `diverged_commits_count`: commits on the target branch that the source branch lacks.
      const h = mr.state === 'opened' ? headsOf(this.st, mr) : undefined;
      out.diverged_commits_count = h
        ? commitsBetween(objectsOf(this.st), { head: h.start, start: h.head, base: h.base }).length
        : 0;
    }
    if (o.firstContribution) out.first_contribution = this.firstContribution(mr, p);
    out.user = { can_merge: canMerge(this.st, this.viewer, p, mr.target_branch) };
    return out;
  }

  /** `first_contribution?`: the author is no more than a guest and has nothing merged in the project. */
  firstContribution(mr: MergeRequestRecord, p: Project): boolean {
    const author = tget(this.st.users, mr.author_id) ?? null;
    if (abilities(this.st, author, p).level > 10) return false;
    const byAuthor = projectSet<MergeRequestRecord>(this.st, 'm', p.id).by.get(`a:${mr.author_id}`) ?? [];
    return !byAuthor.some((other) => other.state === 'merged');
  }
}

/**
 * `can_be_merged_by?`: whoever may push to the target branch. The default branch is protected
 * (maintainers only) unless the instance's `default_branch_protection` is 0 or 1.
 */
export function canMerge(
  st: PlatformState,
  user: UserRecord | null,
  p: Project,
  targetBranch: string,
): boolean {
  if (!user) return false;
  const a = abilities(st, user, p);
  if (!a.developer) return false;
  if (a.maintainer) return true;
  if (targetBranch !== p.default_branch) return true;
  const protection = setting(st, 'default_branch_protection');
  return protection === 0 || protection === 1;
}
