/**
 * What the issuable shapes share: users, projects, references, labels, milestones and time stats, and
 * the per-request memos of an issuable's project and rendering deps (src/resources/issuables/entities.ts
 * names the shapes; Grape exposes fields in declaration order, subclasses after their parents, EE
 * additions after the CE ones).
 */
import { state, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { GroupRecord, PlatformState, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { userRenderer, type UserRenderer } from '../users/entities.js';
import type { Project } from '../projects/model.js';
import type { IssueRecord, LabelRecord, MergeRequestRecord, MilestoneRecord } from './store.js';
import { textColorFor } from './text.js';
import { escapeHtml } from '../../core/html.js';

export type Json = Record<string, unknown>;

/** Where a list or item is requested from: references are relative to it. */
export type From = { project: Project } | { group: GroupRecord } | null;

/** The reference forms (see `referenceForm`). */
export const FORMS = ['o', 'p', 'f'] as const;

export class IssuableRendererBase {
  readonly st: PlatformState;
  readonly base: string;
  readonly users: UserRenderer;
  readonly viewer: UserRecord | null;
  readonly paid: boolean;
  readonly nowMs: number;
  readonly today: string;
  withLabelsDetails = false;
  private lastProject: Project | null = null;
  /** `referenceForm` of `lastProject`, as an index of `FORMS`. */
  protected lastForm = 0;
  private depsProject: Project | null = null;
  private depsMilestone: number | null = null;
  private deps: readonly unknown[] = [];

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

  /**
   * How `reference` writes an issuable of `project` relative to where it is asked from, as one letter:
   * its own reference, the project's path before it, or the full path. The rest it reads is the project.
   */
  protected referenceForm(project: Project): (typeof FORMS)[number] {
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
  protected issuableDeps(r: IssueRecord | MergeRequestRecord, p: Project): readonly unknown[] {
    const milestoneId = r.milestone_id;
    if (p === this.depsProject && milestoneId === this.depsMilestone) return this.deps;
    const st = this.st;
    let deps: unknown[];
    if (milestoneId === null) deps = [st.settings, p, st.users, st.issuables.labels];
    else {
      const m = tget(st.issuables.milestones, milestoneId);
      const parent =
        m && (m.project_id !== null ? tget(st.projects, m.project_id) : tget(st.groups, m.group_id!));
      deps = [st.settings, p, st.users, st.issuables.labels, m, parent];
    }
    this.depsProject = p;
    this.depsMilestone = milestoneId;
    return (this.deps = deps);
  }

  /**
   * An issuable's project and how references to it are written from here, remembered for the next
   * issuable of the same project (a project's list names one project only).
   */
  protected projectOf(id: number): Project {
    const last = this.lastProject;
    if (last !== null && last.id === id) return last;
    const p = this.project(id);
    this.lastProject = p;
    this.lastForm = FORMS.indexOf(this.referenceForm(p));
    return p;
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
