/**
 * The groups API: `/groups` (list, create), `/groups/:id` (show, update, delete), `/groups/:id/subgroups`,
 * and the group members API (see members.ts).
 *
 * The order of checks is the platform's and visible to clients: writes need a user (401), params are
 * validated (400), the group must be readable (404), then the endpoint's permission (403), then the model.
 */
import { storeAvatar, withAvatarErrors } from '../avatars/model.js';
import { ACCESS } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, validationError } from '../../core/errors.js';
import { featureEnabled } from '../../core/features.js';
import { paginateBytes, paginationParams } from '../../core/pagination.js';
import { allOrNoneOf, p, parseParams, type Parsed } from '../../core/params.js';
import { NO_SLASH_URL_PART, pathParam, type ApiRouter } from '../../core/router.js';
import type { PlatformState, Visibility } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { createGroup, deleteGroup, setMember } from '../projects/model.js';
import { validate } from '../projects/validation.js';
import { canAdminGroup, canCreateSubgroup, findGroupRecord } from './access.js';
import { groupRenderer } from './entities.js';
import {
  finderTest,
  pickInOrder,
  visibleAt,
  groupKey,
  groupSearch,
  orderedGroups,
  sortBySimilarity,
  sortGroups,
  type GroupKey,
  type GroupOrder,
} from './finder.js';
import { groupMembersRoutes } from './members.js';
import { groupMovesRoutes } from './moves.js';
import { groupSharesRoutes } from './shares.js';
import { projectGroupsRoutes } from './project-groups.js';
import { setting } from '../settings/model.js';
import { has } from '../../core/versions.js';
import { GROUP_DELETION_BY_SETTING } from './versions.js';
import {
  defaultGroupVisibility,
  descendantIds,
  groupValidationErrors,
  PROJECT_CREATION_LEVELS,
  rubyInspect,
  SHARED_RUNNERS_SETTINGS,
  SUBGROUP_CREATION_LEVELS,
  updateGroup,
  visibilityRestricted,
  type Group,
  type GroupUpdate,
} from './model.js';
import { own } from '../../core/own.js';
import { groupEventData, subgroupEvent, systemEvent } from '../hooks/system.js';
import { jsonResponse, sendJson } from '../../core/respond.js';

// ---------------------------------------------------------------------------------------------------
// Helpers

/** Ruby's `present?` for a string param. */
const present = (s: string | undefined): s is string => s !== undefined && s.trim() !== '';

/** Where an uploaded avatar is served from (relative: the renderer adds the base URL). */
const avatarPath = (groupId: number, file: File) =>
  `/uploads/-/system/group/avatar/${groupId}/${(file.name || 'avatar.png').replace(/[^A-Za-z0-9._-]/g, '_')}`;

// ---------------------------------------------------------------------------------------------------
// Declared params

const VISIBILITIES = ['private', 'internal', 'public'] as const;
const LIST_ORDERS = ['name', 'path', 'id', 'similarity'] as const;
const SORTS = ['asc', 'desc'] as const;
const ACCESS_LEVELS = [10, 20, 30, 40, 50];

const listHead = {
  statistics: p.bool().default(false),
  skip_groups: p.intArray({ commaSeparated: true }),
  all_available: p.bool(),
  search: p.str(),
  owned: p.bool().default(false),
  order_by: p.str().values(LIST_ORDERS).default('name'),
  sort: p.str().values(SORTS).default('asc'),
  min_access_level: p.int().values(ACCESS_LEVELS),
};
const customAttributeParams = {
  with_custom_attributes: p.bool().default(false),
  custom_attributes: p.hash(),
};
const listParams = {
  ...listHead,
  top_level_only: p.bool(),
  ...paginationParams,
  ...customAttributeParams,
};
/** The spec gives subgroups the list's params without `top_level_only`. */
const subgroupParams = { ...listHead, ...paginationParams, ...customAttributeParams };

const showParams = { ...customAttributeParams, with_projects: p.bool().default(true) };

const optionalCe = {
  description: p.str(),
  visibility: p.str().values(VISIBILITIES),
  avatar: p.file(),
  share_with_group_lock: p.bool(),
  require_two_factor_authentication: p.bool(),
  two_factor_grace_period: p.int(),
  project_creation_level: p.str().values(PROJECT_CREATION_LEVELS),
  auto_devops_enabled: p.bool(),
  subgroup_creation_level: p.str().values(SUBGROUP_CREATION_LEVELS),
  emails_disabled: p.bool(),
  mentions_disabled: p.bool(),
  lfs_enabled: p.bool(),
  request_access_enabled: p.bool(),
  default_branch_protection: p.int().values([0, 1, 2, 3]),
};
/** Declared on paid tiers only; the community edition ignores them as undeclared. */
const optionalEe = {
  membership_lock: p.bool(),
  ldap_cn: p.str(),
  ldap_access: p.int(),
  shared_runners_minutes_limit: p.int(),
  extra_shared_runners_minutes_limit: p.int(),
};
const createHead = { name: p.str().required(), path: p.str().required(), parent_id: p.int() };
const updateHead = { name: p.str(), path: p.str() };
const updateTail = { shared_runners_setting: p.str().values(SHARED_RUNNERS_SETTINGS) };
const updateTailEe = { file_template_project_id: p.int() };

type Ce = Parsed<typeof optionalCe>;
type Ee = Partial<Parsed<typeof optionalEe>>;

function optionalSteps(c: Ctx, out: { ce?: Ce; ee?: Ee }): (() => void)[] {
  const raw = c.get('params');
  const steps: (() => void)[] = [() => void (out.ce = parseParams(optionalCe, raw))];
  out.ee = {};
  if (c.get('fx').tier() !== 'free')
    steps.push(
      () => void (out.ee = parseParams(optionalEe, raw)),
      () => allOrNoneOf(raw, 'ldap_cn', 'ldap_access'),
    );
  return steps;
}

/** The record fields the optional params set (absent ones stay undefined). */
function attributesFrom(ce: Ce, ee: Ee, admin: boolean): GroupUpdate {
  const out: GroupUpdate = {
    description: ce.description,
    visibility: ce.visibility,
    share_with_group_lock: ce.share_with_group_lock,
    require_two_factor_authentication: ce.require_two_factor_authentication,
    two_factor_grace_period: ce.two_factor_grace_period,
    project_creation_level: ce.project_creation_level,
    auto_devops_enabled: ce.auto_devops_enabled,
    subgroup_creation_level: ce.subgroup_creation_level,
    emails_disabled: ce.emails_disabled,
    mentions_disabled: ce.mentions_disabled,
    lfs_enabled: ce.lfs_enabled,
    request_access_enabled: ce.request_access_enabled,
    default_branch_protection: ce.default_branch_protection,
    membership_lock: ee.membership_lock,
    ldap_cn: ee.ldap_cn,
    ldap_access: ee.ldap_access,
  };
  if (admin) {
    out.shared_runners_minutes_limit = ee.shared_runners_minutes_limit;
    out.extra_shared_runners_minutes_limit = ee.extra_shared_runners_minutes_limit;
  }
  return out;
}

/** The EE service refuses the minutes quotas to anyone but an admin. */
function checkMinutesQuota(c: Ctx, ee: Ee): void {
  const given =
    ee.shared_runners_minutes_limit !== undefined || ee.extra_shared_runners_minutes_limit !== undefined;
  if (given && !c.get('viewer').user?.admin) throw forbidden();
}

// ---------------------------------------------------------------------------------------------------
// GET /groups and GET /groups/:id/subgroups

type ListParams = Parsed<typeof listParams>;

function listGroups(
  c: Ctx,
  prm: Omit<ListParams, 'top_level_only'> & { top_level_only?: boolean },
  parentRef?: string,
  descendants = false,
) {
  const st = state(c);
  const viewer = c.get('viewer').user;
  const admin = viewer?.admin === true;
  const parent = parentRef === undefined ? undefined : findGroupRecord(c, parentRef);
  const finder = finderTest(st, viewer, prm);
  const r = groupRenderer(c);
  const opts = { statistics: prm.statistics && admin, customAttributes: prm.with_custom_attributes && admin };
  const render = (k: GroupKey) => r.groupBytes(k.g, opts);
  if (finder === 'none') return paginateBytes(c, [], render);

  const tests: ((k: GroupKey) => boolean)[] = [];
  if (finder !== 'all') tests.push(finder);
  const search = present(prm.search) ? prm.search : undefined;
  if (search !== undefined) tests.push(groupSearch(search));
  if (prm.skip_groups && prm.skip_groups.length > 0) {
    const skip = new Set(prm.skip_groups);
    tests.push((k) => !skip.has(k.id));
  }
  const attrs = prm.custom_attributes;
  if (attrs && admin)
    for (const [key, value] of Object.entries(attrs))
      tests.push(
        (k) => own(k.g.custom_attributes as Record<string, unknown> | undefined, key) === String(value),
      );
  const test = (k: GroupKey) => tests.every((t) => t(k));

  const similarity =
    prm.order_by === 'similarity' && search !== undefined && featureEnabled(st, 'similarity_search');
  const orderBy: GroupOrder = prm.order_by === 'similarity' ? 'name' : prm.order_by;
  const sort = prm.sort;
  let list: readonly GroupKey[];
  if (parent) {
    // A parent's children are few: sort them rather than scan every group.
    const children = (descendants ? descendantIds(st, parent.id) : mget(st.idx.subgroups, String(parent.id)))
      .map((id) => groupKey(tget(st.groups, id) as Group))
      .filter(test);
    if (!similarity) sortGroups(children, orderBy, sort);
    list = children;
  } else {
    if (prm.top_level_only) tests.push((k) => k.g.parent_id === null);
    const ordered = orderedGroups(st, orderBy, sort);
    // Nothing to filter (an admin's plain list): the cached order is the list, not a copy of 10,000 rows.
    // Only the visibility test, from a viewer with no groups of their own: the list cached with the order;
    // only the viewer's own hierarchy: their few groups picked by their places in the order.
    if (tests.length === 0) list = ordered;
    else if (tests.length === 1 && tests[0] === finder && 'minLevel' in finder && !finder.own?.size)
      list = visibleAt(ordered, finder.minLevel);
    else if (tests.length === 1 && tests[0] === finder && 'only' in finder)
      list = pickInOrder(ordered, finder.only);
    else list = ordered.filter(tests.length === 1 ? tests[0]! : test);
  }
  if (similarity) list = sortBySimilarity(list, search!);
  return paginateBytes(c, list, render);
}

// ---------------------------------------------------------------------------------------------------
// POST /groups

function createGroupRoute(c: Ctx): Response {
  const raw = c.get('params');
  let h!: Parsed<typeof createHead>;
  const opt: { ce?: Ce; ee?: Ee } = {};
  validate([() => void (h = parseParams(createHead, raw)), ...optionalSteps(c, opt)]);
  const ce = opt.ce!;
  const ee = opt.ee!;
  const user = requireUser(c);
  const st = state(c);

  let parent: Group | undefined;
  if (h.parent_id !== undefined) {
    parent = findGroupRecord(c, String(h.parent_id));
    if (!canCreateSubgroup(st, user, parent)) throw forbidden();
  } else if (!user.admin && !user.can_create_group) throw forbidden();
  checkMinutesQuota(c, ee);

  const visibility: Visibility = ce.visibility ?? defaultGroupVisibility(st);
  if (!user.admin && visibilityRestricted(st, visibility))
    throw saveFailed({
      visibility_level: [`${visibility} has been restricted by your GitLab administrator`],
    });
  const errors = groupValidationErrors(
    st,
    {
      name: h.name,
      path: h.path,
      description: ce.description,
      visibility,
      two_factor_grace_period: ce.two_factor_grace_period,
    },
    parent,
  );
  withAvatarErrors(errors, ce.avatar);
  if (Object.keys(errors).length > 0) throw saveFailed(errors);

  const now = c.get('fx').clock.iso();
  const attrs = attributesFrom(ce, ee, user.admin);
  const id = write(c, (d) => {
    const gid = createGroup(
      d,
      {
        ...attrs,
        name: h.name,
        path: h.path,
        parent_id: parent?.id ?? null,
        description: ce.description ?? '',
        visibility,
      },
      now,
    );
    if (ce.avatar) {
      const path = avatarPath(gid, ce.avatar);
      (tget(d.groups, gid) as Group).avatar_url = path;
      storeAvatar(d, path, ce.avatar);
    }
    setMember(d, 'group', gid, user.id, ACCESS.OWNER, now);
    return gid;
  });
  systemEvent(c, 'group_create', groupEventData(tget(state(c).groups, id)!));
  subgroupEvent(c, id, 'create');
  return c.json(groupRenderer(c).detail(tget(state(c).groups, id) as Group), 201);
}

/** The create endpoint interpolates the model's errors into its message. */
const saveFailed = (errors: Record<string, string[]>) =>
  apiError(400, `Failed to save group ${rubyInspect(errors)}`);

// ---------------------------------------------------------------------------------------------------
// PUT /groups/:id

/** `NAMESPACE_OR_PROJECT_REQUIREMENTS`: `/groups/1.json` asks for the group `1.json`. */
const GROUP = { id: NO_SLASH_URL_PART };

function updateGroupRoute(c: Ctx): Response {
  const raw = c.get('params');
  let h!: Parsed<typeof updateHead>;
  let tail!: Parsed<typeof updateTail>;
  let tailEe: Partial<Parsed<typeof updateTailEe>> = {};
  const opt: { ce?: Ce; ee?: Ee } = {};
  const paid = c.get('fx').tier() !== 'free';
  validate([
    () => void (h = parseParams(updateHead, raw)),
    ...optionalSteps(c, opt),
    () => void (tail = parseParams(updateTail, raw)),
    ...(paid ? [() => void (tailEe = parseParams(updateTailEe, raw))] : []),
  ]);
  const ce = opt.ce!;
  const ee = opt.ee!;
  const user = requireUser(c);
  const st = state(c);
  const g = findGroupRecord(c, pathParam(c, 'id'));
  if (!canAdminGroup(st, user, g)) throw forbidden();
  checkMinutesQuota(c, ee);

  if (ce.visibility !== undefined && !user.admin && visibilityRestricted(st, ce.visibility))
    throw validationError({
      visibility_level: [`${ce.visibility} has been restricted by your GitLab administrator`],
    });
  if (ce.share_with_group_lock !== undefined && ce.share_with_group_lock !== g.share_with_group_lock) {
    const parent = g.parent_id === null ? undefined : (tget(st.groups, g.parent_id) as Group | undefined);
    if (parent?.share_with_group_lock && g.share_with_group_lock && !canAdminGroup(st, user, parent))
      throw validationError({
        share_with_group_lock: [
          'cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group',
        ],
      });
  }
  const parent = g.parent_id === null ? undefined : (tget(st.groups, g.parent_id) as Group | undefined);
  const errors = groupValidationErrors(
    st,
    {
      name: h.name,
      path: h.path,
      description: ce.description,
      visibility: ce.visibility,
      two_factor_grace_period: ce.two_factor_grace_period,
    },
    parent,
    g,
  );
  withAvatarErrors(errors, ce.avatar);
  if (Object.keys(errors).length > 0) throw validationError(errors);

  const changes: GroupUpdate = {
    ...attributesFrom(ce, ee, user.admin),
    name: h.name,
    path: h.path,
    shared_runners_setting: tail.shared_runners_setting,
  };
  if (paid) changes.file_template_project_id = tailEe.file_template_project_id;
  const now = c.get('fx').clock.iso();
  write(c, (d) => {
    updateGroup(d, g.id, changes, now);
    if (ce.avatar) {
      const path = avatarPath(g.id, ce.avatar);
      storeAvatar(d, path, ce.avatar, (tget(d.groups, g.id) as Group).avatar_url);
      (tget(d.groups, g.id) as Group).avatar_url = path;
    }
  });
  return c.json(groupRenderer(c).detail(tget(state(c).groups, g.id) as Group));
}

// ---------------------------------------------------------------------------------------------------
// DELETE /groups/:id

function deleteGroupRoute(c: Ctx): Response {
  const user = requireUser(c);
  const st = state(c);
  const g = findGroupRecord(c, pathParam(c, 'id'));
  if (!canAdminGroup(st, user, g)) throw forbidden();
  checkUnmodifiedSince(c, g.updated_at);
  if (adjournedDeletion(c, st)) {
    // Paid tiers mark the group; a worker removes it once `deletion_adjourned_period` has passed.
    if (g.marked_for_deletion_on) throw apiError(400, 'Group has been already marked for deletion');
    const today = c.get('fx').clock.today();
    write(c, (d) => {
      (tget(d.groups, g.id) as Group).marked_for_deletion_on = today;
    });
  } else {
    const before = state(c);
    write(c, (d) => deleteGroup(d, g.id));
    systemEvent(c, 'group_destroy', groupEventData(g));
    subgroupEvent(c, g.id, 'destroy', before);
  }
  return c.json({ message: '202 Accepted' }, 202);
}

/**
 * `Group#adjourned_deletion?`: a paid feature, on while `deletion_adjourned_period` (default 7) is
 * positive, and from 15.0 while `delayed_group_deletion` is on.
 */
function adjournedDeletion(c: Ctx, st: PlatformState): boolean {
  if (c.get('fx').tier() === 'free') return false;
  if (has(c, GROUP_DELETION_BY_SETTING) && setting(st, 'delayed_group_deletion') !== true) return false;
  return setting(st, 'deletion_adjourned_period') > 0;
}

// ---------------------------------------------------------------------------------------------------

export function groupsRoutes(r: ApiRouter): void {
  r.get('/groups', { params: listParams }, (c, prm) => listGroups(c, prm));

  r.post('/groups', createGroupRoute);

  r.get('/groups/:id/subgroups', { params: subgroupParams }, (c, prm) =>
    listGroups(c, prm, c.req.param('id')!),
  );

  // `include_parent_descendants`: every group below, at any depth.
  r.get('/groups/:id/descendant_groups', { params: subgroupParams }, (c, prm) =>
    listGroups(c, prm, c.req.param('id')!, true),
  );

  r.get('/groups/:id', { params: showParams, requirements: GROUP }, (c, prm) => {
    const g = findGroupRecord(c, pathParam(c, 'id'));
    const st = state(c);
    const viewer = c.get('viewer').user;
    const rr = groupRenderer(c);
    const opts = {
      customAttributes: prm.with_custom_attributes && viewer?.admin === true,
      canAdminGroup: canAdminGroup(st, viewer, g),
    };
    // The detail embeds projects as each viewer may read them: built every time.
    return prm.with_projects ? sendJson(rr.detail(g, opts)) : jsonResponse(rr.groupBytes(g, opts));
  });

  r.put('/groups/:id', { requirements: GROUP }, updateGroupRoute);

  r.delete('/groups/:id', { requirements: GROUP }, deleteGroupRoute);

  groupMovesRoutes(r);
  groupMembersRoutes(r);
  groupSharesRoutes(r);
  projectGroupsRoutes(r);
}
