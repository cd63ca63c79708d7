/**
 * Label writes beyond creation (model/labels.ts): update, delete, priorities, subscriptions and promotion
 * of a project label to a group label. A label shows inside every issue and merge request that carries
 * it, so each write bumps the meta record of the projects that may show it (their list caches key on it).
 */
import { current, isDraft, type Draft } from 'immer';
import { type GroupRecord, type PlatformState } from '../../../core/state.js';
import { idelete, ientries, iget, iset, mget, mremove, tdelete, tget } from '../../../core/table.js';
import { groupProjectIds } from '../finder.js';
import { createLabel, indexLabelTitle, labelTitleTaken, projectMeta, unindexLabelTitle } from '../model.js';
import { chunkIds, type LabelRecord } from '../store.js';
import { colorToHex, validColor } from './colors.js';

type S = Draft<PlatformState>;

export type LabelOwner = { project_id: number } | { group_id: number };

export const ownKey = (o: LabelOwner) => ('project_id' in o ? `lp${o.project_id}` : `lg${o.group_id}`);

export const ownerOf = (l: LabelRecord): LabelOwner =>
  l.project_id !== null ? { project_id: l.project_id } : { group_id: l.group_id! };

/** The labels a project or group owns itself. */
export const ownLabels = (st: PlatformState, o: LabelOwner): LabelRecord[] =>
  mget(st.issuables.idx.owned, ownKey(o)).map((id) => tget(st.issuables.labels, id)!);

const subKey = (labelId: number, userId: number, projectId: number | null) =>
  `${labelId}:${userId}:${projectId ?? 0}`;

/** `Subscribable#subscribed?(user, project)`: labels have no participants, only explicit subscriptions. */
export const labelSubscribed = (
  st: PlatformState,
  labelId: number,
  userId: number,
  projectId: number | null,
) => iget(st.issuables.idx.labelSubscriptions, subKey(labelId, userId, projectId)) === true;

export function setLabelSubscription(
  st: S,
  labelId: number,
  userId: number,
  projectId: number | null,
  subscribed: boolean,
): void {
  iset(st.issuables.idx.labelSubscriptions, subKey(labelId, userId, projectId), subscribed);
}

/** `prioritize!` / `unprioritize!` in a project. */
export function setLabelPriority(st: S, projectId: number, labelId: number, priority: number | null): void {
  const l = tget(st.issuables.labels, labelId)!;
  if (l.project_id === projectId) l.priority = priority;
  else if (priority === null) idelete(st.issuables.idx.labelPriority, `${projectId}:${labelId}`);
  else iset(st.issuables.idx.labelPriority, `${projectId}:${labelId}`, priority);
  touchProjects(st, [projectId]);
}

/** The projects whose issuables may carry the label: its project, or every project under its group. */
export function labelProjects(st: PlatformState, l: LabelRecord): number[] {
  return l.project_id !== null ? [l.project_id] : groupProjectIds(st, l.group_id!);
}

function touchProjects(st: S, projectIds: readonly number[]): void {
  for (const pid of projectIds) if (tget(st.issuables.projectMeta, pid)) projectMeta(st, pid);
}

/** Replaces (or with `to` null, drops) a label on every issue and merge request of the projects. */
function relabel(st: S, projectIds: readonly number[], from: number, to: number | null): void {
  for (const pid of projectIds) {
    const meta = tget(st.issuables.projectMeta, pid);
    if (!meta) continue;
    const ids = [
      ...chunkIds(st.issuables.idx.byProject, 'i', pid, meta.issue_iid).map((id) =>
        tget(st.issuables.issues, id),
      ),
      ...chunkIds(st.issuables.idx.byProject, 'm', pid, meta.mr_iid).map((id) =>
        tget(st.issuables.mergeRequests, id),
      ),
    ];
    let changed = false;
    for (const r of ids) {
      if (!r || !r.label_ids.includes(from)) continue;
      const next = r.label_ids.filter((id) => id !== from);
      if (to !== null && !next.includes(to)) next.push(to);
      r.label_ids = next;
      changed = true;
    }
    if (changed) projectMeta(st, pid);
  }
}

export interface LabelChanges {
  title?: string;
  color?: string;
  description?: string | null;
}

export function updateLabel(st: S, id: number, ch: LabelChanges, now: string): void {
  const l = tget(st.issuables.labels, id)!;
  if (ch.title !== undefined && ch.title !== l.title) {
    const key = ownKey(ownerOf(l));
    unindexLabelTitle(st, key, l.title, id);
    indexLabelTitle(st, key, ch.title, id);
  }
  if (ch.title !== undefined) l.title = ch.title;
  if (ch.color !== undefined) l.color = ch.color;
  if (ch.description !== undefined) l.description = ch.description;
  l.updated_at = now;
  touchProjects(st, labelProjects(st, l));
}

/** Destroys a label: off every issuable, with its priorities and subscriptions. */
export function deleteLabel(st: S, id: number): void {
  const l = tget(st.issuables.labels, id);
  if (!l) return;
  const projects = labelProjects(st, l);
  relabel(st, projects, id, null);
  touchProjects(st, projects);
  for (const pid of projects) idelete(st.issuables.idx.labelPriority, `${pid}:${id}`);
  dropSubscriptions(st, id);
  mremove(st.issuables.idx.owned, ownKey(ownerOf(l)), id);
  unindexLabelTitle(st, ownKey(ownerOf(l)), l.title, id);
  tdelete(st.issuables.labels, id);
}

function dropSubscriptions(st: S, labelId: number): void {
  const prefix = `${labelId}:`;
  const subs = st.issuables.idx.labelSubscriptions;
  // Keys read from the index as it stands, without drafting every bucket of it.
  const keys: string[] = [];
  for (const [key] of ientries(isDraft(subs) ? current(subs) : subs))
    if (key.startsWith(prefix)) keys.push(key);
  for (const key of keys) idelete(subs, key);
}

/**
 * `Labels::PromoteService`: the group's label of that title (made from this one when there is none)
 * takes the place of every project label so titled in the group's projects, on their issuables and in
 * their priorities; those project labels are then destroyed. Returns the group label's id.
 */
export function promoteLabel(st: S, label: LabelRecord, group: GroupRecord, now: string): number {
  const existing = ownLabels(st, { group_id: group.id }).find((l) => l.title === label.title);
  const groupLabelId =
    existing?.id ??
    createLabel(
      st,
      { group_id: group.id },
      { title: label.title, color: label.color, description: label.description },
      now,
    );
  for (const pid of mget(st.idx.projectsByNamespace, `group:${group.id}`))
    for (const old of ownLabels(st, { project_id: pid })) {
      if (old.title !== label.title) continue;
      relabel(st, [pid], old.id, groupLabelId);
      if (old.priority !== null) iset(st.issuables.idx.labelPriority, `${pid}:${groupLabelId}`, old.priority);
      deleteLabel(st, old.id);
    }
  return groupLabelId;
}

/** Create and update parameters as `Labels::CreateService` / `UpdateService` prepare them. */
export const labelColor = (color: string | undefined) =>
  color !== undefined && color.trim() !== '' ? colorToHex(color) : color;

/**
 * `Label` validations (colour, title presence and format, uniqueness in its owner, length), and for a
 * project label that no group above it has the title; the errors hash, empty when valid.
 */
export function labelErrors(
  st: PlatformState,
  owner: LabelOwner,
  l: { title: string; color: string },
  self?: number,
  groupsAbove: readonly GroupRecord[] = [],
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  if (!validColor(l.color)) add('color', 'must be a valid color code');
  if (l.title === '') add('title', "can't be blank");
  else if (l.title.includes(',')) add('title', 'is invalid');
  if (labelTitleTaken(st, ownKey(owner), l.title, self)) add('title', 'has already been taken');
  if (l.title.length > 255) add('title', 'is too long (maximum is 255 characters)');
  const clash = groupsAbove.find((g) => labelTitleTaken(st, `lg${g.id}`, l.title));
  if (clash) add('title', ` already exists at group level for ${clash.name}. Please choose another one.`);
  return errors;
}
