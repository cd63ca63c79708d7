/** Label writes, and the labels a project may use. */
import { type Draft } from 'immer';
import { nextId, type PlatformState } from '../../../core/state.js';
import { iget, madd, mget, mremove, tget, tset, type MultiIndex } from '../../../core/table.js';
import { type Project } from '../../projects/record.js';
import { type LabelRecord } from '../store.js';

type S = Draft<PlatformState>;

// ---------------------------------------------------------------------------------------------------
// Labels

export interface LabelInput {
  title: string;
  color?: string;
  description?: string | null;
  priority?: number | null;
}

/** `Label::DEFAULT_COLOR` of 13.x. */
export const DEFAULT_LABEL_COLOR = '#428BCA';

export function createLabel(
  st: S,
  owner: { project_id: number } | { group_id: number },
  input: LabelInput,
  now: string,
): number {
  const id = nextId(st, 'labels');
  const rec: LabelRecord = {
    id,
    project_id: 'project_id' in owner ? owner.project_id : null,
    group_id: 'group_id' in owner ? owner.group_id : null,
    title: input.title,
    color: input.color ?? DEFAULT_LABEL_COLOR,
    description: input.description ?? null,
    priority: input.priority ?? null,
    created_at: now,
  };
  tset(st.issuables.labels, id, rec);
  const key = 'project_id' in owner ? `lp${owner.project_id}` : `lg${owner.group_id}`;
  madd(st.issuables.idx.owned, key, id);
  indexLabelTitle(st, key, rec.title, id);
  return id;
}

/** The key of `idx.labelTitles` for a title in an owner (`lp<project>`, `lg<group>`). */
const labelTitleKey = (ownerKey: string, title: string) => `${ownerKey}\u0000${title}`;

/** Files a label under its owner and title (when the state has the index). */
export function indexLabelTitle(st: S, ownerKey: string, title: string, id: number): void {
  const ix = st.issuables.idx.labelTitles;
  if (ix) madd(ix, labelTitleKey(ownerKey, title), id);
}

/** Takes a label off its owner and title (before either changes, or it goes). */
export function unindexLabelTitle(st: S, ownerKey: string, title: string, id: number): void {
  const ix = st.issuables.idx.labelTitles;
  if (ix) mremove(ix, labelTitleKey(ownerKey, title), id);
}

/** Whether a label of the owner keyed `ownerKey`, other than `self`, has the title `title`. */
export function labelTitleTaken(st: PlatformState, ownerKey: string, title: string, self?: number): boolean {
  const ix = st.issuables.idx.labelTitles;
  const ids = ix
    ? mget(ix, labelTitleKey(ownerKey, title))
    : mget(st.issuables.idx.owned, ownerKey).filter((id) => tget(st.issuables.labels, id)!.title === title);
  return ids.some((id) => id !== self);
}

/** Labels available in a project: its own, then its groups' (nearest first). */
export function availableLabels(st: PlatformState, project: Project): LabelRecord[] {
  const out: LabelRecord[] = [];
  for (const k of labelOwnerKeys(st, project))
    for (const id of mget(st.issuables.idx.owned, k)) out.push(tget(st.issuables.labels, id)!);
  return out;
}

/**
 * `Labels::FindOrCreateService` for a list of titles: existing labels by exact title, else (when the
 * caller may create labels) new project labels. Titles that can be neither are dropped.
 */
export function labelIdsFor(
  st: S,
  project: Project,
  titles: readonly string[],
  canCreate: boolean,
  now: string,
): number[] {
  const out: number[] = [];
  const ix = st.issuables.idx.labelTitles;
  // With the title index, the owners the labels would be listed from, in the same order; else the list.
  const owners = ix ? labelOwnerKeys(st, project) : undefined;
  const available = ix ? undefined : availableLabels(st, project);
  for (const raw of titles) {
    const title = raw.trim();
    if (title === '') continue;
    let id = ix ? firstTitled(ix, owners!, title) : available!.find((l) => l.title === title)?.id;
    if (id === undefined && canCreate) {
      id = createLabel(st, { project_id: project.id }, { title }, now);
      available?.push(tget(st.issuables.labels, id)!);
    }
    if (id !== undefined && !out.includes(id)) out.push(id);
  }
  return out;
}

/**
 * Keys of `idx.owned` for a project and its groups, nearest first (`p` + the project's id, then `g` + each
 * group's): the order in which labels and milestones available to a project are looked up.
 */
export function projectThenGroupKeys(st: PlatformState, project: Project, p: string, g: string): string[] {
  const keys = [`${p}${project.id}`];
  if (project.namespace_kind === 'group')
    for (
      let grp = tget(st.groups, project.namespace_id);
      grp;
      grp = grp.parent_id === null ? undefined : tget(st.groups, grp.parent_id)
    )
      keys.push(`${g}${grp.id}`);
  return keys;
}

/** The owner keys of `availableLabels(st, project)`, in its order. */
const labelOwnerKeys = (st: PlatformState, project: Project) => projectThenGroupKeys(st, project, 'lp', 'lg');

/** The first label titled `title` of the first owner that has one (its lowest id), as a list would find it. */
function firstTitled(ix: MultiIndex, owners: readonly string[], title: string): number | undefined {
  for (const k of owners) {
    const ids = mget(ix, labelTitleKey(k, title));
    if (ids.length > 0) return ids[0];
  }
  return undefined;
}

/** `Label#priority(project)`: a project label's own, or a group label's priority in that project. */
export function labelPriorityIn(st: PlatformState, projectId: number, l: LabelRecord): number | null {
  if (l.project_id !== null) return l.project_id === projectId ? l.priority : null;
  return iget(st.issuables.idx.labelPriority, `${projectId}:${l.id}`) ?? null;
}
