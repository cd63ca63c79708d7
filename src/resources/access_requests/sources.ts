/**
 * What tells a group's pending members from a project's: how the path's source is found, who
 * administers it (`admin_group` owners, `admin_project` maintainers), who may request access
 * (`request_access` in GroupPolicy and ProjectPolicy), the member model's validations and the entity.
 */
import { groupAccess, projectAccess } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import type { MemberRecord, MemberSource, PlatformState, UserRecord } from '../../core/state.js';
import { iget, tget } from '../../core/table.js';
import { canAdminGroup, findGroupRecord } from '../groups/access.js';
import { groupRenderer } from '../groups/entities.js';
import { isLastOwner, memberValidationErrors } from '../groups/membership.js';
import type { Group } from '../groups/model.js';
import { canAdminProject, loadProject } from '../projects/helpers.js';
import { memberErrors } from '../projects/members.js';
import type { Project } from '../projects/record.js';
import { userRenderer } from '../users/entities.js';
import { requestOf } from './model.js';

export interface PendingSource<S extends Group | Project = Group | Project> {
  kind: MemberSource;
  /** `find_source`: the group or project of the path's `:id`, or the 404 the viewer gets. */
  load(c: Ctx): S;
  canAdmin(c: Ctx, user: UserRecord, s: S): boolean;
  /** The `request_access` ability. */
  canRequest(st: PlatformState, user: UserRecord, s: S): boolean;
  /** A direct membership of the user (`source.members`: neither requests nor invitations). */
  directMember(st: PlatformState, s: S, userId: number): boolean;
  /** The member model's errors for a membership (`userId` 0 for an invitation, which has no user). */
  errors(
    st: PlatformState,
    s: S,
    userId: number,
    level: number,
    expiresAt: string | null,
    today: string,
  ): Record<string, string[]>;
  /** A membership nobody may change (`update_*_member` prevented: a group's last owner, a personal
   * project's owner): `Member.add_user` returns it unchanged. */
  locked(st: PlatformState, s: S, userId: number): boolean;
  /** `Entities::Member`. */
  renderMember(c: Ctx): (m: MemberRecord) => Record<string, unknown>;
}

/** Anyone who sees it from outside: public, or internal to a user who is not external. */
const seenGlobally = (user: UserRecord, visibility: string) =>
  visibility === 'public' || (visibility === 'internal' && !user.external);

export const groupPending: PendingSource<Group> = {
  kind: 'group',
  load: (c) => findGroupRecord(c, c.req.param('id')!),
  canAdmin: (c, user, g) => canAdminGroup(state(c), user, g),
  // GroupPolicy: `request_access_enabled`, `view_globally`, and no `has_access` (any membership on the
  // group, its ancestors or through a share; an admin counts as an owner, `max_member_access_for_user`).
  canRequest: (st, user, g) =>
    g.request_access_enabled &&
    seenGlobally(user, g.visibility) &&
    !user.admin &&
    groupAccess(st, user, g) === 0,
  directMember: (st, g, userId) => iget(st.idx.members, `group:${g.id}:${userId}`) !== undefined,
  errors: memberValidationErrors,
  locked: (st, g, userId) => isLastOwner(st, g, userId),
  renderMember: (c) => {
    const rr = groupRenderer(c);
    return (m) => rr.member(m) as Record<string, unknown>;
  },
};

export const projectPending: PendingSource<Project> = {
  kind: 'project',
  load: loadProject,
  canAdmin: (c, _user, p) => canAdminProject(c, p),
  // ProjectPolicy: `public_user_access` enables it; `owner | admin | guest | group_member` and
  // `~request_access_enabled` prevent it. `group_member` (`project_group_member?`) counts the members of
  // the project's group and its ancestors, and the requesters of its group.
  canRequest: (st, user, p) => {
    if (!p.request_access_enabled || user.admin || !seenGlobally(user, p.visibility)) return false;
    if (projectAccess(st, user, p) > 0) return false;
    const g = p.namespace_kind === 'group' ? tget(st.groups, p.namespace_id) : undefined;
    return !g || (groupAccess(st, user, g) === 0 && !requestOf(st, 'group', g.id, user.id));
  },
  directMember: (st, p, userId) =>
    iget(st.idx.members, `project:${p.id}:${userId}`) !== undefined ||
    (p.namespace_kind === 'user' && p.owner_id === userId),
  errors: memberErrors,
  locked: (_st, p, userId) => p.namespace_kind === 'user' && p.owner_id === userId,
  renderMember: (c) => {
    const users = userRenderer(c);
    return (m) => {
      const out = users.basic(tget(state(c).users, m.user_id)!) as Record<string, unknown>;
      out.access_level = m.access_level;
      out.expires_at = m.expires_at;
      return out;
    };
  },
};

export const PENDING_SOURCES = [groupPending, projectPending] as const;
