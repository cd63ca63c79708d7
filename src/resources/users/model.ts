/** Writes on users and their tokens, shared by the users API, scenario loading and generators. */
import type { Draft } from 'immer';
import { digest } from '../../core/store.js';
import {
  nextId,
  type PlatformState,
  type TokenKind,
  type TokenRecord,
  type UserRecord,
} from '../../core/state.js';
import { idelete, iget, iset, madd, mget, tdelete, tget, tset } from '../../core/table.js';
import { deleteGroup, deleteProject, removeMember, removeStar } from '../projects/model.js';
import { deleteUserProfile, secondaryEmailOwner } from '../user_profile/model.js';
import { deleteSnippet } from '../snippets/model.js';
import { deleteUserRequests } from '../access_requests/model.js';

type S = Draft<PlatformState>;

export type NewUser = Partial<Omit<UserRecord, 'id' | 'namespace_id' | 'password_digest'>> & {
  username: string;
  name: string;
  email: string;
  password?: string | null;
};

export const usernameTaken = (st: PlatformState, username: string) =>
  iget(st.idx.usernames, username.toLowerCase()) !== undefined ||
  iget(st.idx.namespaces, username.toLowerCase()) !== undefined;

export const emailTaken = (st: PlatformState, email: string) =>
  iget(st.idx.emails, email.toLowerCase()) !== undefined;

/** Creates a user with the platform's defaults and a personal namespace; returns its id. */
export function createUser(st: S, input: NewUser, now: string): number {
  const id = nextId(st, 'users');
  const namespaceId = nextId(st, 'namespaces');
  const { password, ...fields } = input;
  const user: UserRecord = {
    state: 'active',
    admin: false,
    bot: false,
    created_at: now,
    updated_at: now,
    bio: '',
    location: null,
    public_email: '',
    skype: '',
    linkedin: '',
    twitter: '',
    website_url: '',
    // 13.x keeps organization and job_title on user_details, where they default to ''.
    organization: '',
    job_title: '',
    avatar_url: null,
    last_sign_in_at: null,
    current_sign_in_at: null,
    last_sign_in_ip: null,
    current_sign_in_ip: null,
    sign_in_count: 0,
    confirmed_at: now,
    last_activity_on: null,
    theme_id: 1,
    color_scheme_id: 1,
    projects_limit: 100000,
    note: null,
    identities: [],
    can_create_group: true,
    two_factor_enabled: false,
    external: false,
    private_profile: false,
    commit_email: null,
    shared_runners_minutes_limit: null,
    extra_shared_runners_minutes_limit: null,
    custom_attributes: {},
    password_expires_at: null,
    ...fields,
    // Devise strips and down-cases e-mail addresses before saving them.
    email: fields.email.trim().toLowerCase(),
    id,
    namespace_id: namespaceId,
    password_digest: password ? digest(password) : null,
  };
  if (user.commit_email === null) user.commit_email = user.email;
  // `ensure_user_rights_and_limits` on a new record: an external user may create no group or project.
  if (user.external) {
    user.can_create_group = false;
    user.projects_limit = 0;
  }
  tset(st.users, id, user);
  iset(st.idx.usernames, user.username.toLowerCase(), id);
  iset(st.idx.emails, user.email.toLowerCase(), id);
  iset(st.idx.namespaces, user.username.toLowerCase(), -id);
  return id;
}

export interface NewToken {
  user_id: number;
  token: string;
  /** The token's SHA-256 when only that is known (an exported scenario); wins over `token`. */
  digest?: string;
  kind?: TokenKind;
  name?: string;
  scopes?: string[];
  expires_at?: string | null;
  revoked?: boolean;
}

/** Stores a token by the digest of its secret; returns its id. */
export function addToken(st: S, input: NewToken, now: string): number {
  const id = nextId(st, 'tokens');
  const record: TokenRecord = {
    id,
    user_id: input.user_id,
    kind: input.kind ?? 'personal',
    name: input.name ?? 'token',
    scopes: input.scopes ?? ['api'],
    created_at: now,
    expires_at: input.expires_at ?? null,
    revoked: input.revoked ?? false,
    digest: input.digest ?? digest(input.token),
  };
  tset(st.tokens, id, record);
  iset(st.idx.tokens, record.digest, id);
  madd(st.idx.tokensByUser, String(record.user_id), id);
  return id;
}

export const userById = (st: PlatformState, id: number) => tget(st.users, id);

// ---------------------------------------------------------------------------------------------------
// Validation, as the platform's User model reports it (`render_validation_error!`)

/** `Gitlab::PathRegex.namespace_format_message`. */
export const NAMESPACE_FORMAT_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";

/** NAMESPACE_FORMAT_REGEX: one word character, or a path that ends in neither `.` nor `.git`/`.atom`. */
const NAMESPACE_FORMAT = /^(?:[a-zA-Z0-9_]|[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_-])$/;
/** Devise's `email_regexp` as the platform configures it. */
const EMAIL_FORMAT = /^[^@\s]+@[^@\s]+$/;
const PASSWORD_MIN = 8;
const PASSWORD_MAX = 128;
/** `Gitlab::Themes` and `Gitlab::ColorSchemes` ids of the 13.x era. */
export const THEME_IDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
export const COLOR_SCHEME_IDS = [1, 2, 3, 4, 5, 6];
const MAX_INT = 2147483647;

/** The attributes a create or update sets; `undefined` means "not given". */
export interface UserChanges {
  email?: string;
  name?: string;
  username?: string;
  /** A new plain password (never stored). */
  password?: string;
  bio?: string;
  projects_limit?: number;
  theme_id?: number;
  color_scheme_id?: number;
  public_email?: string;
}

/**
 * The model's errors hash for a create (`existing` absent) or an update, keys in the order the model
 * validates them. Uniqueness of email and username is left to the caller: the platform answers those
 * before rendering these errors.
 */
export function userValidationErrors(
  st: PlatformState,
  ch: UserChanges,
  existing?: UserRecord,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (k: string, msg: string) => (errors[k] ??= []).push(msg);
  const creating = !existing;
  if (ch.email !== undefined || creating) {
    const email = (ch.email ?? '').trim();
    if (email === '') add('email', "can't be blank");
    else if (!EMAIL_FORMAT.test(email)) add('email', 'is invalid');
  }
  if (ch.password !== undefined || creating) {
    const pw = ch.password ?? '';
    if (pw === '') {
      if (creating) add('password', "can't be blank");
    } else if (pw.length < PASSWORD_MIN)
      add('password', `is too short (minimum is ${PASSWORD_MIN} characters)`);
    else if (pw.length > PASSWORD_MAX) add('password', `is too long (maximum is ${PASSWORD_MAX} characters)`);
  }
  if (ch.name !== undefined || creating) {
    const name = ch.name ?? '';
    if (name.trim() === '') add('name', "can't be blank");
    else if (name.length > 255) add('name', 'is too long (maximum is 255 characters)');
  }
  if (ch.public_email !== undefined && ch.public_email !== '') {
    const own = (ch.email ?? existing?.email ?? '').toLowerCase();
    if (ch.public_email.toLowerCase() !== own) add('public_email', 'is not an email you own');
  }
  if (ch.bio !== undefined && ch.bio.length > 255) add('bio', 'is too long (maximum is 255 characters)');
  if (ch.projects_limit !== undefined) {
    if (ch.projects_limit < 0) add('projects_limit', 'must be greater than or equal to 0');
    else if (ch.projects_limit > MAX_INT) add('projects_limit', `must be less than or equal to ${MAX_INT}`);
  }
  if (ch.theme_id !== undefined && !THEME_IDS.includes(ch.theme_id))
    add('theme_id', `${ch.theme_id} is not a valid theme`);
  if (ch.color_scheme_id !== undefined && !COLOR_SCHEME_IDS.includes(ch.color_scheme_id))
    add('color_scheme_id', `${ch.color_scheme_id} is not a valid color scheme`);
  if (ch.username !== undefined || creating) {
    // The personal namespace validates the path; the model copies its errors to `username` last.
    const username = ch.username ?? '';
    if (username === '') add('username', "can't be blank");
    else if (!NAMESPACE_FORMAT.test(username) || /\.(git|atom)$/i.test(username))
      add('username', NAMESPACE_FORMAT_MESSAGE);
    else {
      const ns = iget(st.idx.namespaces, username.toLowerCase());
      if (ns !== undefined && ns >= 0) add('username', 'has already been taken');
    }
  }
  return errors;
}

/** The user holding a username (case-insensitive), if any. */
export const userIdByUsername = (st: PlatformState, username: string) =>
  iget(st.idx.usernames, username.toLowerCase());

/** The user holding an e-mail address (case-insensitive), if any. */
export const userIdByEmail = (st: PlatformState, email: string) =>
  iget(st.idx.emails, email.toLowerCase()) ?? secondaryEmailOwner(st, email);

// ---------------------------------------------------------------------------------------------------
// Updates

/** Renames a user and their personal namespace, with the paths of their personal projects. */
export function renameUser(
  st: S,
  userId: number,
  username: string,
  personalProjectIds: readonly number[],
): void {
  const u = tget(st.users, userId)!;
  const oldKey = u.username.toLowerCase();
  const newKey = username.toLowerCase();
  u.username = username;
  if (oldKey !== newKey) {
    idelete(st.idx.usernames, oldKey);
    idelete(st.idx.namespaces, oldKey);
  }
  iset(st.idx.usernames, newKey, userId);
  iset(st.idx.namespaces, newKey, -userId);
  for (const pid of personalProjectIds) {
    const p = tget(st.projects, pid);
    if (!p) continue;
    idelete(st.idx.projects, p.path_with_namespace.toLowerCase());
    p.path_with_namespace = `${username}/${p.path}`;
    iset(st.idx.projects, p.path_with_namespace.toLowerCase(), pid);
  }
}

/** Changes a user's primary e-mail (and a commit e-mail that followed it). */
export function changeEmail(st: S, userId: number, email: string): void {
  const u = tget(st.users, userId)!;
  idelete(st.idx.emails, u.email.toLowerCase());
  if (u.commit_email === null || u.commit_email.toLowerCase() === u.email.toLowerCase())
    u.commit_email = email;
  u.email = email;
  iset(st.idx.emails, email.toLowerCase(), userId);
}

// ---------------------------------------------------------------------------------------------------
// Deletion

/** What deleting a user removes: computed on the committed state, applied in one write. */
export interface UserDeletion {
  userId: number;
  /** Groups that go with the user (hard delete of groups they solely own). */
  groupIds: number[];
}

/** The user's direct memberships, as records. */
const membershipsOf = (st: PlatformState, userId: number) =>
  mget(st.idx.membersByUser, String(userId)).map((id) => tget(st.members, id)!);

/**
 * Groups the user alone owns: they are a direct owner and no other direct owner exists (the platform's
 * `solo_owned_groups`, which blocks a soft delete).
 */
export function soloOwnedGroups(st: PlatformState, userId: number): number[] {
  const owned = membershipsOf(st, userId)
    .filter((m) => m.source === 'group' && m.access_level === 50)
    .map((m) => m.source_id);
  return owned.filter(
    (g) =>
      !mget(st.idx.membersBySource, `group:${g}`).some((id) => {
        const m = tget(st.members, id)!;
        return m.access_level === 50 && m.user_id !== userId;
      }),
  );
}

/**
 * Plans a deletion: with `hardDelete`, the groups the user solely owns go too (with their subgroups and
 * projects); tokens, memberships and personal projects always do.
 */
export function planUserDeletion(st: PlatformState, userId: number, hardDelete: boolean): UserDeletion {
  return { userId, groupIds: hardDelete ? soloOwnedGroups(st, userId) : [] };
}

/** Applies a planned deletion, cascading through the projects model like every other delete. */
export function deleteUser(st: S, plan: UserDeletion): void {
  const u = tget(st.users, plan.userId);
  if (!u) return;
  for (const id of mget(st.idx.tokensByUser, String(plan.userId))) {
    const t = tget(st.tokens, id)!;
    idelete(st.idx.tokens, t.digest);
    tdelete(st.tokens, id);
  }
  idelete(st.idx.tokensByUser, String(plan.userId));
  for (const id of plan.groupIds) deleteGroup(st, id);
  for (const id of mget(st.idx.projectsByNamespace, `user:${plan.userId}`)) deleteProject(st, id);
  for (const id of mget(st.idx.membersByUser, String(plan.userId))) removeMember(st, id);
  deleteUserRequests(st, plan.userId);
  for (const id of mget(st.idx.starsBy, `u${plan.userId}`)) removeStar(st, id);
  deleteUserProfile(st, plan.userId);
  for (const id of mget(st.issuables.idx.owned, `su${plan.userId}`)) deleteSnippet(st, id);
  idelete(st.idx.usernames, u.username.toLowerCase());
  idelete(st.idx.namespaces, u.username.toLowerCase());
  idelete(st.idx.emails, u.email.toLowerCase());
  tdelete(st.users, plan.userId);
}
