/**
 * The namespaces API (`/namespaces`): every route needs a user. The list holds the caller's personal
 * namespace and the groups they are a direct member of (all namespaces for an admin), by id.
 */
import { ACCESS } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p, type Shape } from '../../core/params.js';
import { NO_SLASH_URL_PART, pathParam, parse, type ApiRouter } from '../../core/router.js';
import { requireUser } from '../../core/auth.js';
import type { PlatformState } from '../../core/state.js';
import { mget, tget, tvalues } from '../../core/table.js';
import { findNamespace } from '../projects/namespaces.js';
import type { NamespaceRef } from '../projects/validation.js';
import { fuzzyWords } from '../users/finder.js';
import { namespaceRenderer } from './entities.js';

const idOf = (ns: NamespaceRef) => (ns.kind === 'user' ? ns.user.namespace_id : ns.group.id);
const pathOf = (ns: NamespaceRef) => (ns.kind === 'user' ? ns.user.username : ns.group.path);
const nameOf = (ns: NamespaceRef) => (ns.kind === 'user' ? ns.user.name : ns.group.name);

/** Every namespace: groups and personal namespaces. */
function allNamespaces(st: PlatformState): NamespaceRef[] {
  const out: NamespaceRef[] = tvalues(st.groups).map((group) => ({ kind: 'group', group }));
  for (const user of tvalues(st.users)) out.push({ kind: 'user', user });
  return out;
}

/**
 * `User#namespaces`: the personal namespace and the groups of the user's direct memberships (guest and
 * up); `owned_only` keeps the groups they own directly.
 */
function userNamespaces(st: PlatformState, userId: number, ownedOnly: boolean): NamespaceRef[] {
  const user = tget(st.users, userId)!;
  const out: NamespaceRef[] = [{ kind: 'user', user }];
  for (const id of mget(st.idx.membersByUser, String(userId))) {
    const m = tget(st.members, id);
    if (m?.source !== 'group' || m.access_level < (ownedOnly ? ACCESS.OWNER : ACCESS.GUEST)) continue;
    const group = tget(st.groups, m.source_id);
    if (group) out.push({ kind: 'group', group });
  }
  return out;
}

/** `Namespace.search`: path or name holds every word of three characters or more, else equals the query. */
function namespaceSearch(query: string): (ns: NamespaceRef) => boolean {
  const q = query.trim().replace(/\s+/g, ' ').toLowerCase();
  const words = fuzzyWords(q);
  return (ns) => {
    const fields = [pathOf(ns).toLowerCase(), nameOf(ns).toLowerCase()];
    return words.length === 0 ? fields.includes(q) : fields.some((f) => words.every((w) => f.includes(w)));
  };
}

const TRAILING = ['.git', '.atom', '.'];

/**
 * `Namespace.clean_path`: the path with what a namespace path may not hold taken out, then a counter
 * appended until no namespace has it as its path or name.
 */
function cleanPath(st: PlatformState, raw: string): string {
  let path = raw.replace(/@.*$/s, '').replace(/[^a-zA-Z0-9_\-.]/g, '');
  for (let before = ''; before !== path;) {
    before = path;
    for (const ext of TRAILING) if (path.endsWith(ext)) path = path.slice(0, -ext.length);
  }
  path = path.replace(/^-+/, '');
  if (path === '') path = 'blank';
  const taken = new Set<string>();
  for (const ns of allNamespaces(st)) {
    taken.add(pathOf(ns).toLowerCase());
    taken.add(nameOf(ns).toLowerCase());
  }
  let candidate = path;
  for (let n = 1; taken.has(candidate.toLowerCase()); n++) candidate = `${path}${n}`;
  return candidate;
}

/** Whether a namespace with the path (any case) sits directly under `parentId` (top level when absent). */
function pathExists(st: PlatformState, path: string, parentId: number | undefined): boolean {
  const want = path.toLowerCase();
  if (parentId === undefined) {
    if (tvalues(st.users).some((u) => u.username.toLowerCase() === want)) return true;
    return mget(st.idx.subgroups, 'root').some((id) => tget(st.groups, id)?.path.toLowerCase() === want);
  }
  // A personal namespace has no children.
  return mget(st.idx.subgroups, String(parentId)).some(
    (id) => tget(st.groups, id)?.path.toLowerCase() === want,
  );
}

/** `before { authenticate! }`: a caller without a user gets the 401 before any param is looked at. */
function signedIn<S extends Shape>(c: Ctx, shape: S) {
  const user = requireUser(c);
  return { user, prm: parse(c, shape) };
}

const listShape = {
  search: p.str(),
  owned_only: p.bool(),
  ...paginationParams,
  requested_hosted_plan: p.str(),
};
const existsShape = { namespace: p.str().required(), parent_id: p.int() };

export function namespacesRoutes(r: ApiRouter): void {
  r.get('/namespaces', (c) => {
    const { user, prm } = signedIn(c, listShape);
    const st = state(c);
    let list = user.admin ? allNamespaces(st) : userNamespaces(st, user.id, prm.owned_only === true);
    if (prm.search) list = list.filter(namespaceSearch(prm.search));
    list.sort((a, b) => idOf(a) - idOf(b));
    return paginate(c, list, namespaceRenderer(c));
  });

  // `requirements: API::NAMESPACE_OR_PROJECT_REQUIREMENTS`: the id keeps a `.json` suffix.
  r.get('/namespaces/:id', { requirements: { id: NO_SLASH_URL_PART } }, (c) => {
    requireUser(c);
    return c.json(namespaceRenderer(c)(findNamespace(c, pathParam(c, 'id'))));
  });

  r.get('/namespaces/:namespace/exists', (c) => {
    const { prm } = signedIn(c, existsShape);
    const st = state(c);
    const exists = pathExists(st, prm.namespace, prm.parent_id);
    return c.json({ exists, suggests: exists ? [cleanPath(st, prm.namespace)] : [] });
  });
}
