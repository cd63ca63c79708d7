/**
 * System hook events (`SystemHooksService#build_event_data` and the group member builder): the data of
 * instance events, built by the writer that causes them (before a delete, from the record that goes)
 * and emitted once after its write. The times are `xmlschema`, as the service writes them.
 */
import type { Ctx } from '../../core/context.js';
import { state } from '../../core/context.js';
import type {
  GroupRecord,
  MemberRecord,
  PlatformState,
  ProjectRecord,
  UserRecord,
} from '../../core/state.js';
import { tget } from '../../core/table.js';
import { HUMAN_ACCESS } from '../groups/membership.js';
import { emitEvent } from '../integrations/events.js';

type Data = Record<string, unknown>;

const xmlschema = (iso: string | null | undefined) =>
  iso ? new Date(iso).toISOString().replace('.000Z', 'Z') : null;

const times = (r: { created_at: string; updated_at?: string }) => ({
  created_at: xmlschema(r.created_at),
  updated_at: xmlschema(r.updated_at ?? r.created_at),
});

/**
 * Sends a system event to the system hooks; free when there are none (`data` given as a function is
 * then not even built).
 */
export function systemEvent(c: Ctx, name: string, data: Data | (() => Data)): void {
  if (state(c).hooks.count === 0) return;
  const d = typeof data === 'function' ? data() : data;
  emitEvent(c, { kind: 'system', name, data: { event_name: name, ...d } });
}

/** A project's event: `project_create`, `project_destroy`, `project_rename`, `project_transfer`. */
export function projectEventData(st: PlatformState, p: ProjectRecord, oldPath?: string): Data {
  const owner =
    p.namespace_kind === 'group'
      ? { name: tget(st.groups, p.namespace_id)?.name ?? '', email: '' }
      : (() => {
          const u = p.owner_id === null ? undefined : tget(st.users, p.owner_id);
          return { name: u?.name ?? '', email: u?.email ?? '' };
        })();
  return {
    ...times(p),
    name: p.name,
    path: p.path,
    path_with_namespace: p.path_with_namespace,
    project_id: p.id,
    owner_name: owner.name,
    owner_email: owner.email,
    project_visibility: p.visibility,
    ...(oldPath !== undefined && { old_path_with_namespace: oldPath }),
  };
}

/** `user_create`, `user_destroy`. */
export const userEventData = (u: UserRecord): Data => ({
  ...times(u),
  name: u.name,
  email: u.email,
  user_id: u.id,
  username: u.username,
});

/** `group_create`, `group_destroy`. */
export const groupEventData = (g: GroupRecord): Data => ({
  ...times(g),
  name: g.name,
  path: g.path,
  full_path: g.full_path,
  group_id: g.id,
});

/** `key_create`, `key_destroy`. */
export const keyEventData = (
  k: { id: number; key: string; created_at: string; updated_at?: string },
  u: UserRecord | undefined,
): Data => ({
  ...times(k),
  key: k.key,
  id: k.id,
  ...(u && { username: u.username }),
});

/**
 * A membership's event and data: `user_add_to_team` / `user_update_for_team` / `user_remove_from_team`
 * for projects, `user_add_to_group` / `user_update_for_group` / `user_remove_from_group` for groups.
 */
export function memberEvent(
  st: PlatformState,
  m: MemberRecord,
  action: 'create' | 'update' | 'destroy',
): [string, Data] | undefined {
  const u = tget(st.users, m.user_id);
  if (!u) return undefined;
  const user = { user_username: u.username, user_name: u.name, user_email: u.email, user_id: u.id };
  if (m.source === 'project') {
    const p = tget(st.projects, m.source_id);
    if (!p) return undefined;
    const name = {
      create: 'user_add_to_team',
      update: 'user_update_for_team',
      destroy: 'user_remove_from_team',
    }[action];
    return [
      name,
      {
        ...times(m),
        project_name: p.name,
        project_path: p.path,
        project_path_with_namespace: p.path_with_namespace,
        project_id: p.id,
        ...user,
        access_level: HUMAN_ACCESS[m.access_level] ?? String(m.access_level),
        project_visibility: p.visibility,
      },
    ];
  }
  const g = tget(st.groups, m.source_id);
  if (!g) return undefined;
  const name = {
    create: 'user_add_to_group',
    update: 'user_update_for_group',
    destroy: 'user_remove_from_group',
  }[action];
  return [
    name,
    {
      ...times(m),
      group_name: g.name,
      group_path: g.path,
      group_id: g.id,
      ...user,
      group_access: HUMAN_ACCESS[m.access_level] ?? String(m.access_level),
      expires_at: m.expires_at,
    },
  ];
}

/** A membership's system event; `st` is the state that still holds what a removal took away. */
export function memberSystemEvent(
  c: Ctx,
  m: MemberRecord,
  action: 'create' | 'update' | 'destroy',
  st: PlatformState = state(c),
): void {
  if (state(c).hooks.count === 0) return;
  const ev = memberEvent(st, m, action);
  if (!ev) return;
  systemEvent(c, ev[0], ev[1]);
  // A group membership also reaches the group hooks with `member_events` (EE's `GroupMember` hooks).
  if (m.source === 'group')
    emitEvent(c, {
      kind: 'group_hook',
      groupId: m.source_id,
      scope: 'member_hooks',
      name: ev[0],
      data: { ...ev[1], group_plan: null },
    });
}

/**
 * `subgroup_create` / `subgroup_destroy` (`Gitlab::HookData::SubgroupBuilder`), sent to the hooks of
 * the subgroup's parent and its ancestors; `st` still holds a removed subgroup.
 */
export function subgroupEvent(
  c: Ctx,
  groupId: number,
  action: 'create' | 'destroy',
  st: PlatformState = state(c),
): void {
  if (state(c).hooks.count === 0) return;
  const g = tget(st.groups, groupId);
  const parent = g?.parent_id == null ? undefined : tget(st.groups, g.parent_id);
  if (!g || !parent) return;
  emitEvent(c, {
    kind: 'group_hook',
    groupId: parent.id,
    scope: 'subgroup_hooks',
    name: `subgroup_${action}`,
    data: {
      ...times(g),
      name: g.name,
      path: g.path,
      full_path: g.full_path,
      group_id: g.id,
      parent_group_id: parent.id,
      parent_name: parent.name,
      parent_path: parent.path,
      parent_full_path: parent.full_path,
    },
  });
}
