/**
 * The users API: `/users` (list, show, create, update, delete, identities, block, unblock) and `/user`.
 *
 * The platform checks things in a fixed order, and the order is visible to clients: the route must match
 * (user ids are numeric; anything else is the catch-all 404), writes need a user, params are validated
 * (400), then the endpoint body checks admin rights (403), the user (404), conflicts, the model.
 */
import { randomBytes } from 'node:crypto';
import type { Draft } from 'immer';
import { requireAdmin, requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { conflict, forbidden, notFound, validationError } from '../../core/errors.js';
import { featureEnabled } from '../../core/features.js';
import { COUNT_LIMIT, paginate, paginationParams, perPage } from '../../core/pagination.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import {
  allOrNoneOf,
  atLeastOneOf,
  declaredDefaults,
  p,
  parseParams,
  type Parsed,
  type RawParams,
} from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { Identity, PlatformState, UserRecord } from '../../core/state.js';
import { digest } from '../../core/store.js';
import { tget } from '../../core/table.js';
import { validate } from '../projects/validation.js';
import { userRenderer } from './entities.js';
import { setting, visibilityRestricted } from '../settings/model.js';
import {
  compileSearch,
  orderedUsers,
  personalProjects,
  userKey,
  usersWithProjects,
  type UserKey,
  type UserOrder,
} from './finder.js';
import {
  changeEmail,
  createUser,
  deleteUser,
  planUserDeletion,
  renameUser,
  soloOwnedGroups,
  userIdByEmail,
  userIdByUsername,
  userValidationErrors,
  type UserChanges,
} from './model.js';
import { own } from '../../core/own.js';

/** User ids are numeric: anything else matches no route and reaches the catch-all. */
const USER_ID = { id: /^\d+$/ };

/** Every users route opens to `read_user` tokens on reads. */
const readScopes = ['read_user'];

// ---------------------------------------------------------------------------------------------------
// Helpers

/** Ruby's `present?` for a string param. */
const present = (s: string | undefined): s is string => s !== undefined && s.trim() !== '';

function findUserById(c: Ctx, id: number): UserRecord {
  const u = tget(state(c).users, id);
  if (!u) throw notFound('User', `no user ${id}`);
  return u;
}

/** Whether anonymous visitors are shut out: the public visibility level is restricted. */
function publicRestricted(st: PlatformState): boolean {
  return visibilityRestricted(st, 'public');
}

const noContent = (c: Ctx) => c.body(null, 204);

/** How many matching rows a page needs: all of them while the platform still counts them. */
function rowsNeeded(c: Ctx, st: PlatformState, page: number): number {
  if (!featureEnabled(st, 'api_kaminari_count_with_limit')) return Infinity;
  return Math.max(COUNT_LIMIT + 1, Math.max(page, 1) * perPage(c) + 1);
}

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

const showParams = { with_custom_attributes: p.bool().default(false), custom_attributes: p.hash() };

const createHead = {
  email: p.str().required(),
  password: p.str(),
  reset_password: p.bool(),
  skip_confirmation: p.bool(),
};
const createTail = {
  name: p.str().required(),
  username: p.str().required(),
  force_random_password: p.bool(),
};
const updateHead = {
  email: p.str(),
  password: p.str(),
  skip_reconfirmation: p.bool(),
  name: p.str(),
  username: p.str(),
};
const optionalAttributes = {
  skype: p.str(),
  linkedin: p.str(),
  twitter: p.str(),
  website_url: p.str(),
  organization: p.str(),
  projects_limit: p.int(),
  extern_uid: p.str(),
  provider: p.str(),
  bio: p.str(),
  location: p.str(),
  public_email: p.str(),
  admin: p.bool(),
  can_create_group: p.bool(),
  external: p.bool(),
  avatar: p.file(),
  theme_id: p.int(),
  color_scheme_id: p.int(),
  private_profile: p.bool(),
  note: p.str(),
  view_diffs_file_by_file: p.bool(),
};
/** Declared on paid tiers only; the community edition ignores them as undeclared. */
const paidAttributes = {
  shared_runners_minutes_limit: p.int(),
  extra_shared_runners_minutes_limit: p.int(),
  group_id_for_saml: p.int(),
};

type Attrs = Parsed<typeof optionalAttributes>;
type PaidAttrs = Partial<Parsed<typeof paidAttributes>>;

/** Validates `optional_attributes` (with its `all_or_none_of`) and, on paid tiers, the EE params. */
function attributeSteps(c: Ctx, out: { attrs?: Attrs; paid?: PaidAttrs }): (() => void)[] {
  const raw = c.get('params');
  const steps = [
    () => void (out.attrs = parseParams(optionalAttributes, raw)),
    () => allOrNoneOf(raw, 'extern_uid', 'provider'),
  ];
  out.paid = {};
  if (c.get('fx').tier() !== 'free') steps.push(() => void (out.paid = parseParams(paidAttributes, raw)));
  return steps;
}

/** Where an uploaded avatar is served from (relative: the renderer adds the base URL). */
const avatarPath = (userId: number, file: File) =>
  `/uploads/-/system/user/avatar/${userId}/${(file.name || 'avatar.png').replace(/[^A-Za-z0-9._-]/g, '_')}`;

function identityFrom(extern_uid: string, provider: string, samlGroup?: number): Identity {
  return { provider, extern_uid, saml_provider_id: provider === 'group_saml' ? (samlGroup ?? null) : null };
}

// ---------------------------------------------------------------------------------------------------
// GET /users

function listUsers(c: Ctx): Response {
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
  const render = admin ? (k: UserKey) => r.withAdmin(k.u, opts) : (k: UserKey) => r.basic(k.u, opts);
  if (search === null) return paginate(c, [], render);

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
  return paginate(c, list, render);
}

// ---------------------------------------------------------------------------------------------------
// POST /users and PUT /users/:id

/** Whether a param was sent at all (a JSON null counts: the platform then clears the attribute). */
function given(raw: RawParams, key: string): boolean {
  return raw[key] !== undefined;
}

function createUserRoute(c: Ctx): Response {
  const raw = c.get('params');
  let h!: Parsed<typeof createHead>;
  let t!: Parsed<typeof createTail>;
  const extra: { attrs?: Attrs; paid?: PaidAttrs } = {};
  validate([
    () => void (h = parseParams(createHead, raw)),
    () => atLeastOneOf(raw, 'password', 'reset_password', 'force_random_password'),
    () => void (t = parseParams(createTail, raw)),
    ...attributeSteps(c, extra),
  ]);
  const a = extra.attrs!;
  const paid = extra.paid!;
  requireAdmin(c);
  const st = state(c);

  // Devise strips and down-cases e-mail addresses before anything else sees them.
  const email = h.email.trim().toLowerCase();
  const randomPassword = h.reset_password === true || t.force_random_password === true;
  const changes: UserChanges = {
    email,
    name: t.name,
    username: t.username,
    password: randomPassword ? randomBytes(12).toString('hex') : (h.password ?? ''),
    bio: a.bio,
    projects_limit: a.projects_limit,
    theme_id: a.theme_id,
    color_scheme_id: a.color_scheme_id,
    public_email: a.public_email,
  };
  const errors = userValidationErrors(st, changes);
  if (email !== '' && userIdByEmail(st, email) !== undefined) throw conflict('Email has already been taken');
  if (t.username !== '' && userIdByUsername(st, t.username) !== undefined)
    throw conflict('Username has already been taken');
  if (Object.keys(errors).length > 0) throw validationError(errors);

  const now = c.get('fx').clock.iso();
  const id = write(c, (d) => {
    const uid = createUser(
      d,
      {
        email,
        name: t.name,
        username: t.username,
        // A random password is one nobody knows: nothing can sign in with it.
        password: randomPassword ? null : changes.password,
        admin: a.admin ?? false,
        bio: a.bio ?? '',
        location: a.location ?? null,
        public_email: a.public_email ?? '',
        skype: a.skype ?? '',
        linkedin: a.linkedin ?? '',
        twitter: a.twitter ?? '',
        website_url: a.website_url ?? '',
        organization: a.organization ?? '',
        note: a.note ?? null,
        projects_limit: a.projects_limit ?? setting(st, 'default_projects_limit'),
        can_create_group: a.can_create_group ?? true,
        external: a.external ?? setting(st, 'user_default_external'),
        private_profile: a.private_profile ?? false,
        theme_id: a.theme_id ?? 1,
        color_scheme_id: a.color_scheme_id ?? 1,
        confirmed_at: h.skip_confirmation ? now : null,
        identities:
          a.extern_uid && a.provider ? [identityFrom(a.extern_uid, a.provider, paid.group_id_for_saml)] : [],
        shared_runners_minutes_limit: paid.shared_runners_minutes_limit ?? null,
        extra_shared_runners_minutes_limit: paid.extra_shared_runners_minutes_limit ?? null,
      },
      now,
    );
    if (a.avatar) tget(d.users, uid)!.avatar_url = avatarPath(uid, a.avatar);
    return uid;
  });
  return c.json(userRenderer(c).withAdmin(tget(state(c).users, id)!), 201);
}

function updateUserRoute(c: Ctx): Response {
  const id = Number(c.req.param('id'));
  const viewer = requireUser(c);
  const raw = c.get('params');
  let h!: Parsed<typeof updateHead>;
  const extra: { attrs?: Attrs; paid?: PaidAttrs } = {};
  validate([() => void (h = parseParams(updateHead, raw)), ...attributeSteps(c, extra)]);
  const a = extra.attrs!;
  const paid = extra.paid!;
  requireAdmin(c);
  const st = state(c);
  const user = findUserById(c, id);

  // The spec's modify endpoint answers conflicts with its one error, 404, where the platform would 409.
  if (h.email !== undefined) {
    const owner = userIdByEmail(st, h.email.trim());
    if (owner !== undefined && owner !== id) throw notFound('User', 'e-mail address in use by another user');
  }
  if (h.username !== undefined) {
    const owner = userIdByUsername(st, h.username);
    if (owner !== undefined && owner !== id) throw notFound('User', 'username in use by another user');
  }

  const email = h.email?.trim().toLowerCase();
  const changes: UserChanges = {
    email,
    name: given(raw, 'name') ? (h.name ?? '') : undefined,
    username: h.username !== undefined && h.username !== user.username ? h.username : undefined,
    password: h.password || undefined,
    bio: a.bio,
    projects_limit: a.projects_limit,
    theme_id: a.theme_id,
    color_scheme_id: a.color_scheme_id,
    public_email: a.public_email,
  };
  const errors = userValidationErrors(st, changes, user);
  if (Object.keys(errors).length > 0) throw validationError(errors);

  // Plain attributes: a given value replaces the stored one; a JSON null clears it.
  const patch: Partial<UserRecord> = {};
  const set = <K extends keyof UserRecord>(k: K, v: UserRecord[K] | undefined) => {
    if (v !== undefined && v !== user[k]) patch[k] = v;
  };
  const str = (k: 'skype' | 'linkedin' | 'twitter' | 'website_url' | 'organization') =>
    set(k, given(raw, k) ? (a[k] ?? '') : undefined);
  if (changes.name !== undefined) set('name', changes.name);
  str('skype');
  str('linkedin');
  str('twitter');
  str('website_url');
  str('organization');
  if (given(raw, 'bio')) set('bio', a.bio ?? '');
  if (given(raw, 'location')) set('location', a.location ?? null);
  if (given(raw, 'note')) set('note', a.note ?? null);
  if (given(raw, 'public_email')) set('public_email', a.public_email ?? '');
  // A null private_profile is read as false.
  if (given(raw, 'private_profile')) set('private_profile', a.private_profile ?? false);
  set('projects_limit', a.projects_limit);
  set('admin', a.admin);
  set('can_create_group', a.can_create_group);
  set('external', a.external);
  // `ensure_user_rights_and_limits` when `external` changes: an external user loses group and project
  // creation; one made internal again gets the defaults back, unless this update sets them itself.
  if (patch.external === true) {
    patch.can_create_group = false;
    patch.projects_limit = 0;
  } else if (patch.external === false) {
    if (patch.can_create_group === undefined) patch.can_create_group = true;
    if (patch.projects_limit === undefined)
      patch.projects_limit = setting(st, 'default_projects_limit') as number;
  }
  set('theme_id', a.theme_id);
  set('color_scheme_id', a.color_scheme_id);
  set('shared_runners_minutes_limit', paid.shared_runners_minutes_limit);
  set('extra_shared_runners_minutes_limit', paid.extra_shared_runners_minutes_limit);
  if (a.avatar) patch.avatar_url = avatarPath(id, a.avatar);
  if (changes.password) {
    patch.password_digest = digest(changes.password);
    // An admin setting someone else's password makes them change it at their next sign-in.
    if (viewer.id !== id) patch.password_expires_at = c.get('fx').clock.iso();
  }
  let identities: Identity[] | undefined;
  if (a.extern_uid !== undefined && a.provider !== undefined) {
    const current = user.identities.find((i) => i.provider === a.provider);
    if (!current || current.extern_uid !== a.extern_uid) {
      const next = identityFrom(a.extern_uid, a.provider, paid.group_id_for_saml);
      identities = current
        ? user.identities.map((i) => (i.provider === a.provider ? { ...i, extern_uid: a.extern_uid! } : i))
        : [...user.identities, next];
    }
  }
  // Without skip_reconfirmation a new address waits for confirmation: the primary one stays.
  const newEmail = email !== undefined && h.skip_reconfirmation && email !== user.email ? email : undefined;
  const rename = changes.username;

  const changed =
    Object.keys(patch).length > 0 ||
    identities !== undefined ||
    newEmail !== undefined ||
    rename !== undefined;
  if (changed) {
    const now = c.get('fx').clock.iso();
    const projects = rename !== undefined ? (personalProjects(st).get(id) ?? []) : [];
    write(c, (d) => {
      const u = tget(d.users, id)! as Draft<UserRecord>;
      Object.assign(u, patch);
      if (identities) u.identities = identities;
      if (newEmail !== undefined) changeEmail(d, id, newEmail);
      if (rename !== undefined) renameUser(d, id, rename, projects);
      u.updated_at = now;
    });
  }
  return c.json(userRenderer(c).withAdmin(tget(state(c).users, id)!));
}

// ---------------------------------------------------------------------------------------------------
// Routes

export function usersRoutes(r: ApiRouter): void {
  r.get('/users', { readScopes }, listUsers);

  r.get('/users/:id', { readScopes, requirements: USER_ID, params: showParams }, (c, prm) => {
    const id = Number(c.req.param('id'));
    const st = state(c);
    const u = tget(st.users, id);
    const viewer = c.get('viewer').user;
    if (!u) throw notFound('User', `no user ${id}`);
    if (!viewer && publicRestricted(st))
      throw notFound('User', 'public visibility is restricted: anonymous users see no one');
    const rr = userRenderer(c);
    const admin = viewer?.admin === true;
    const opts = { customAttributes: admin && prm.with_custom_attributes };
    return c.json(admin ? rr.details(u, opts) : rr.user(u, opts));
  });

  r.get('/user', { auth: 'required', readScopes }, (c) => {
    const u = requireUser(c);
    const rr = userRenderer(c);
    return c.json(u.admin ? rr.withAdmin(u) : rr.public(u));
  });

  r.post('/users', createUserRoute);

  r.put('/users/:id', { requirements: USER_ID }, updateUserRoute);

  r.delete(
    '/users/:id',
    { requirements: USER_ID, params: { hard_delete: p.bool() }, auth: 'admin' },
    (c, prm) => {
      const id = Number(c.req.param('id'));
      const st = state(c);
      const user = findUserById(c, id);
      if (!prm.hard_delete && soloOwnedGroups(st, id).length > 0)
        throw conflict('User cannot be removed while is the sole-owner of a group');
      checkUnmodifiedSince(c, user.updated_at);
      const plan = planUserDeletion(st, id, prm.hard_delete === true);
      write(c, (d) => deleteUser(d, plan));
      return noContent(c);
    },
  );

  r.delete('/users/:id/identities/:provider', { requirements: USER_ID, auth: 'admin' }, (c) => {
    const id = Number(c.req.param('id'));
    const user = findUserById(c, id);
    const provider = c.req.param('provider');
    if (!user.identities.some((i) => i.provider === provider))
      throw notFound('Identity', `user ${id} has no ${provider} identity`);
    checkUnmodifiedSince(c, user.updated_at);
    write(c, (d) => {
      const u = tget(d.users, id)!;
      u.identities = u.identities.filter((i) => i.provider !== provider);
    });
    return noContent(c);
  });

  r.post('/users/:id/block', { requirements: USER_ID, auth: 'admin' }, (c) => {
    const id = Number(c.req.param('id'));
    const user = findUserById(c, id);
    if (user.state === 'ldap_blocked') throw forbidden('LDAP blocked users cannot be modified by the API');
    // Blocking a blocked user ends the endpoint early: 201 with a null body.
    if (user.state === 'blocked') return c.json(null, 201);
    setState(c, id, 'blocked');
    return c.json(true, 201);
  });

  r.post('/users/:id/unblock', { requirements: USER_ID, auth: 'admin' }, (c) => {
    const id = Number(c.req.param('id'));
    const user = findUserById(c, id);
    if (user.state === 'ldap_blocked') throw forbidden('LDAP blocked users cannot be unblocked by the API');
    if (user.state === 'deactivated') throw forbidden('Deactivated users cannot be unblocked by the API');
    // `activate` only moves a blocked user: on an active one the transition fails and answers false.
    if (user.state !== 'blocked') return c.json(false, 201);
    setState(c, id, 'active');
    return c.json(true, 201);
  });
}

function setState(c: Ctx, id: number, to: UserRecord['state']): void {
  const now = c.get('fx').clock.iso();
  write(c, (d) => {
    const u = tget(d.users, id)!;
    u.state = to;
    u.updated_at = now;
  });
}
