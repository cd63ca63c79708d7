/**
 * `Projects::ProtectDefaultBranchService`: a project's default branch becomes protected as its
 * namespace's `default_branch_protection` says (a group's own value, a personal namespace's the
 * application setting), once the branch first exists: the first push to an empty repository, or a
 * project created with `initialize_with_readme`.
 */
import type { Draft } from 'immer';
import { ACCESS } from '../../core/access.js';
import { nextId, type PlatformState } from '../../core/state.js';
import { madd, tget, tset } from '../../core/table.js';
import type { Group } from '../groups/model.js';
import { setting } from '../settings/model.js';
import { protectionsOf } from './access.js';

/** `Gitlab::Access::BranchProtection` levels. */
const PROTECTION_NONE = 0;
const PROTECTION_DEV_CAN_PUSH = 1;
const PROTECTION_DEV_CAN_MERGE = 3;

/** `Namespace#default_branch_protection`: the group's column, else the instance's setting. */
export function namespaceBranchProtection(st: PlatformState, projectId: number): number {
  const p = tget(st.projects, projectId);
  if (p?.namespace_kind === 'group') {
    const g = tget(st.groups, p.namespace_id) as Group | undefined;
    if (g && typeof g.default_branch_protection === 'number') return g.default_branch_protection;
  }
  const level = setting(st, 'default_branch_protection');
  return typeof level === 'number' ? level : 2;
}

/**
 * Protects the project's default branch (`protect_branch?`: a protection level other than none, and no
 * rule already matching the branch): push and merge by maintainers, developers where the level lets
 * them (`developer_can_push?`, `developer_can_merge?`).
 */
export function protectDefaultBranch(d: Draft<PlatformState>, projectId: number): void {
  const st = d as PlatformState;
  const branch = tget(st.projects, projectId)?.default_branch;
  if (branch === null || branch === undefined) return;
  const level = namespaceBranchProtection(st, projectId);
  if (level === PROTECTION_NONE || protectionsOf(st, projectId, branch).length > 0) return;
  const id = nextId(d, 'protected_branches');
  tset(d.repository.protected, id, {
    id,
    project_id: projectId,
    name: branch,
    push_access_level: level === PROTECTION_DEV_CAN_PUSH ? ACCESS.DEVELOPER : ACCESS.MAINTAINER,
    merge_access_level: level === PROTECTION_DEV_CAN_MERGE ? ACCESS.DEVELOPER : ACCESS.MAINTAINER,
    unprotect_access_level: ACCESS.MAINTAINER,
    allow_force_push: false,
    code_owner_approval_required: false,
  });
  madd(d.repository.idx.protectedBy, String(projectId), id);
}
