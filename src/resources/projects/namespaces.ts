/** The namespace a project is created in or moved to, by id or path. */
import { canReadGroup } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { type PlatformState, type UserRecord } from '../../core/state.js';
import { iget, tget, tvalues, type Table } from '../../core/table.js';
import { type NamespaceRef } from './validation.js';

// ---------------------------------------------------------------------------------------------------
// Helpers

const namespaceUsers = new WeakMap<Table<UserRecord>, Map<number, number>>();

/** A namespace by id (a group's id, or a user's personal namespace id). */
export function namespaceById(st: PlatformState, id: number): NamespaceRef | undefined {
  const g = tget(st.groups, id);
  if (g) return { kind: 'group', group: g };
  let byNs = namespaceUsers.get(st.users);
  if (!byNs) {
    byNs = new Map(tvalues(st.users).map((u) => [u.namespace_id, u.id]));
    namespaceUsers.set(st.users, byNs);
  }
  const uid = byNs.get(id);
  const u = uid === undefined ? undefined : tget(st.users, uid);
  return u ? { kind: 'user', user: u } : undefined;
}

/** A namespace by full path (a group or a username). */
function namespaceByPath(st: PlatformState, path: string): NamespaceRef | undefined {
  const id = iget(st.idx.namespaces, path.toLowerCase());
  if (id === undefined) return undefined;
  if (id < 0) {
    const u = tget(st.users, -id);
    return u ? { kind: 'user', user: u } : undefined;
  }
  const g = tget(st.groups, id);
  return g ? { kind: 'group', group: g } : undefined;
}

/** `find_namespace!`: id or path; a namespace the user may not read is not found. */
export function findNamespace(c: Ctx, idOrPath: string | number, byPathOnly = false): NamespaceRef {
  const st = state(c);
  const s = String(idOrPath);
  const ns = !byPathOnly && /^\d+$/.test(s) ? namespaceById(st, Number(s)) : namespaceByPath(st, s);
  const user = c.get('viewer').user;
  const readable =
    ns && (ns.kind === 'user' ? user?.admin || ns.user.id === user?.id : canReadGroup(st, user, ns.group));
  if (!ns || !readable) throw notFound('Namespace', 'no such namespace, or not readable');
  return ns;
}
