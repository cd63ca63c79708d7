/**
 * The `namespace` JSON of project entities (and a personal project's `owner`), cached per namespace
 * record while its chain of groups is unchanged.
 */
import { type GroupRecord, type PlatformState, type UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import type { UserRenderer } from '../users/entities.js';
import type { Project } from './model.js';
import { flat, groupAvatar, namespaceCache, sameChain, type NamespaceJson } from './render-parts.js';

const q = JSON.stringify;

/**
 * Namespace JSON by namespace id (the owner's id for a personal project), per users or groups table: a
 * table is immutable, so what was valid for it stays valid (the base URL and settings are checked).
 */
const namespacesByTable = new WeakMap<object, Map<number, NamespaceJson>>();

/** The namespace JSON of a project's namespace, cached per namespace record while its chain is unchanged. */
export function namespaceJson(
  st: PlatformState,
  base: string,
  users: UserRenderer,
  p: Project,
): NamespaceJson {
  const user = p.namespace_kind === 'user';
  const table = user ? st.users : st.groups;
  const id = user ? p.owner_id : p.namespace_id;
  // Found for this very table: its records, so the chain, are the ones the JSON was made from. A cold
  // project then costs no lookup of its namespace record (itself cold in a large world).
  let byId = namespacesByTable.get(table);
  const known = id === null || !byId ? undefined : byId.get(id);
  if (known && known.base === base && known.settings === st.settings) {
    known.table = table;
    return known;
  }
  const out = namespaceOf(st, base, users, p);
  if (out.deps.length > 0 && id !== null) {
    if (!byId) namespacesByTable.set(table, (byId = new Map()));
    byId.set(id, out);
  }
  return out;
}

function namespaceOf(st: PlatformState, base: string, users: UserRenderer, p: Project): NamespaceJson {
  let key: GroupRecord | UserRecord | undefined;
  if (p.namespace_kind === 'user') key = p.owner_id === null ? undefined : tget(st.users, p.owner_id);
  else key = tget(st.groups, p.namespace_id);
  if (!key)
    return {
      base,
      settings: st.settings,
      deps: [],
      table: st.groups,
      json: 'null',
      fullName: '',
      owner: '',
    };
  const hit = namespaceCache.get(key);
  if (hit && hit.base === base && hit.settings === st.settings) {
    if (p.namespace_kind === 'user') {
      hit.table = st.users;
      return hit;
    }
    if (hit.table === st.groups) return hit;
    // A group's ancestors are part of its full name: the chain must be the same records.
    if (sameChain(st, key as GroupRecord, hit.deps)) {
      hit.table = st.groups;
      return hit;
    }
  }
  let out: NamespaceJson;
  if (p.namespace_kind === 'user') {
    const u = key as UserRecord;
    out = {
      base,
      settings: st.settings,
      deps: [u],
      table: st.users,
      json: flat(
        `{"id":${u.namespace_id},"name":${q(u.name)},"path":${q(u.username)},"kind":"user","full_path":${q(u.username)},"parent_id":null,"avatar_url":${q(users.avatarUrl(u))},"web_url":${q(`${base}/${u.username}`)}}`,
      ),
      fullName: u.name,
      owner: flat(`,"owner":${q(users.basic(u))}`),
    };
  } else {
    const chain: GroupRecord[] = [];
    for (
      let g: GroupRecord | undefined = key as GroupRecord;
      g;
      g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
    )
      chain.push(g);
    const g = chain[0]!;
    out = {
      base,
      settings: st.settings,
      deps: chain,
      table: st.groups,
      json: flat(
        `{"id":${g.id},"name":${q(g.name)},"path":${q(g.path)},"kind":"group","full_path":${q(g.full_path)},"parent_id":${g.parent_id},"avatar_url":${q(groupAvatar(base, g))},"web_url":${q(`${base}/groups/${g.full_path}`)}}`,
      ),
      fullName: chain
        .map((x) => x.name)
        .reverse()
        .join(' / '),
      owner: '',
    };
  }
  namespaceCache.set(key, out);
  return out;
}
