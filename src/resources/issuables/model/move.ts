/**
 * Moving an issue to another project (`Issues::MoveService` on `Issuable::Clone::BaseService`) and
 * placing it among its project's issues (`RelativePositioning`).
 */
import { type Draft } from 'immer';
import { type PlatformState } from '../../../core/state.js';
import { mget, tget } from '../../../core/table.js';
import { type Project } from '../../projects/record.js';
import { chunkIds, type IssueRecord } from '../store.js';
import { addAward } from './awards.js';
import { availableLabels, projectThenGroupKeys } from './labels.js';
import { createIssue, closeIssue } from './issues.js';
import { projectMeta } from './meta.js';
import { createNote, resourceEvent, systemNote, type Target } from './notes.js';

type S = Draft<PlatformState>;

/** `Issue#to_reference(from)`: the bare `#iid` in its own project, the project path within a namespace. */
export function issueReference(issueProject: Project, from: Project, iid: number): string {
  if (issueProject.id === from.id) return `#${iid}`;
  const sameNamespace =
    issueProject.namespace_kind === from.namespace_kind && issueProject.namespace_id === from.namespace_id;
  return `${sameNamespace ? issueProject.path : issueProject.path_with_namespace}#${iid}`;
}

/** `MilestonesFinder` by title in the project and its groups, the project's own first. */
function milestoneByTitle(st: PlatformState, project: Project, title: string): number | null {
  for (const k of projectThenGroupKeys(st, project, 'p', 'g'))
    for (const id of mget(st.issuables.idx.owned, k))
      if (tget(st.issuables.milestones, id)!.title === title) return id;
  return null;
}

/**
 * `Issuable::Clone::AttributesRewriter` (and EE's weight events): the original's resource events, before
 * its closing, copied with their authors and times. A label event keeps its label, whatever project owns
 * it; a milestone event names the target's milestone of the same title, and an `add` with none is dropped
 * while a `remove` keeps no milestone. Spent time is not copied in 13.x (the new issue starts at 0).
 */
function copyResourceEvents(st: S, fromId: number, to: Target, target: Project): void {
  for (const id of [...mget(st.issuables.idx.byTarget, `eIssue:${fromId}`)]) {
    const e = tget(st.issuables.events, id)!;
    if (e.kind === 'milestone') {
      const title =
        e.milestone_id === null ? undefined : tget(st.issuables.milestones, e.milestone_id)?.title;
      const match = title === undefined ? null : milestoneByTitle(st, target, title);
      if (e.action === 'add' && match === null) continue;
      resourceEvent(st, to, e.user_id, e.created_at, {
        kind: 'milestone',
        action: e.action ?? undefined,
        ...(e.action === 'add' && match !== null && { milestone_id: match }),
        ...(e.issuable_state !== undefined && { issuable_state: e.issuable_state }),
      });
      continue;
    }
    resourceEvent(st, to, e.user_id, e.created_at, {
      kind: e.kind,
      ...(e.state !== null && { state: e.state }),
      ...(e.action !== null && { action: e.action }),
      ...(e.weight !== null && { weight: e.weight }),
      ...(e.label_id !== undefined && { label_id: e.label_id }),
    });
  }
}

/**
 * Copies the issue into `target` as a new issue (next iid, same author, assignees, text, dates and
 * state; labels and milestone matched by title among the target's; notes and award emoji copied), closes
 * the original, marks it moved and writes the two system notes. Returns the new issue's id.
 */
export function moveIssue(
  st: S,
  issueId: number,
  source: Project,
  target: Project,
  userId: number,
  now: string,
): number {
  const old = tget(st.issuables.issues, issueId)!;
  const labelTitles = new Set(
    old.label_ids.map((id) => tget(st.issuables.labels, id)?.title).filter((t) => t !== undefined),
  );
  const labelIds: number[] = [];
  for (const l of availableLabels(st, target))
    if (labelTitles.has(l.title) && !labelIds.some((id) => tget(st.issuables.labels, id)!.title === l.title))
      labelIds.push(l.id);
  const milestone = old.milestone_id === null ? undefined : tget(st.issuables.milestones, old.milestone_id);
  const newId = createIssue(
    st,
    {
      project_id: target.id,
      author_id: old.author_id,
      title: old.title,
      description: old.description,
      assignee_ids: old.assignee_ids,
      label_ids: labelIds,
      milestone_id: milestone ? milestoneByTitle(st, target, milestone.title) : null,
      created_at: old.created_at,
      updated_at: now,
      closed_at: old.closed_at,
      closed_by_id: old.closed_by_id,
      state: old.state,
      confidential: old.confidential,
      discussion_locked: old.discussion_locked,
      due_date: old.due_date,
      weight: old.weight,
      issue_type: old.issue_type,
    },
    now,
  );
  const fresh = tget(st.issuables.issues, newId)!;
  fresh.time_estimate = old.time_estimate;
  // `Notes::CopyService`: every note with its author and time, and the notes' award emoji.
  const discussions = new Map<string, string>();
  for (const noteId of mget(st.issuables.idx.notes, `Issue:${issueId}`)) {
    const n = tget(st.issuables.notes, noteId)!;
    const copyId = createNote(
      st,
      {
        noteable_type: 'Issue',
        noteable_id: newId,
        project_id: target.id,
        author_id: n.author_id,
        body: n.body,
        system: n.system,
        confidential: n.confidential,
        created_at: n.created_at,
        updated_at: n.updated_at,
        discussion_id: discussions.get(n.discussion_id),
        type: n.type,
      },
      now,
    );
    if (!discussions.has(n.discussion_id))
      discussions.set(n.discussion_id, tget(st.issuables.notes, copyId)!.discussion_id);
    for (const a of mget(st.issuables.idx.awards, `Note:${noteId}`)) {
      const aw = tget(st.issuables.awards, a)!;
      addAward(st, 'Note', copyId, aw.user_id, aw.name, aw.created_at);
    }
  }
  for (const a of mget(st.issuables.idx.awards, `Issue:${issueId}`)) {
    const aw = tget(st.issuables.awards, a)!;
    addAward(st, 'Issue', newId, aw.user_id, aw.name, aw.created_at);
  }
  copyResourceEvents(st, issueId, { type: 'Issue', id: newId, project_id: target.id }, target);
  const oldDraft = tget(st.issuables.issues, issueId)!;
  if (oldDraft.state === 'opened') closeIssue(st, oldDraft, userId, now);
  oldDraft.moved_to_id = newId;
  oldDraft.updated_at = now;
  const newIid = tget(st.issuables.issues, newId)!.iid;
  systemNote(
    st,
    { type: 'Issue', id: newId, project_id: target.id },
    userId,
    `moved from ${issueReference(source, target, oldDraft.iid)}`,
    now,
  );
  systemNote(
    st,
    { type: 'Issue', id: issueId, project_id: source.id },
    userId,
    `moved to ${issueReference(target, source, newIid)}`,
    now,
  );
  const moved = tget(st.issuables.issues, newId)!;
  moved.updated_at = now;
  projectMeta(st, source.id);
  return newId;
}

// ---------------------------------------------------------------------------------------------------
// Relative positions

/** `RelativePositioning` of 13.x: the column's bounds and the gaps it keeps. */
const MIN_POSITION = -2_147_483_648;
const MAX_POSITION = 2_147_483_647;
const IDEAL_DISTANCE = 511;
const MAX_GAP = IDEAL_DISTANCE * 2;

/** `position_between`: the midpoint, or an ideal step away from an open end. */
function positionBetween(before: number | null, after: number | null): number {
  let lo = before ?? MIN_POSITION;
  let hi = after ?? MAX_POSITION;
  if (lo > hi) [lo, hi] = [hi, lo];
  const gap = hi - lo;
  const midpoint = Math.min(hi - 1, lo + Math.floor(gap / 2));
  if (gap > MAX_GAP) {
    if (lo <= MIN_POSITION) return hi - IDEAL_DISTANCE;
    if (hi >= MAX_POSITION) return lo + IDEAL_DISTANCE;
  }
  return midpoint;
}

/** The positioned issues of a project other than `ignoring`, ordered by position. */
function siblings(st: S, projectId: number, ignoring: number): Draft<IssueRecord>[] {
  const meta = tget(st.issuables.projectMeta, projectId);
  const out: Draft<IssueRecord>[] = [];
  for (const id of chunkIds(st.issuables.idx.byProject, 'i', projectId, meta?.issue_iid ?? 0)) {
    const i = tget(st.issuables.issues, id)!;
    if (id !== ignoring && i.relative_position !== null) out.push(i);
  }
  return out.sort((a, b) => a.relative_position! - b.relative_position! || a.id - b.id);
}

/**
 * `Issue#move_between(before, after)`: the issue goes right after `before` and/or right before `after`
 * (the two sorted by position when both are given). Where no integer is free between two neighbours,
 * the issues from the upper neighbour on shift up by the ideal distance to make room.
 */
export function placeIssue(st: S, issueId: number, beforeId: number | null, afterId: number | null): void {
  const issue = tget(st.issuables.issues, issueId)!;
  const list = siblings(st, issue.project_id, issueId);
  let lo = beforeId === null ? undefined : list.find((i) => i.id === beforeId);
  let hi = afterId === null ? undefined : list.find((i) => i.id === afterId);
  if (lo && hi && lo.relative_position! > hi.relative_position!) [lo, hi] = [hi, lo];
  if (lo && !hi) hi = list.find((i) => i.relative_position! > lo!.relative_position!);
  else if (hi && !lo) lo = list.findLast((i) => i.relative_position! < hi!.relative_position!);
  const loPos = lo ? lo.relative_position! : null;
  let hiPos = hi ? hi.relative_position! : null;
  if (loPos !== null && hiPos !== null && hiPos - loPos < 2) {
    for (const i of list) if (i.relative_position! >= hiPos) i.relative_position! += IDEAL_DISTANCE;
    hiPos += IDEAL_DISTANCE;
  }
  issue.relative_position = positionBetween(loPos, hiPos);
  const meta = projectMeta(st, issue.project_id);
  meta.last_position = Math.max(
    meta.last_position,
    issue.relative_position,
    ...list.map((i) => i.relative_position!),
  );
}
