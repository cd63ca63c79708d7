/**
 * The group members API: `/groups/:id/members` (list, show, add, change, remove) and `/members/all`
 * (with the memberships inherited from ancestor groups). The routes themselves are the shared members API.
 */
import { state } from '../../core/context.js';
import type { MemberRecord, PlatformState } from '../../core/state.js';
import { iget, mget, tget } from '../../core/table.js';
import type { ApiRouter } from '../../core/router.js';
import { bestPerUser, memberRoutes } from '../members/routes.js';
import { groupRenderer } from './entities.js';
import { selfAndAncestors, type Group } from './model.js';
import { isLastOwner, memberValidationErrors, subresourceMemberships } from './membership.js';
import { canAdminGroup, findGroupRecord } from './access.js';

const directMembers = (st: PlatformState, g: Group) =>
  mget(st.idx.membersBySource, `group:${g.id}`).map((id) => tget(st.members, id)!);

export function groupMembersRoutes(r: ApiRouter): void {
  memberRoutes<Group, MemberRecord>(r, {
    kind: 'group',
    inheritedFrom: 'its ancestors',
    load: (c) => findGroupRecord(c, c.req.param('id')!),
    direct: directMembers,
    directMember: (st, g, userId) => {
      const id = iget(st.idx.members, `group:${g.id}:${userId}`);
      return id === undefined ? undefined : tget(st.members, id);
    },
    all: (st, g) => bestPerUser(selfAndAncestors(st, g).flatMap((a) => directMembers(st, a))),
    rankSearch: true,
    render: (c) => {
      const rr = groupRenderer(c);
      return (m) => rr.member(m);
    },
    canAdmin: (c, user, g) => canAdminGroup(state(c), user, g),
    errors: memberValidationErrors,
    // Nobody changes or removes the last owner.
    locked: (st, g, m) => isLastOwner(st, g, m.user_id),
    cascade: (st, g, m) => subresourceMemberships(st, g.id, m.user_id),
  });
}
