/** Who may do what with a group, beyond reading it (the platform's GroupPolicy). */
import { ACCESS, findGroup, groupAccess } from '../../core/access.js';
import type { Ctx } from '../../core/context.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import type { Group } from './model.js';

/** `find_group!`, typed with the area's fields: numeric id or full path; hidden and missing are one 404. */
export const findGroupRecord = (c: Ctx, id: string) => findGroup(c, id) as Group;

/**
 * `admin_group` and the other owner permissions (`admin_group_member`, `change_visibility_level`): owners
 * of the group or of an ancestor, and admins, who count as owners of every group.
 */
export function canAdminGroup(st: PlatformState, user: UserRecord | null, g: Group): boolean {
  return !!user && (user.admin || groupAccess(st, user, g) >= ACCESS.OWNER);
}

/** `create_subgroup`: owners, and maintainers where the group lets maintainers create subgroups. */
export function canCreateSubgroup(st: PlatformState, user: UserRecord, parent: Group): boolean {
  if (user.admin) return true;
  const level = groupAccess(st, user, parent);
  return (
    level >= ACCESS.OWNER || (level >= ACCESS.MAINTAINER && parent.subgroup_creation_level === 'maintainer')
  );
}
