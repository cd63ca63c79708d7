/** GET /users: its filters, order and pages. */
import { requireAdmin } from '../../core/auth.js';
import { state, type Ctx } from '../../core/context.js';
import { forbidden } from '../../core/errors.js';
import { paginateJson, paginationParams } from '../../core/pagination.js';
import { allOrNoneOf, declaredDefaults, p, parseParams, type Parsed } from '../../core/params.js';
import { tget } from '../../core/table.js';
import { validate } from '../projects/validation.js';
import { userRenderer } from './entities.js';
import {
  compileSearch,
  orderedUsers,
  userKey,
  usersWithProjects,
  type UserKey,
  type UserOrder,
} from './finder.js';
import { userIdByUsername } from './model.js';
import { own } from '../../core/own.js';
import { present, publicRestricted, rowsNeeded } from './route-helpers.js';

// ---------------------------------------------------------------------------------------------------
// Declared params

const ORDERS = ['id', 'name', 'username', 'created_at', 'updated_at'] as const;
const SORTS = ['asc', 'desc'] as const;

const listFilters = {
  username: p.str(),
  extern_uid: p.str(),
  provider: p.str(),
  search: p.str(),
  active: p.bool().default(false),
  external: p.bool().default(false),
  exclude_external: p.bool(),
  blocked: p.bool().default(false),
  created_after: p.datetime(),
  created_before: p.datetime(),
  without_projects: p.bool().default(false),
  exclude_internal: p.bool(),
  admins: p.bool(),
};

const listOrderAndPages = {
  order_by: p.str().values(ORDERS).default('id'),
  sort: p.str().values(SORTS).default('desc'),
  ...paginationParams,
  with_custom_attributes: p.bool().default(false),
  custom_attributes: p.hash(),
};

const listDefaults = { ...declaredDefaults(listFilters), ...declaredDefaults(listOrderAndPages) };

/** Params a non-admin may send but the platform drops (`params.except!`), from the query and the links. */
const ADMIN_ONLY_LIST_PARAMS = [
  'created_after',
  'created_before',
  'order_by',
  'sort',
  'two_factor',
  'without_projects',
];

export const showParams = { with_custom_attributes: p.bool().default(false), custom_attributes: p.hash() };

// ---------------------------------------------------------------------------------------------------
// GET /users

export function listUsers(c: Ctx): Response {
  const raw = c.get('params');
  let f!: Parsed<typeof listFilters>;
  let o!: Parsed<typeof listOrderAndPages>;
  validate([
    () => void (f = parseParams(listFilters, raw)),
    () => allOrNoneOf(raw, 'extern_uid', 'provider'),
    () => void (o = parseParams(listOrderAndPages, raw)),
  ]);
  const st = state(c);
  const viewer = c.get('viewer').user;
  const admin = viewer?.admin === true;
  const byIdentity = present(f.extern_uid) && present(f.provider);
  // In the 13.x era the external filter was admin-only, like the identity lookup.
  if (f.external || byIdentity) requireAdmin(c);

  const link: Record<string, unknown> = { ...listDefaults, ...raw };
  if (c.get('fx').tier() !== 'free') link.skip_ldap ??= false;
  if (!admin) for (const k of ADMIN_ONLY_LIST_PARAMS) delete link[k];
  c.set('linkParams', link);

  // Anonymous visitors may only look a username up, and not at all when public is restricted.
  if (!viewer && (publicRestricted(st) || !present(f.username)))
    throw forbidden('Not authorized to access /api/v4/users');

  const search = present(f.search) ? compileSearch(st, f.search) : undefined;
  const r = userRenderer(c);
  const opts = { customAttributes: admin && o.with_custom_attributes };
  const render = admin ? (k: UserKey) => r.withAdminBody(k.u, opts) : (k: UserKey) => r.basicBody(k.u, opts);
  if (search === null) return paginateJson(c, [], render);

  const orderBy: UserOrder = admin ? o.order_by : 'id';
  const sort = admin ? o.sort : 'desc';
  let base: readonly UserKey[];
  if (f.username !== undefined) {
    const id = userIdByUsername(st, f.username);
    const u = id === undefined ? undefined : tget(st.users, id);
    base = u ? [userKey(u)] : [];
  } else if (search) {
    base = search.candidates(orderBy, sort);
  } else {
    base = orderedUsers(st, orderBy, sort);
  }

  const tests: ((k: UserKey) => boolean)[] = [];
  if (search) tests.push(search.test);
  if (f.admins && admin) tests.push((k) => k.u.admin);
  if (f.blocked) tests.push((k) => k.u.state === 'blocked' || k.u.state === 'ldap_blocked');
  if (f.active) tests.push((k) => k.u.state === 'active');
  if (byIdentity && admin) {
    const provider = f.provider!;
    const uid = f.extern_uid!.toLowerCase();
    tests.push((k) =>
      k.u.identities.some((i) => i.provider === provider && i.extern_uid.toLowerCase() === uid),
    );
  }
  if (f.external) tests.push((k) => k.u.external);
  if (f.exclude_external) tests.push((k) => !k.u.external);
  if (f.exclude_internal) tests.push((k) => !k.u.bot);
  if (admin) {
    const twoFactor = raw.two_factor;
    if (twoFactor === 'enabled') tests.push((k) => k.u.two_factor_enabled);
    else if (twoFactor === 'disabled') tests.push((k) => !k.u.two_factor_enabled);
    if (f.created_before) {
      const t = Date.parse(f.created_before);
      tests.push((k) => k.created <= t);
    }
    if (f.created_after) {
      const t = Date.parse(f.created_after);
      tests.push((k) => k.created >= t);
    }
    if (f.without_projects) {
      const authorized = usersWithProjects(st);
      tests.push((k) => !authorized.has(k.u.id));
    }
    const attrs = o.custom_attributes;
    if (attrs)
      for (const [key, value] of Object.entries(attrs))
        tests.push((k) => own(k.u.custom_attributes, key) === String(value));
  }

  let list: readonly UserKey[] = base;
  if (tests.length > 0) {
    const test = tests.length === 1 ? tests[0]! : (k: UserKey) => tests.every((t) => t(k));
    // Past Kaminari's count limit no total is sent, so the rows up to the requested page are all that
    // matter; relevance order needs every match, though.
    const stopAt = search && !admin ? Infinity : rowsNeeded(c, st, o.page);
    const out: UserKey[] = [];
    for (const k of base) if (test(k) && out.push(k) >= stopAt) break;
    list = out;
  }
  if (search && !admin) {
    // Non-admins keep the search's own order (admins' order_by and sort replace it).
    list = list
      .map((k) => ({ k, rank: search.rank(k) }))
      .sort(
        (a, b) =>
          a.rank - b.rank ||
          (a.k.u.name < b.k.u.name ? -1 : a.k.u.name > b.k.u.name ? 1 : a.k.u.id - b.k.u.id),
      )
      .map((r) => r.k);
  }
  return paginateJson(c, list, render);
}
