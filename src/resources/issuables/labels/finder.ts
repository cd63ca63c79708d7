/**
 * `LabelsFinder` as the labels API uses it (`available_labels_for`, `find_label`), and the `ProjectLabel`
 * and `GroupLabel` entities.
 */
import { canReadGroup, canReadProject } from '../../../core/access.js';
import { state, type Ctx } from '../../../core/context.js';
import { notFound } from '../../../core/errors.js';
import type { GroupRecord, PlatformState } from '../../../core/state.js';
import { mget, tget } from '../../../core/table.js';
import { descendantIds, selfAndAncestors } from '../../groups/model.js';
import type { Project } from '../../projects/model.js';
import { findContext } from '../common.js';
import { issuableRenderer, type IssuableRenderer } from '../entities.js';
import { findInOneProject, findInProjects, parseSearch, type Filters, type FindRequest } from '../finder.js';
import type { LabelRecord } from '../store.js';
import { labelPriorityIn, labelTitleTaken } from '../model.js';
import { labelSubscribed, ownLabels } from './model.js';

export type LabelParent = { kind: 'project'; project: Project } | { kind: 'group'; group: GroupRecord };

export interface LabelQuery {
  include_ancestor_groups?: boolean;
  include_descendant_groups?: boolean;
  only_group_labels?: boolean;
  search?: string;
}

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The project's group, when it has one. */
export const projectGroup = (st: PlatformState, p: Project) =>
  p.namespace_kind === 'group' ? tget(st.groups, p.namespace_id) : undefined;

/**
 * `available_labels_for(parent, params)`: the project's labels and its group's (with the ancestors when
 * asked), or the group's (with ancestors, descendants, and its projects' labels when asked); only groups
 * and projects the viewer can read; by title.
 */
export function availableLabels(c: Ctx, parent: LabelParent, q: LabelQuery): LabelRecord[] {
  const st = state(c);
  const user = c.get('viewer').user;
  const groups: GroupRecord[] = [];
  const projects: number[] = [];
  let start: GroupRecord | undefined;
  if (parent.kind === 'project') {
    projects.push(parent.project.id);
    start = projectGroup(st, parent.project);
  } else start = parent.group;
  if (start) {
    groups.push(...(q.include_ancestor_groups ? selfAndAncestors(st, start) : [start]));
    if (parent.kind === 'group' && q.include_descendant_groups)
      for (const id of descendantIds(st, start.id)) groups.push(tget(st.groups, id)!);
  }
  if (parent.kind === 'group' && q.only_group_labels === false) {
    const ids = q.include_descendant_groups
      ? [parent.group.id, ...descendantIds(st, parent.group.id)]
      : [parent.group.id];
    for (const id of ids) projects.push(...mget(st.idx.projectsByNamespace, `group:${id}`));
  }
  let out: LabelRecord[] = [];
  for (const g of groups) if (canReadGroup(st, user, g)) out.push(...ownLabels(st, { group_id: g.id }));
  for (const pid of projects) {
    const p = tget(st.projects, pid);
    if (p && canReadProject(st, user, p)) out.push(...ownLabels(st, { project_id: pid }));
  }
  const search = q.search === undefined ? undefined : parseSearch(q.search);
  if (search) {
    const hit = (t: string | null) =>
      t !== null &&
      (search.exact !== null
        ? t.toLowerCase() === search.exact
        : search.words.every((w) => t.toLowerCase().includes(w)));
    out = out.filter((l) => hit(l.title) || hit(l.description));
  }
  return out.sort((a, b) => byteOrder(a.title, b.title) || a.id - b.id);
}

/**
 * Whether `title` is among the labels `availableLabels(c, parent, { include_ancestor_groups: true,
 * only_group_labels: true })` gives, without listing them: the same owners, read by the same rules.
 */
export function availableTitleTaken(c: Ctx, parent: LabelParent, title: string): boolean {
  const st = state(c);
  const user = c.get('viewer').user;
  let start: GroupRecord | undefined;
  if (parent.kind === 'project') {
    const p = tget(st.projects, parent.project.id);
    if (p && canReadProject(st, user, p) && labelTitleTaken(st, `lp${p.id}`, title)) return true;
    start = projectGroup(st, parent.project);
  } else start = parent.group;
  if (start)
    for (const g of selfAndAncestors(st, start))
      if (canReadGroup(st, user, g) && labelTitleTaken(st, `lg${g.id}`, title)) return true;
  return false;
}

/** `find_label`: by id, else by title; `404 Label Not Found`. */
export function findLabel(c: Ctx, parent: LabelParent, idOrTitle: string, q: LabelQuery): LabelRecord {
  const labels = availableLabels(c, parent, q);
  const label =
    (/^\d+$/.test(idOrTitle) ? labels.find((l) => l.id === Number(idOrTitle)) : undefined) ??
    labels.find((l) => l.title === idOrTitle);
  if (!label) throw notFound('Label', 'no such label among the available ones');
  return label;
}

/** `Label#open_issues_count(user)` and the like: through the finders, in the label's project or group. */
function counts(c: Ctx, l: LabelRecord): Record<string, number> {
  const st = state(c);
  const ctx = findContext(c);
  const count = (kind: 'i' | 'm', stateName: string) => {
    const filters: Filters = { scope: 'all', state: stateName, labels: [l.title.toLowerCase()], not: {} };
    const req: FindRequest = { kind, filters, orderBy: 'created_at', sort: 'desc' };
    if (l.project_id !== null) {
      const p = tget(st.projects, l.project_id) as Project | undefined;
      return p ? findInOneProject(ctx, p, req).length : 0;
    }
    return findInProjects(ctx, mget(st.idx.projectsByNamespace, `group:${l.group_id}`), req, false).length;
  };
  return {
    open_issues_count: count('i', 'opened'),
    closed_issues_count: count('i', 'closed'),
    open_merge_requests_count: count('m', 'opened'),
  };
}

/** `Label` (`LabelBasic`, counts when asked, `subscribed`), and for a project `ProjectLabel`'s priority. */
export function labelEntity(
  c: Ctx,
  r: IssuableRenderer,
  l: LabelRecord,
  project: Project | null,
  withCounts = false,
): Record<string, unknown> {
  const st = state(c);
  const out = r.label(l);
  if (withCounts) Object.assign(out, counts(c, l));
  const user = c.get('viewer').user;
  out.subscribed =
    !!user &&
    (labelSubscribed(st, l.id, user.id, null) ||
      (project !== null && labelSubscribed(st, l.id, user.id, project.id)));
  if (project) {
    out.priority = labelPriorityIn(st, project.id, l);
    out.is_project_label = l.project_id !== null;
  }
  return out;
}

/** The entity of a label as its parent's routes present it. */
export const presentLabel = (c: Ctx, parent: LabelParent, l: LabelRecord, withCounts = false) =>
  labelEntity(c, issuableRenderer(c), l, parent.kind === 'project' ? parent.project : null, withCounts);
