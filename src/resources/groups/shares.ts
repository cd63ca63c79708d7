/**
 * Group sharing (13.1): `POST /groups/:id/share` (`Groups::GroupLinks::CreateService`) and
 * `DELETE /groups/:id/share/:group_id` (`Groups::GroupLinks::DestroyService`). The link gives the direct
 * members of the group shared with the shared group, its subgroups and their projects at no more than
 * the link's access (`core/access.ts`, `groupAccess`; the projects finder's authorizations).
 */
import { state, write } from '../../core/context.js';
import { apiError, conflict, notFound } from '../../core/errors.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { iget, tget } from '../../core/table.js';
import { addGroupLink, removeGroupLink } from '../projects/model.js';
import { canAdminGroup, findGroupRecord } from './access.js';
import { groupRenderer } from './entities.js';
import type { Group } from './model.js';

/** `Gitlab::Access.all_values`: guest to owner. */
const ACCESS_VALUES = [10, 20, 30, 40, 50];

const shareParams = {
  group_id: p.int().required(),
  group_access: p.int().required().values(ACCESS_VALUES),
  expires_at: p.date(),
};

export function groupSharesRoutes(r: ApiRouter): void {
  r.post('/groups/:id/share', { params: shareParams }, (c, prm) => {
    const shared = findGroupRecord(c, c.req.param('id')!);
    const sharedWith = findGroupRecord(c, String(prm.group_id));
    const st = state(c);
    const viewer = c.get('viewer').user;
    // `admin_group_member` on the shared group (`read_group` on the other was `find_group!`'s): the
    // service answers a plain 404 rather than a 403.
    if (!canAdminGroup(st, viewer, shared)) throw apiError(404, 'Not Found');
    // `GroupGroupLink`'s uniqueness validation, in `full_messages.to_sentence`.
    if (iget(st.idx.groupLinks, `${shared.id}:${sharedWith.id}`) !== undefined)
      throw conflict('Shared group The group has already been shared with this group');
    const now = c.get('fx').clock.iso();
    write(c, (d) => addGroupLink(d, shared.id, sharedWith.id, prm.group_access, now, prm.expires_at ?? null));
    // `GroupDetail` with the current user and nothing else: no `runners_token`.
    const g = tget(state(c).groups, shared.id) as Group;
    return c.json(groupRenderer(c).detail(g), 201);
  });

  r.delete('/groups/:id/share/:group_id', { params: { group_id: p.int().required() } }, (c, prm) => {
    const shared = findGroupRecord(c, c.req.param('id')!);
    const st = state(c);
    const linkId = iget(st.idx.groupLinks, `${shared.id}:${prm.group_id}`);
    if (linkId === undefined) throw notFound('Group Link', 'the group is not shared with that group');
    // `DestroyService` removes nothing for a user who may not administer the group's members, and the
    // endpoint answers 204 all the same.
    if (canAdminGroup(st, c.get('viewer').user, shared)) write(c, (d) => removeGroupLink(d, linkId));
    return c.body(null, 204);
  });
}
