/** Per-project and per-group meta records: iid sequences and the version every write bumps. */
import { type Draft } from 'immer';
import { type PlatformState } from '../../../core/state.js';
import { tget, tset } from '../../../core/table.js';
import { type GroupMeta, type ProjectMeta } from '../store.js';

type S = Draft<PlatformState>;

// ---------------------------------------------------------------------------------------------------
// Per-project and per-group meta

/** The project's meta record, created on first use; bumps its version (every caller is a write). */
export function projectMeta(st: S, projectId: number): Draft<ProjectMeta> {
  let m = tget(st.issuables.projectMeta, projectId);
  if (!m) {
    tset(st.issuables.projectMeta, projectId, {
      id: projectId,
      issue_iid: 0,
      mr_iid: 0,
      milestone_iid: 0,
      last_position: 0,
      version: 0,
    });
    m = tget(st.issuables.projectMeta, projectId)!;
  }
  m.version++;
  return m;
}

export function groupMeta(st: S, groupId: number): Draft<GroupMeta> {
  let m = tget(st.issuables.groupMeta, groupId);
  if (!m) {
    tset(st.issuables.groupMeta, groupId, { id: groupId, milestone_iid: 0, epic_iid: 0, version: 0 });
    m = tget(st.issuables.groupMeta, groupId)!;
  }
  m.version++;
  return m;
}
