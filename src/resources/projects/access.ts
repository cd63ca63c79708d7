/**
 * What a viewer may do with a project, beyond reading it: the platform's ProjectPolicy and ProjectFeature
 * rules that decide which fields an entity shows and which writes are allowed.
 */
import { ACCESS, groupAccess, memberKey, projectAccess } from '../../core/access.js';
import type { GroupRecord, PlatformState, UserRecord } from '../../core/state.js';
import { iget, mget, tget } from '../../core/table.js';
import type { FeatureAccess, Project } from './model.js';

/** The level of a direct membership, 0 when none. */
export function directLevel(
  st: PlatformState,
  source: 'project' | 'group',
  sourceId: number,
  userId: number,
): number {
  const id = iget(st.idx.members, memberKey(source, sourceId, userId));
  return id === undefined ? 0 : (tget(st.members, id)?.access_level ?? 0);
}

/** Whether the user owns the personal namespace the project lives in. */
export const isPersonalOwner = (p: Project, user: UserRecord | null): boolean =>
  !!user && p.namespace_kind === 'user' && p.owner_id === user.id;

/**
 * The user's project authorization (`project_authorizations`): memberships, the group tree, shares. In
 * the 13.x era a personal project's owner is authorized as a maintainer, although the policy lets them
 * do everything an owner does (see `projectAccess`).
 */
export function authorizationLevel(st: PlatformState, user: UserRecord | null, p: Project): number {
  if (!user) return 0;
  if (!isPersonalOwner(p, user)) return projectAccess(st, user, p);
  let level = Math.max(ACCESS.MAINTAINER, directLevel(st, 'project', p.id, user.id));
  for (const shareId of mget(st.idx.sharesBy, String(p.id))) {
    const share = tget(st.shares, shareId)!;
    const g = tget(st.groups, share.group_id);
    if (g) level = Math.max(level, Math.min(share.group_access, groupAccess(st, user, g)));
  }
  return level;
}

/** The minimum membership a `private` feature needs (`ProjectFeature::PRIVATE_FEATURES_MIN_ACCESS_LEVEL`). */
const PRIVATE_MIN: Record<string, number> = { repository: ACCESS.REPORTER, merge_requests: ACCESS.REPORTER };

/** `ProjectFeature#feature_available?(feature, user)`. */
export function featureAvailable(
  level: FeatureAccess,
  feature: string,
  access: number,
  admin: boolean,
): boolean {
  if (level === 'disabled') return false;
  if (level === 'private') return admin || access >= (PRIVATE_MIN[feature] ?? ACCESS.GUEST);
  return true;
}

/** `download_code`: the repository is readable (guests of private projects may not). */
export function canDownloadCode(p: Project, user: UserRecord | null, access: number): boolean {
  const admin = user?.admin === true;
  if (!featureAvailable(p.repository_access_level, 'repository', access, admin)) return false;
  if (admin || access >= ACCESS.REPORTER) return true;
  if (p.visibility === 'public') return true;
  return p.visibility === 'internal' && !!user && !user.external;
}

/** The group chain of a group project, nearest first. */
export function groupChain(st: PlatformState, p: Project): GroupRecord[] {
  const out: GroupRecord[] = [];
  if (p.namespace_kind !== 'group') return out;
  for (
    let g = tget(st.groups, p.namespace_id);
    g;
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
  )
    out.push(g);
  return out;
}

/** The highest direct membership on the project's group or its ancestors (`highest_group_member`). */
export function highestGroupLevel(st: PlatformState, p: Project, userId: number): number {
  let level = 0;
  for (const g of groupChain(st, p)) level = Math.max(level, directLevel(st, 'group', g.id, userId));
  return level;
}
