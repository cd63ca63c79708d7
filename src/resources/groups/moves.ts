/**
 * Routes GitLab added to a group after 13.12: `GET /groups/:id/avatar` (14.0, `API::GroupAvatar`),
 * `POST /groups/:id/transfer` (14.6, `Groups::TransferService` through the API) and
 * `GET /groups/:id/transfer_locations` (15.4).
 */
import type { Draft } from 'immer';
import { ACCESS, groupAccess, VISIBILITY_LEVEL } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, recordNotFound } from '../../core/errors.js';
import { p } from '../../core/params.js';
import { sendJson } from '../../core/respond.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { iget, madd, mget, mremove, tget, tvalues } from '../../core/table.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { setMember } from '../projects/model.js';
import { canAdminGroup, canCreateSubgroup, findGroupRecord } from './access.js';
import { groupRenderer } from './entities.js';
import { descendantIds, updateGroup, type Group } from './model.js';

const GROUPS_DOC = 'doc/api/groups.md';

/** `ActionDispatch::Http::ContentDisposition` as `present_disk_file!` sends it. */
const attachment = (name: string) =>
  `attachment; filename="${name.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&')}"; filename*=UTF-8''${encodeURIComponent(name)}`;

/** `TransferService::ERROR_MESSAGES` (14.6), each answered as "Transfer failed: <message>". */
const TRANSFER_ERRORS = {
  group_is_already_root: 'Group is already a root group.',
  same_parent_as_current: 'Group is already associated to the parent group.',
  invalid_policies: "You don't have enough permissions.",
  namespace_with_same_path: 'The parent group already has a subgroup with the same path.',
  cannot_transfer_to_subgroup: 'Cannot transfer group to one of its subgroup.',
} as const;

/** `Groups::TransferService#ensure_allowed_transfer`, in its order; undefined when allowed. */
function transferRefusal(
  st: PlatformState,
  user: UserRecord,
  group: Group,
  parent: Group | undefined,
): keyof typeof TRANSFER_ERRORS | undefined {
  if (!parent && group.parent_id === null) return 'group_is_already_root';
  if (parent && parent.id === group.parent_id) return 'same_parent_as_current';
  // `valid_policies?`: admin_group on the group, then create_subgroup on the parent or create_group.
  if (!canAdminGroup(st, user, group)) return 'invalid_policies';
  if (parent ? !canCreateSubgroup(st, user, parent) : !user.admin && !user.can_create_group)
    return 'invalid_policies';
  // `Namespace.exists?(path:, parent:)`: a group below the parent, or any top-level namespace (users'
  // included) when the group becomes one.
  const taken = parent
    ? mget(st.idx.subgroups, String(parent.id)).some(
        (id) => tget(st.groups, id)!.path.toLowerCase() === group.path.toLowerCase(),
      )
    : iget(st.idx.namespaces, group.path.toLowerCase()) !== undefined;
  if (taken) return 'namespace_with_same_path';
  if (parent && (parent.id === group.id || descendantIds(st, group.id).includes(parent.id)))
    return 'cannot_transfer_to_subgroup';
  return undefined;
}

/**
 * `proceed_to_transfer`: a parent less visible than the group lowers the group, and the groups and
 * projects below it, to the parent's level (`update_children_and_projects_visibility`); the group moves
 * with its tree (routes and project paths follow, `updateGroup`); a group made top-level without an
 * owner of its own gets the user as one (`ensure_ownership`).
 */
function transferGroup(
  d: Draft<PlatformState>,
  user: UserRecord,
  groupId: number,
  parent: Group | undefined,
  now: string,
) {
  const g = tget(d.groups, groupId) as Draft<Group>;
  if (parent && VISIBILITY_LEVEL[parent.visibility] < VISIBILITY_LEVEL[g.visibility]) {
    const level = VISIBILITY_LEVEL[parent.visibility];
    for (const id of [groupId, ...descendantIds(d, groupId)]) {
      const x = tget(d.groups, id) as Draft<Group>;
      if (VISIBILITY_LEVEL[x.visibility] > level) x.visibility = parent.visibility;
      for (const pid of mget(d.idx.projectsByNamespace, `group:${id}`)) {
        const pr = tget(d.projects, pid)!;
        if (VISIBILITY_LEVEL[pr.visibility] > level) pr.visibility = parent.visibility;
      }
    }
  }
  mremove(d.idx.subgroups, g.parent_id === null ? 'root' : String(g.parent_id), groupId);
  madd(d.idx.subgroups, parent ? String(parent.id) : 'root', groupId);
  g.parent_id = parent ? parent.id : null;
  // No attribute changes: the new parent alone gives the tree its new routes.
  updateGroup(d, groupId, {}, now);
  if (!parent) {
    const owners = mget(d.idx.membersBySource, `group:${groupId}`).filter(
      (id) => tget(d.members, id)!.access_level === ACCESS.OWNER,
    );
    if (owners.length === 0) setMember(d, 'group', groupId, user.id, ACCESS.OWNER, now);
  }
}

/**
 * `Groups::AcceptingGroupTransfersFinder`: the groups the user manages as an owner
 * (`manageable_groups`, owners of a group own its subgroups too), less the group, its subtree and its
 * parent; `search` as `Group.search` (name or path containing it, any case).
 */
function transferLocations(st: PlatformState, user: UserRecord, group: Group, search: string | undefined) {
  const excluded = new Set([group.id, ...descendantIds(st, group.id)]);
  if (group.parent_id !== null) excluded.add(group.parent_id);
  const q = search?.trim().toLowerCase();
  return tvalues(st.groups)
    .filter((g) => !excluded.has(g.id) && groupAccess(st, user, g) >= ACCESS.OWNER)
    .filter((g) => !q || g.name.toLowerCase().includes(q) || g.path.toLowerCase().includes(q))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id)) as Group[];
}

export function groupMovesRoutes(r: ApiRouter): void {
  r.get(
    '/groups/:id/transfer_locations',
    {
      auth: 'required',
      params: { search: p.str(), ...paginationParams },
      since: '15.4',
      source: `${GROUPS_DOC} "Get groups to which a user can transfer a group" (Introduced in GitLab 15.4, gitlab-org/gitlab#371117)`,
    },
    (c, prm) => {
      const user = requireUser(c);
      const st = state(c);
      const group = findGroupRecord(c, c.req.param('id')!);
      if (!canAdminGroup(st, user, group)) throw forbidden();
      const rr = groupRenderer(c);
      // `Entities::PublicGroupDetails`: BasicGroupDetails and the avatar, full name and full path.
      return paginate(c, transferLocations(st, user, group, prm.search), (g) => ({
        id: g.id,
        web_url: rr.webUrl(g),
        name: g.name,
        avatar_url: rr.avatarUrl(g),
        full_name: g.full_name,
        full_path: g.full_path,
      }));
    },
  );

  r.get(
    '/groups/:id/avatar',
    { since: '14.0', source: `${GROUPS_DOC} "Download a group avatar" (Introduced in GitLab 14.0)` },
    (c) => {
      const g = findGroupRecord(c, c.req.param('id')!);
      // `present_carrierwave_file!`: 404 Not found without an uploaded file.
      const url = g.avatar_url;
      const file = url && url.startsWith('/') ? iget(state(c).avatars.files, url) : undefined;
      if (!url || !file) throw recordNotFound('the group has no uploaded avatar');
      return c.body(new Uint8Array(Buffer.from(file.data, 'base64')), 200, {
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': attachment(url.slice(url.lastIndexOf('/') + 1)),
        'Content-Transfer-Encoding': 'binary',
      });
    },
  );

  r.post(
    '/groups/:id/transfer',
    {
      params: { group_id: p.int() },
      since: '14.6',
      source: `${GROUPS_DOC} "Transfer a group to a new parent group / Turn a subgroup into a top-level group" (Introduced in GitLab 14.6)`,
    },
    (c: Ctx, prm) => {
      const user = requireUser(c);
      const st = state(c);
      const group = findGroupRecord(c, c.req.param('id')!);
      // `authorize! :admin_group`, before the parent is looked up.
      if (!canAdminGroup(st, user, group)) throw forbidden();
      const parent = prm.group_id === undefined ? undefined : findGroupRecord(c, String(prm.group_id));
      const refusal = transferRefusal(st, user, group, parent);
      if (refusal) throw apiError(400, `Transfer failed: ${TRANSFER_ERRORS[refusal]}`);
      const now = c.get('fx').clock.iso();
      write(c, (d) => transferGroup(d, user, group.id, parent, now));
      const moved = tget(state(c).groups, group.id) as Group;
      const detail = groupRenderer(c).detail(moved, { canAdminGroup: canAdminGroup(state(c), user, moved) });
      return sendJson(detail, 201);
    },
  );
}
