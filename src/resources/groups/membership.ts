/** Group membership rules the members API and SCIM share: levels, inheritance, validation, last owners. */
import { ACCESS } from '../../core/access.js';
import type { GroupRecord, PlatformState } from '../../core/state.js';
import { iget, mget, tget } from '../../core/table.js';
import { selfAndAncestors, type Errors, type Group } from './model.js';

/** `Gitlab::Access.human_access`. */
export const HUMAN_ACCESS: Record<number, string> = {
  [ACCESS.GUEST]: 'Guest',
  [ACCESS.REPORTER]: 'Reporter',
  [ACCESS.DEVELOPER]: 'Developer',
  [ACCESS.MAINTAINER]: 'Maintainer',
  [ACCESS.OWNER]: 'Owner',
};

/** `Gitlab::Access.all_values`: the levels a group membership may have. */
export const GROUP_MEMBER_LEVELS = [10, 20, 30, 40, 50];

/** The user's highest direct membership on the group's ancestors (`highest_group_member`), with that group. */
export function inheritedMembership(
  st: PlatformState,
  g: GroupRecord,
  userId: number,
): { level: number; group: Group } | undefined {
  let best: { level: number; group: Group } | undefined;
  for (const a of selfAndAncestors(st, g).slice(1)) {
    const id = iget(st.idx.members, `group:${a.id}:${userId}`);
    const m = id === undefined ? undefined : tget(st.members, id);
    if (m && (!best || m.access_level >= best.level)) best = { level: m.access_level, group: a };
  }
  return best;
}

/** The member model's errors for a new or changed group membership. */
export function memberValidationErrors(
  st: PlatformState,
  g: GroupRecord,
  userId: number,
  accessLevel: number,
  expiresAt: string | null | undefined,
  today: string,
): Errors {
  const errors: Errors = {};
  const add = (k: string, msg: string) => (errors[k] ??= []).push(msg);
  if (expiresAt && expiresAt < today) add('expires_at', 'cannot be a date in the past');
  const inherited = inheritedMembership(st, g, userId);
  if (inherited && inherited.level > accessLevel)
    add(
      'access_level',
      `should be greater than or equal to ${HUMAN_ACCESS[inherited.level] ?? inherited.level} inherited membership from group ${inherited.group.name}`,
    );
  if (!GROUP_MEMBER_LEVELS.includes(accessLevel)) add('access_level', 'is not included in the list');
  return errors;
}

/**
 * Whether a membership is the last owner (`member_last_owner?`): the group and its ancestors hold exactly
 * one owner membership, and it is this member's user. Such a member can be neither changed nor removed.
 */
export function isLastOwner(st: PlatformState, g: GroupRecord, userId: number): boolean {
  let owners = 0;
  let own = false;
  for (const a of selfAndAncestors(st, g))
    for (const id of mget(st.idx.membersBySource, `group:${a.id}`)) {
      const m = tget(st.members, id)!;
      if (m.access_level !== ACCESS.OWNER) continue;
      owners++;
      if (m.user_id === userId) own = true;
    }
  return owners === 1 && own;
}

/**
 * The memberships a group membership's removal takes along (`delete_subresources`): the same user's
 * memberships of the subgroups and of the projects anywhere below.
 */
export function subresourceMemberships(st: PlatformState, groupId: number, userId: number): number[] {
  const out: number[] = [];
  for (const id of mget(st.idx.membersByUser, String(userId))) {
    const m = tget(st.members, id)!;
    let start: GroupRecord | undefined;
    if (m.source === 'group') {
      if (m.source_id === groupId) continue;
      start = tget(st.groups, m.source_id);
    } else {
      const p = tget(st.projects, m.source_id);
      start = p && p.namespace_kind === 'group' ? tget(st.groups, p.namespace_id) : undefined;
    }
    if (start && selfAndAncestors(st, start).some((a) => a.id === groupId)) out.push(id);
  }
  return out;
}
