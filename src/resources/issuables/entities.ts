/**
 * The shapes of issues, merge requests, notes, milestones, labels, todos, award emoji and diff versions,
 * in the platform's field order (Grape exposes fields in declaration order, subclasses after their
 * parents, EE additions after the CE ones):
 *
 * - issue: `Issue` (lists use it too, without `subscribed`); `basic` is `IssueBasic` (milestone lists);
 * - merge request: `MergeRequestBasic` for lists, `MergeRequest` for one, `MergeRequestSimple` for view=simple.
 */
import { PipelineRenderer } from '../ci/entities.js';
import { livePipeline } from '../ci/model.js';
import { headPipeline } from '../ci/mr-pipelines.js';
import { state, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { RecordRenderings, Renderings } from '../../core/render-cache.js';
import type { GroupRecord, PlatformState, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { userRenderer, type UserRenderer } from '../users/entities.js';
import type { Project } from '../projects/model.js';
import { setting } from '../settings/model.js';
import { abilities } from './access.js';
import { projectSet } from './finder.js';
import { effectiveMergeStatus, isResolvable } from './model.js';
import type {
  AwardEmojiRecord,
  DiffVersionRecord,
  EpicRecord,
  IssueRecord,
  LabelRecord,
  MergeRequestRecord,
  MilestoneRecord,
  NoteRecord,
  SnippetRecord,
  TodoRecord,
} from './store.js';
import { isWip, taskCompletion, taskStatus, textColorFor } from './text.js';
import { escapeHtml } from '../../core/html.js';
import { gitTime } from '../repository/entities.js';
import { objectsOf } from '../repository/store.js';
import { commitsBetween, headsOf } from './model/git.js';

type Json = Record<string, unknown>;

/** Where a list or item is requested from: references are relative to it. */
export type From = { project: Project } | { group: GroupRecord } | null;

/** A page of a kept list (see `issuePageBytes`): what its rendering is kept by. */
interface PageToken {
  /** For the budget's admission counts only. */
  readonly id: number;
}

/**
 * The pages asked of each list the finder keeps, by first index and length. The lists are immutable and
 * a token holds nothing but its identity: a pure memo, whatever instance asks.
 */
const pageTokens = new WeakMap<readonly IssueRecord[], Map<number, PageToken>>();
/** Pages remembered per list: past this many (a client trying every page size), the list starts over. */
const PAGES_PER_LIST = 256;

/**
 * The pages each instance was asked for once: a page's first ask renders its issues as any list does
 * (a client walking a list once makes nothing more), and only a page asked again goes to the renderings.
 */
const askedPages = new WeakMap<Renderings, WeakSet<PageToken>>();

/** The reference forms (see `#referenceForm`). */
const FORMS = ['o', 'p', 'f'] as const;

/** What `mergeRequestFull` shows beyond the record (values the route computed for this viewer). */
export interface MergeRequestFullOptions {
  subscribed?: boolean;
  divergedCommits?: boolean;
  rebaseInProgress?: boolean;
  firstContribution?: boolean;
}

export class IssuableRenderer {
  readonly st: PlatformState;
  readonly base: string;
  readonly users: UserRenderer;
  readonly viewer: UserRecord | null;
  readonly paid: boolean;
  readonly nowMs: number;
  readonly today: string;
  withLabelsDetails = false;
  readonly #issues: RecordRenderings<IssueRecord>;
  readonly #mergeRequests: RecordRenderings<MergeRequestRecord>;
  readonly #notes: RecordRenderings<NoteRecord>;
  readonly #issuePages: RecordRenderings<PageToken>;
  readonly #askedPages: WeakSet<PageToken>;
  readonly #issueKeys: (string | undefined)[] = [];
  #lastProject: Project | null = null;
  /** `#referenceForm` of `#lastProject`, as an index of `FORMS`. */
  #lastForm = 0;
  #depsProject: Project | null = null;
  #depsMilestone: number | null = null;
  #deps: readonly unknown[] = [];

  constructor(
    readonly c: Ctx,
    readonly from: From = null,
  ) {
    this.st = state(c);
    this.base = requestBase(c);
    this.users = userRenderer(c);
    this.viewer = c.get('viewer')?.user ?? null;
    this.paid = c.get('fx').tier() !== 'free';
    this.nowMs = c.get('fx').clock.ms();
    this.today = c.get('fx').clock.today();
    const renderings = c.get('fx').renderings;
    this.#issues = renderings.kind<IssueRecord>('issue');
    this.#mergeRequests = renderings.kind<MergeRequestRecord>('merge_request');
    this.#notes = renderings.kind<NoteRecord>('note');
    this.#issuePages = renderings.kind<PageToken>('issue_page');
    let asked = askedPages.get(renderings);
    if (asked === undefined) askedPages.set(renderings, (asked = new WeakSet()));
    this.#askedPages = asked;
  }

  user(id: number | null): Json | null {
    if (id === null) return null;
    const u = tget(this.st.users, id);
    return u ? this.users.basic(u) : null;
  }

  project(id: number): Project {
    return tget(this.st.projects, id) as Project;
  }

  /** `to_reference(from)` of an issuable in `project` (`#` for issues, `!` for merge requests). */
  reference(project: Project, prefix: string, iid: number, full = false): string {
    const own = `${prefix}${iid}`;
    const from = this.from;
    if (full) return `${project.path_with_namespace}${own}`;
    if (from === null) return own;
    if ('project' in from) {
      if (from.project.id === project.id) return own;
      const sameNamespace =
        from.project.namespace_kind === project.namespace_kind &&
        from.project.namespace_id === project.namespace_id;
      return sameNamespace ? `${project.path}${own}` : `${project.path_with_namespace}${own}`;
    }
    // From a group: the project's own group gives `path#1`, any other namespace the full path.
    const inGroup = project.namespace_kind === 'group' && project.namespace_id === from.group.id;
    return inGroup ? `${project.path}${own}` : `${project.path_with_namespace}${own}`;
  }

  references(project: Project, prefix: string, iid: number): Json {
    return {
      short: `${prefix}${iid}`,
      relative: this.reference(project, prefix, iid),
      full: this.reference(project, prefix, iid, true),
    };
  }

  labels(ids: readonly number[]): unknown[] {
    const labels = ids
      .map((id) => tget(this.st.issuables.labels, id))
      .filter((l): l is LabelRecord => !!l)
      .sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
    return this.withLabelsDetails ? labels.map((l) => this.label(l)) : labels.map((l) => l.title);
  }

  /** `LabelBasic`. */
  label(l: LabelRecord): Json {
    return {
      id: l.id,
      name: l.title,
      color: l.color,
      description: l.description,
      description_html: l.description ? escapeHtml(l.description) : '',
      text_color: textColorFor(l.color),
    };
  }

  milestone(m: MilestoneRecord | null | undefined): Json | null {
    if (!m) return null;
    const out: Json = { id: m.id, iid: m.iid };
    if (m.project_id !== null) out.project_id = m.project_id;
    if (m.group_id !== null) out.group_id = m.group_id;
    out.title = m.title;
    out.description = m.description;
    out.state = m.state;
    out.created_at = m.created_at;
    out.updated_at = m.updated_at;
    out.due_date = m.due_date;
    out.start_date = m.start_date;
    out.expired = m.due_date !== null && m.due_date < this.today;
    out.web_url =
      m.project_id !== null
        ? `${this.base}/${this.project(m.project_id).path_with_namespace}/-/milestones/${m.iid}`
        : `${this.base}/groups/${tget(this.st.groups, m.group_id!)?.full_path ?? ''}/-/milestones/${m.iid}`;
    return out;
  }

  timeStats(r: IssueRecord | MergeRequestRecord): Json {
    return {
      time_estimate: r.time_estimate,
      total_time_spent: r.total_time_spent,
      human_time_estimate: r.time_estimate ? humanTime(r.time_estimate) : null,
      human_total_time_spent: r.total_time_spent ? humanTime(r.total_time_spent) : null,
    };
  }

  /** `Issue` (`basic`: `IssueBasic`). `subscribed` only for single issues. */
  issue(i: IssueRecord, o: { basic?: boolean; subscribed?: boolean } = {}): Json {
    const p = this.project(i.project_id);
    const assignees = i.assignee_ids.map((id) => this.user(id)).filter((u) => u !== null);
    const tasks = taskCompletion(i.description);
    const out: Json = {
      id: i.id,
      iid: i.iid,
      project_id: i.project_id,
      title: i.title,
      description: i.description,
      state: i.state,
      created_at: i.created_at,
      updated_at: i.updated_at,
      closed_at: i.closed_at,
      closed_by: this.user(i.closed_by_id),
      labels: this.labels(i.label_ids),
      milestone:
        i.milestone_id === null ? null : this.milestone(tget(this.st.issuables.milestones, i.milestone_id)),
      assignees,
      author: this.user(i.author_id),
      type: i.issue_type.toUpperCase(),
      assignee: assignees[0] ?? null,
      user_notes_count: i.user_notes_count,
      merge_requests_count: i.merge_requests_count,
      upvotes: i.upvotes,
      downvotes: i.downvotes,
      due_date: i.due_date,
      confidential: i.confidential,
      discussion_locked: i.discussion_locked,
      web_url: `${this.base}/${p.path_with_namespace}/-/issues/${i.iid}`,
      time_stats: this.timeStats(i),
      task_completion_status: tasks,
    };
    if (this.paid) out.weight = i.weight;
    if (o.basic) return out;
    out.has_tasks = tasks.count > 0;
    if (tasks.count > 0) out.task_status = taskStatus(tasks);
    const api = `${this.base}/api/v4/projects/${i.project_id}`;
    out._links = {
      self: `${api}/issues/${i.iid}`,
      notes: `${api}/issues/${i.iid}/notes`,
      award_emoji: `${api}/issues/${i.iid}/award_emoji`,
      project: api,
    };
    out.reference = this.reference(p, '#', i.iid);
    out.references = this.references(p, '#', i.iid);
    if (o.subscribed !== undefined) out.subscribed = o.subscribed;
    out.moved_to_id = i.moved_to_id;
    out.service_desk_reply_to = null;
    if (this.paid) out.health_status = i.health_status;
    return out;
  }

  /**
   * How `reference` writes an issuable of `project` relative to where it is asked from, as one letter:
   * its own reference, the project's path before it, or the full path. The rest it reads is the project.
   */
  #referenceForm(project: Project): (typeof FORMS)[number] {
    const from = this.from;
    if (from === null) return 'o';
    if ('project' in from) {
      if (from.project.id === project.id) return 'o';
      return from.project.namespace_kind === project.namespace_kind &&
        from.project.namespace_id === project.namespace_id
        ? 'p'
        : 'f';
    }
    return project.namespace_kind === 'group' && project.namespace_id === from.group.id ? 'p' : 'f';
  }

  /**
   * What an issuable's rendering reads besides itself: the settings (avatars), its project, the users and
   * labels tables (whole: a page's issues name many users, and looking each one up cost more than the
   * rest of a kept rendering; a write to either builds the next renderings afresh), its milestone and the
   * milestone's project or group (web_url), looked up as the rendering looks them up. The array is shared
   * by the issuables rendered after it with the same project and milestone (a page's mostly are), and is
   * never changed once made.
   */
  #issuableDeps(r: IssueRecord | MergeRequestRecord, p: Project): readonly unknown[] {
    const milestoneId = r.milestone_id;
    if (p === this.#depsProject && milestoneId === this.#depsMilestone) return this.#deps;
    const st = this.st;
    let deps: unknown[];
    if (milestoneId === null) deps = [st.settings, p, st.users, st.issuables.labels];
    else {
      const m = tget(st.issuables.milestones, milestoneId);
      const parent =
        m && (m.project_id !== null ? tget(st.projects, m.project_id) : tget(st.groups, m.group_id!));
      deps = [st.settings, p, st.users, st.issuables.labels, m, parent];
    }
    this.#depsProject = p;
    this.#depsMilestone = milestoneId;
    return (this.#deps = deps);
  }

  /**
   * An issuable's project and how references to it are written from here, remembered for the next
   * issuable of the same project (a project's list names one project only).
   */
  #projectOf(id: number): Project {
    const last = this.#lastProject;
    if (last !== null && last.id === id) return last;
    const p = this.project(id);
    this.#lastProject = p;
    this.#lastForm = FORMS.indexOf(this.#referenceForm(p));
    return p;
  }

  /**
   * `issue` as UTF-8 bytes, kept per record (core renderings). The key holds the values the view reads
   * besides records: shape, subscribed, tier, label details, reference form, the base URL, and the day
   * when a milestone's `expired` depends on it.
   */
  issueBytes(i: IssueRecord, o: { basic?: boolean; subscribed?: boolean } = {}): Buffer<ArrayBuffer> {
    const p = this.#projectOf(i.project_id);
    const form = this.#lastForm;
    // The key's few variants per request, each made once (one flat string, compared whole).
    const code =
      ((((o.basic ? 1 : 0) * 3 + (o.subscribed === undefined ? 2 : +o.subscribed)) * 2 +
        +this.withLabelsDetails) *
        3 +
        form) *
        2 +
      +(i.milestone_id !== null);
    const key = (this.#issueKeys[code] ??=
      `${o.basic ? 'b' : 'i'}${o.subscribed === undefined ? '-' : +o.subscribed}${+this.paid}` +
      `${+this.withLabelsDetails}${FORMS[form]}|${i.milestone_id === null ? '' : this.today}|${this.base}`);
    const deps = this.#issuableDeps(i, p);
    return this.#issues.bytes(i, key, deps, () => JSON.stringify(this.issue(i, o)));
  }

  /**
   * The JSON array of `items`, the issues of `list` from index `start`, where `list` is one the finder
   * keeps (`isKeptList`): from its second ask on, kept as one rendering of the page. The list stands for
   * its records (a write to any makes the finder answer with a new list), and the page's deps are the
   * whole tables and records every issue's own deps are taken from (`#issuableDeps`, `issueBytes`),
   * compared once for the page instead of once per issue; its key holds the values of every issue's key
   * but the shape.
   */
  issuePageBytes(
    list: readonly IssueRecord[],
    start: number,
    items: readonly IssueRecord[],
  ): Buffer<ArrayBuffer> {
    let tokens = pageTokens.get(list);
    if (tokens === undefined) pageTokens.set(list, (tokens = new Map()));
    // At most 100 items a page.
    const at = start * 128 + items.length;
    let token = tokens.get(at);
    if (token === undefined) {
      if (tokens.size >= PAGES_PER_LIST) tokens.clear();
      tokens.set(at, (token = { id: (items[0]?.id ?? 0) * 128 + items.length }));
    }
    if (!this.#askedPages.has(token)) {
      this.#askedPages.add(token);
      return this.#joined(items);
    }
    const st = this.st;
    const from = this.from;
    const fromRecord = from === null ? null : 'project' in from ? from.project : from.group;
    const key =
      `${+this.paid}${+this.withLabelsDetails}|${from === null ? '' : 'project' in from ? 'p' : 'g'}|` +
      `${this.today}|${this.base}`;
    const deps = [
      st.settings,
      st.users,
      st.issuables.labels,
      st.issuables.milestones,
      st.projects,
      st.groups,
      fromRecord,
    ];
    return this.#issuePages.bytes(token, key, deps, () => this.#joined(items).toString());
  }

  /** The JSON array of `items`, joined from their own renderings. */
  #joined(items: readonly IssueRecord[]): Buffer<ArrayBuffer> {
    const parts = new Array<Buffer<ArrayBuffer>>(items.length);
    let size = items.length + 1;
    for (let i = 0; i < items.length; i++) size += (parts[i] = this.issueBytes(items[i]!)).length;
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (let i = 0; i < parts.length; i++) {
      out[at++] = i === 0 ? 0x5b : 0x2c;
      at += parts[i]!.copy(out, at);
    }
    out[at] = 0x5d;
    return out;
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
    const key =
      `${effectiveMergeStatus(mr, this.nowMs)}|${+this.paid}${+this.withLabelsDetails}` +
      `${this.#referenceForm(p)}|${mr.milestone_id === null ? '' : this.today}|${this.base}`;
    const deps = [...this.#issuableDeps(mr, p), tget(this.st.issuables.diffs, mr.diff_id)];
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
      work_in_progress: isWip(mr.title),
      milestone:
        mr.milestone_id === null ? null : this.milestone(tget(this.st.issuables.milestones, mr.milestone_id)),
      merge_when_pipeline_succeeds: mr.merge_when_pipeline_succeeds,
      merge_status: status,
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
    out.blocking_discussions_resolved = true;
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

  /** `Note`. */
  note(n: NoteRecord): Json {
    let iid: number | null = null;
    if (n.noteable_type === 'Issue') iid = tget(this.st.issuables.issues, n.noteable_id)?.iid ?? null;
    if (n.noteable_type === 'MergeRequest')
      iid = tget(this.st.issuables.mergeRequests, n.noteable_id)?.iid ?? null;
    const out: Json = {
      id: n.id,
      type: n.type ?? null,
      body: n.body,
      attachment: null,
      author: this.user(n.author_id),
      created_at: n.created_at,
      updated_at: n.updated_at,
      system: n.system,
      // A commit note's column is null: its commit is its `commit_id`, which the entity does not show.
      noteable_id: n.noteable_type === 'Commit' ? null : n.noteable_id,
      noteable_type: n.noteable_type,
    };
    if (n.type === 'DiffNote') out.position = n.position ?? null;
    out.resolvable = isResolvable(n);
    if (out.resolvable) {
      out.resolved = !!n.resolved_at;
      out.resolved_by = this.user(n.resolved_by_id ?? null);
      out.resolved_at = n.resolved_at ?? null;
    }
    out.confidential = n.confidential;
    out.noteable_iid = iid;
    return out;
  }

  /**
   * `note` as bytes, kept per record: the noteable's iid is a value of the key (its record changes with
   * every note counted on it); the users it shows and the settings are its deps.
   */
  noteBytes(n: NoteRecord): Buffer<ArrayBuffer> {
    const st = this.st;
    let iid: number | null = null;
    if (n.noteable_type === 'Issue') iid = tget(st.issuables.issues, n.noteable_id)?.iid ?? null;
    if (n.noteable_type === 'MergeRequest')
      iid = tget(st.issuables.mergeRequests, n.noteable_id)?.iid ?? null;
    const resolver = n.resolved_by_id ?? null;
    const deps = [
      st.settings,
      tget(st.users, n.author_id),
      resolver === null ? null : tget(st.users, resolver),
    ];
    return this.#notes.bytes(n, `${iid}|${this.base}`, deps, () => JSON.stringify(this.note(n)));
  }

  /** The spec's GET shape of snippet and epic notes. */
  noteOfSnippetOrEpic(n: NoteRecord, parent: SnippetRecord | EpicRecord): Json {
    const out: Json = {
      id: n.id,
      title: parent.title,
      file_name: 'file_name' in parent ? parent.file_name : null,
      author: this.user(n.author_id),
      expires_at: null,
      updated_at: n.updated_at,
      created_at: n.created_at,
    };
    if (n.noteable_type === 'Epic') out.confidential = n.confidential;
    return out;
  }

  /** `AwardEmoji`. */
  award(a: AwardEmojiRecord): Json {
    return {
      id: a.id,
      name: a.name,
      user: this.user(a.user_id),
      created_at: a.created_at,
      updated_at: a.updated_at,
      awardable_id: a.awardable_id,
      awardable_type: a.awardable_type,
    };
  }

  /** `Todo` with its `ProjectIdentity` and the full target. */
  todo(t: TodoRecord, target: Json, targetUrl: string): Json {
    const p = this.project(t.project_id);
    return {
      id: t.id,
      project: {
        id: p.id,
        description: p.description,
        name: p.name,
        name_with_namespace: nameWithNamespace(this.st, p),
        path: p.path,
        path_with_namespace: p.path_with_namespace,
        created_at: p.created_at,
      },
      author: this.user(t.author_id),
      action_name: t.action,
      target_type: t.target_type,
      target,
      target_url: targetUrl,
      body: t.body,
      state: t.state,
      created_at: t.created_at,
      updated_at: t.updated_at,
    };
  }

  /**
   * `Entities::Commit` of a version's commits, from the object store (a snapshot imported without its
   * objects shows what it recorded).
   */
  versionCommits(d: DiffVersionRecord, p: Project | undefined): Json[] {
    const store = objectsOf(this.st);
    const url = (id: string) => (p ? `${this.base}/${p.path_with_namespace}/-/commit/${id}` : null);
    return d.commits.map((cm, i) => {
      const o = store.commit(cm.id);
      if (o)
        return {
          id: cm.id,
          short_id: cm.id.slice(0, 8),
          created_at: gitTime(o.committer.time),
          parent_ids: [...o.parents],
          title: o.message.split('\n', 1)[0]!,
          message: o.message,
          author_name: o.author.name,
          author_email: o.author.email,
          authored_date: gitTime(o.author.time),
          committer_name: o.committer.name,
          committer_email: o.committer.email,
          committed_date: gitTime(o.committer.time),
          trailers: {},
          web_url: url(cm.id),
        };
      return {
        id: cm.id,
        short_id: cm.short_id,
        created_at: cm.created_at,
        parent_ids: [d.commits[i + 1]?.id ?? d.base_commit_sha],
        title: cm.title,
        message: cm.message,
        author_name: cm.author_name,
        author_email: cm.author_email,
        authored_date: cm.created_at,
        committer_name: cm.author_name,
        committer_email: cm.author_email,
        committed_date: cm.created_at,
        web_url: url(cm.id),
      };
    });
  }

  /** `MergeRequestDiff`; `full` adds commits and diffs (`MergeRequestDiffFull`). */
  diffVersion(d: DiffVersionRecord, full: boolean): Json {
    const out: Json = {
      id: d.id,
      head_commit_sha: d.head_commit_sha,
      base_commit_sha: d.base_commit_sha,
      start_commit_sha: d.start_commit_sha,
      created_at: d.created_at,
      merge_request_id: d.merge_request_id,
      state: d.state,
      real_size: d.real_size,
    };
    if (!full) return out;
    const mr = tget(this.st.issuables.mergeRequests, d.merge_request_id);
    const p = mr ? this.project(mr.project_id) : undefined;
    out.commits = this.versionCommits(d, p);
    out.diffs = d.files.map((f) => ({ ...f }));
    return out;
  }
}

/** `name_with_namespace`: the namespace's human path and the project's name, joined by " / ". */
export function nameWithNamespace(st: PlatformState, p: Project): string {
  if (p.namespace_kind === 'user') {
    const u = p.owner_id === null ? undefined : tget(st.users, p.owner_id);
    return `${u?.name ?? ''} / ${p.name}`;
  }
  const names: string[] = [];
  for (
    let g = tget(st.groups, p.namespace_id);
    g;
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
  )
    names.unshift(g.name);
  return [...names, p.name].join(' / ');
}

/** `Gitlab::TimeTrackingFormatter.output`: `1w 2d 3h 4m` (8-hour days, 5-day weeks, 4-week months). */
export function humanTime(seconds: number): string {
  const units: [string, number][] = [
    ['mo', 4 * 5 * 8 * 3600],
    ['w', 5 * 8 * 3600],
    ['d', 8 * 3600],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ];
  let rest = Math.abs(seconds);
  const parts: string[] = [];
  for (const [u, n] of units) {
    const q = Math.floor(rest / n);
    if (q) parts.push(`${q}${u}`);
    rest -= q * n;
  }
  return (seconds < 0 ? '-' : '') + (parts.join(' ') || '0m');
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

export const issuableRenderer = (c: Ctx, from: From = null) => new IssuableRenderer(c, from);
