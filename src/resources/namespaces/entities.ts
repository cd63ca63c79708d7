/**
 * `Entities::Namespace` for users' personal namespaces and groups, with the EE fields the paid tiers
 * show (`billable_members_count`; the minutes quotas for admins; the plan to whoever administers it).
 */
import { ACCESS, groupAccess } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { GroupRecord, PlatformState, UserRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { descendantIds } from '../groups/model.js';
import type { NamespaceRef } from '../projects/validation.js';

type Json = Record<string, unknown>;

const avatar = (base: string, a: unknown): string | null =>
  typeof a === 'string' && a !== '' ? (a.startsWith('/') ? base + a : a) : null;

/** Distinct users with a membership (guest or more) on one of the given sources. */
function memberUsers(
  st: PlatformState,
  keys: readonly string[],
  minLevel: number = ACCESS.GUEST,
): Set<number> {
  const users = new Set<number>();
  for (const key of keys)
    for (const id of mget(st.idx.membersBySource, key)) {
      const m = tget(st.members, id);
      if (m && m.access_level >= minLevel && !tget(st.users, m.user_id)?.bot) users.add(m.user_id);
    }
  return users;
}

/**
 * `billed_user_ids`: members of the group, its subgroups and their projects; Ultimate does not bill
 * guests.
 */
function billableCount(st: PlatformState, g: GroupRecord): number {
  const groups = [g.id, ...descendantIds(st, g.id)];
  const keys = groups.map((id) => `group:${id}`);
  for (const id of groups)
    for (const pid of mget(st.idx.projectsByNamespace, `group:${id}`)) keys.push(`project:${pid}`);
  return memberUsers(st, keys, st.tier === 'ultimate' ? ACCESS.REPORTER : ACCESS.GUEST).size;
}

/** Renders namespaces for one request. */
export function namespaceRenderer(c: Ctx): (ns: NamespaceRef) => Json {
  const st = state(c);
  const base = requestBase(c);
  const viewer: UserRecord | null = c.get('viewer').user;
  const paid = c.get('fx').tier() !== 'free';
  return (ns) => {
    let out: Json;
    let administers: boolean;
    if (ns.kind === 'user') {
      const u = ns.user;
      out = {
        id: u.namespace_id,
        name: u.name,
        path: u.username,
        kind: 'user',
        full_path: u.username,
        parent_id: null,
        avatar_url: avatar(base, u.avatar_url),
        web_url: `${base}/${u.username}`,
      };
      administers = !!viewer && (viewer.admin || viewer.id === u.id);
    } else {
      const g = ns.group;
      out = {
        id: g.id,
        name: g.name,
        path: g.path,
        kind: 'group',
        full_path: g.full_path,
        parent_id: g.parent_id,
        avatar_url: avatar(base, g.avatar_url),
        web_url: `${base}/groups/${g.full_path}`,
      };
      administers = !!viewer && (viewer.admin || groupAccess(st, viewer, g) >= ACCESS.OWNER);
      // `users_with_descendants`: group memberships of the group and every subgroup.
      if (administers)
        out.members_count_with_descendants = memberUsers(
          st,
          [g.id, ...descendantIds(st, g.id)].map((id) => `group:${id}`),
        ).size;
    }
    if (!paid) return out;
    if (viewer?.admin) {
      const quota = ns.kind === 'user' ? ns.user : (ns.group as GroupRecord & Json);
      out.shared_runners_minutes_limit = quota.shared_runners_minutes_limit ?? null;
      out.extra_shared_runners_minutes_limit = quota.extra_shared_runners_minutes_limit ?? null;
    }
    out.billable_members_count = ns.kind === 'user' ? 1 : billableCount(st, ns.group);
    if (administers) {
      // A self-managed instance has no hosted plans: every namespace is on the default plan.
      out.plan = 'default';
      out.trial_ends_on = null;
      out.trial = false;
    }
    return out;
  };
}
