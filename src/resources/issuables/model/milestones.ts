/** Milestone writes: create, delete, promote. */
import { type Draft } from 'immer';
import { nextId, type PlatformState } from '../../../core/state.js';
import { madd, mget, mremove, tdelete, tget, tset } from '../../../core/table.js';
import { chunkIds, type IssueRecord, type MilestoneRecord } from '../store.js';
import { setMilestone } from './issues.js';
import { groupMeta, projectMeta } from './meta.js';
import type { Target } from './notes.js';

type S = Draft<PlatformState>;

// ---------------------------------------------------------------------------------------------------
// Milestones

export interface NewMilestone {
  title: string;
  description?: string | null;
  state?: 'active' | 'closed';
  due_date?: string | null;
  start_date?: string | null;
  created_at?: string;
  updated_at?: string;
}

export function createMilestone(
  st: S,
  owner: { project_id: number } | { group_id: number },
  input: NewMilestone,
  now: string,
): number {
  const id = nextId(st, 'milestones');
  const projectId = 'project_id' in owner ? owner.project_id : null;
  const groupId = 'group_id' in owner ? owner.group_id : null;
  const meta = projectId !== null ? projectMeta(st, projectId) : groupMeta(st, groupId!);
  const iid = ++meta.milestone_iid;
  const created = input.created_at ?? now;
  const rec: MilestoneRecord = {
    id,
    iid,
    project_id: projectId,
    group_id: groupId,
    title: input.title,
    description: input.description ?? null,
    state: input.state ?? 'active',
    due_date: input.due_date ?? null,
    start_date: input.start_date ?? null,
    created_at: created,
    updated_at: input.updated_at ?? created,
  };
  tset(st.issuables.milestones, id, rec);
  madd(st.issuables.idx.owned, projectId !== null ? `p${projectId}` : `g${groupId}`, id);
  return id;
}

/** Milestone titles are unique per project and per group. */
export function milestoneTitleTaken(
  st: PlatformState,
  owner: { project_id: number } | { group_id: number },
  title: string,
  exceptId?: number,
): boolean {
  const key = 'project_id' in owner ? `p${owner.project_id}` : `g${owner.group_id}`;
  return mget(st.issuables.idx.owned, key).some(
    (id) => id !== exceptId && tget(st.issuables.milestones, id)?.title === title,
  );
}

/** Deletes a milestone; its issues and merge requests lose it (`Milestones::DestroyService`). */
export function deleteMilestone(st: S, id: number, userId: number, now: string): void {
  const m = tget(st.issuables.milestones, id);
  if (!m) return;
  for (const projectId of milestoneProjects(st, m)) {
    const meta = tget(st.issuables.projectMeta, projectId);
    if (!meta) continue;
    for (const kind of ['i', 'm'] as const) {
      const table = kind === 'i' ? st.issuables.issues : st.issuables.mergeRequests;
      for (const rid of chunkIds(
        st.issuables.idx.byProject,
        kind,
        projectId,
        kind === 'i' ? meta.issue_iid : meta.mr_iid,
      )) {
        const rec = tget(table as typeof st.issuables.issues, rid) as Draft<IssueRecord> | undefined;
        if (rec?.milestone_id === id) {
          const t: Target = { type: kind === 'i' ? 'Issue' : 'MergeRequest', id: rid, project_id: projectId };
          setMilestone(st, rec, t, null, userId, now);
          projectMeta(st, projectId);
        }
      }
    }
  }
  mremove(st.issuables.idx.owned, m.project_id !== null ? `p${m.project_id}` : `g${m.group_id}`, id);
  tdelete(st.issuables.milestones, id);
}

/** The projects whose issuables may use a milestone: its project, or every project under its group. */
export function milestoneProjects(st: PlatformState, m: MilestoneRecord): number[] {
  if (m.project_id !== null) return [m.project_id];
  const out: number[] = [];
  const groups = [m.group_id!];
  for (let i = 0; i < groups.length; i++) {
    for (const pid of mget(st.idx.projectsByNamespace, `group:${groups[i]}`)) out.push(pid);
    for (const child of mget(st.idx.subgroups, String(groups[i]))) groups.push(child);
  }
  return out;
}

/**
 * `Milestones::PromoteService`: a group milestone with the project milestone's title takes over the
 * issues and merge requests of every same-titled milestone in the group's projects, which are deleted.
 */
export function promoteMilestone(st: S, id: number, groupId: number, now: string): number {
  const m = tget(st.issuables.milestones, id)!;
  const groupMs = createMilestone(
    st,
    { group_id: groupId },
    {
      title: m.title,
      description: m.description,
      state: m.state,
      due_date: m.due_date,
      start_date: m.start_date,
    },
    now,
  );
  const group = milestoneProjects(st, tget(st.issuables.milestones, groupMs)!);
  const merged = new Set<number>();
  for (const pid of group)
    for (const mid of mget(st.issuables.idx.owned, `p${pid}`)) {
      const pm = tget(st.issuables.milestones, mid)!;
      if (pm.title === m.title) merged.add(mid);
    }
  for (const pid of group) {
    const meta = tget(st.issuables.projectMeta, pid);
    if (!meta) continue;
    let touched = false;
    for (const rid of chunkIds(st.issuables.idx.byProject, 'i', pid, meta.issue_iid)) {
      const rec = tget(st.issuables.issues, rid)!;
      if (rec.milestone_id !== null && merged.has(rec.milestone_id)) {
        rec.milestone_id = groupMs;
        touched = true;
      }
    }
    for (const rid of chunkIds(st.issuables.idx.byProject, 'm', pid, meta.mr_iid)) {
      const rec = tget(st.issuables.mergeRequests, rid)!;
      if (rec.milestone_id !== null && merged.has(rec.milestone_id)) {
        rec.milestone_id = groupMs;
        touched = true;
      }
    }
    if (touched) projectMeta(st, pid);
  }
  for (const mid of merged) {
    const pm = tget(st.issuables.milestones, mid)!;
    mremove(st.issuables.idx.owned, `p${pm.project_id}`, mid);
    tdelete(st.issuables.milestones, mid);
  }
  return groupMs;
}
