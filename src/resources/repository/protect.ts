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
import type { UserRecord } from '../../core/state.js';
import type { Group } from '../groups/model.js';
import { tagProtections } from '../protected_tags/model.js';
import type { Project } from '../projects/model.js';
import { setting } from '../settings/model.js';
import { allows, canPushCode, protectionsOf } from './access.js';
import { BLANK_SHA, refTarget } from './refs.js';

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

/** `Gitlab::Checks::TagCheck::ERROR_MESSAGES` (13.12). */
export const TAG_MESSAGES = {
  changeExisting: 'You are not allowed to change existing tags on this project.',
  updateProtected: 'Protected tags cannot be updated.',
  deleteProtected: 'Protected tags cannot be deleted.',
  createProtected: 'You are not allowed to create this tag as it is protected.',
};

/** `ProtectedTag.protected?`. */
export const tagProtected = (st: PlatformState, projectId: number, tag: string): boolean =>
  tagProtections(st, projectId, tag).length > 0;

/**
 * `Gitlab::UserAccess#can_create_tag?`: a protected tag needs one of its rules' create access level
 * (`ProtectedTag::CreateAccessLevel#check_access`: "No one" refuses administrators too); any other tag
 * needs `admin_tag`, which is `push_code` (developers).
 */
export function canCreateTag(st: PlatformState, user: UserRecord | null, p: Project, tag: string): boolean {
  if (!user) return false;
  const rules = tagProtections(st, p.id, tag);
  if (rules.length === 0) return canPushCode(st, user, p);
  return rules.some(
    (r) => r.create_access_level !== ACCESS.NONE && allows(st, user, p, r.create_access_level),
  );
}

/**
 * `Gitlab::Checks::TagCheck#validate!` for one change of a tag, by push or by the tags API (which runs
 * the same hooks): an existing tag is changed only with `admin_tag`; a protected one is never moved or
 * deleted, and created only by who its rules let. The refusal's message, or undefined.
 */
export function tagRefusal(
  st: PlatformState,
  user: UserRecord | null,
  p: Project,
  tag: string,
  change: { creating: boolean; deleting: boolean; exists: boolean },
): string | undefined {
  if (change.exists && !canPushCode(st, user, p)) return TAG_MESSAGES.changeExisting;
  if (!tagProtected(st, p.id, tag)) return undefined;
  if (!change.creating && !change.deleting) return TAG_MESSAGES.updateProtected;
  if (change.deleting) return TAG_MESSAGES.deleteProtected;
  return canCreateTag(st, user, p, tag) ? undefined : TAG_MESSAGES.createProtected;
}

/** `TagCheck` for one command of a push (`git push` of `refs/tags/<name>`): git-http's receive-pack asks here. */
export function tagPushRefusal(
  st: PlatformState,
  user: UserRecord | null,
  p: Project,
  cmd: { old: string; next: string; name?: string },
): string | undefined {
  const tag = cmd.name ?? '';
  return tagRefusal(st, user, p, tag, {
    creating: cmd.old === BLANK_SHA,
    deleting: cmd.next === BLANK_SHA,
    exists: refTarget(st, p, 'tag', tag) !== undefined,
  });
}
