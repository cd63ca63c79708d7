/** POST /users and PUT /users/:id: the attributes they take and how they apply. */
import { randomBytes } from 'node:crypto';
import { type Draft } from 'immer';
import { requireAdmin, requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { conflict, notFound, validationError } from '../../core/errors.js';
import { storeAvatar, withAvatarErrors } from '../avatars/model.js';
import { allOrNoneOf, atLeastOneOf, p, parseParams, type Parsed, type RawParams } from '../../core/params.js';
import { type Identity, type UserRecord } from '../../core/state.js';
import { sendJson } from '../../core/respond.js';
import { digest } from '../../core/store.js';
import { tget } from '../../core/table.js';
import { validate } from '../projects/validation.js';
import { userRenderer } from './entities.js';
import { setting } from '../settings/model.js';
import { personalProjects } from './finder.js';
import {
  changeEmail,
  createUser,
  renameUser,
  userIdByEmail,
  userIdByUsername,
  userValidationErrors,
  type UserChanges,
} from './model.js';
import { findUserById } from './route-helpers.js';
import { systemEvent, userEventData } from '../hooks/system.js';

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
// POST /users and PUT /users/:id

/** Whether a param was sent at all (a JSON null counts: the platform then clears the attribute). */
function given(raw: RawParams, key: string): boolean {
  return raw[key] !== undefined;
}

export function createUserRoute(c: Ctx): Response {
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
  const errors = withAvatarErrors(userValidationErrors(st, changes), a.avatar);
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
    if (a.avatar) {
      const path = avatarPath(uid, a.avatar);
      tget(d.users, uid)!.avatar_url = path;
      storeAvatar(d, path, a.avatar);
    }
    return uid;
  });
  systemEvent(c, 'user_create', () => userEventData(tget(state(c).users, id)!));
  return sendJson(userRenderer(c).withAdmin(tget(state(c).users, id)!), 201);
}

export function updateUserRoute(c: Ctx): Response {
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
  const errors = withAvatarErrors(userValidationErrors(st, changes, user), a.avatar);
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
      if (a.avatar) storeAvatar(d, patch.avatar_url as string, a.avatar, u.avatar_url as string | null);
      Object.assign(u, patch);
      if (identities) u.identities = identities;
      if (newEmail !== undefined) changeEmail(d, id, newEmail);
      if (rename !== undefined) renameUser(d, id, rename, projects);
      u.updated_at = now;
    });
  }
  return sendJson(userRenderer(c).withAdmin(tget(state(c).users, id)!));
}
