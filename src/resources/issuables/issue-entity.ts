/** The issue shapes: `Issue` (lists use it too, without `subscribed`) and `IssueBasic` (milestone lists), kept as bytes per record and per page. */
import type { Ctx } from '../../core/context.js';
import type { RecordRenderings, Renderings } from '../../core/render-cache.js';
import { tget } from '../../core/table.js';
import { FORMS, IssuableRendererBase, type From, type Json } from './render-base.js';
import type { IssueRecord } from './store.js';
import { taskCompletion, taskStatus } from './text.js';

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

export class IssueRenderer extends IssuableRendererBase {
  readonly #issues: RecordRenderings<IssueRecord>;
  readonly #issuePages: RecordRenderings<PageToken>;
  readonly #askedPages: WeakSet<PageToken>;
  readonly #issueKeys: (string | undefined)[] = [];

  constructor(c: Ctx, from: From = null) {
    super(c, from);
    const renderings = c.get('fx').renderings;
    this.#issues = renderings.kind<IssueRecord>('issue');
    this.#issuePages = renderings.kind<PageToken>('issue_page');
    let asked = askedPages.get(renderings);
    if (asked === undefined) askedPages.set(renderings, (asked = new WeakSet()));
    this.#askedPages = asked;
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
   * `issue` as UTF-8 bytes, kept per record (core renderings). The key holds the values the view reads
   * besides records: shape, subscribed, tier, label details, reference form, the base URL, and the day
   * when a milestone's `expired` depends on it.
   */
  issueBytes(i: IssueRecord, o: { basic?: boolean; subscribed?: boolean } = {}): Buffer<ArrayBuffer> {
    const p = this.projectOf(i.project_id);
    const form = this.lastForm;
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
    const deps = this.issuableDeps(i, p);
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
}
