/** Writes on users and their tokens, shared by the users API, scenario loading and generators. */
import type { Draft } from 'immer';
import { digest } from '../../core/store.js';
import { nextId, type PlatformState, type TokenKind, type TokenRecord, type UserRecord } from '../../core/state.js';
import { iget, iset, tget, tset } from '../../core/table.js';

type S = Draft<PlatformState>;

export type NewUser = Partial<Omit<UserRecord, 'id' | 'namespace_id' | 'password_digest'>> & {
  username: string;
  name: string;
  email: string;
  password?: string | null;
};

export const usernameTaken = (st: PlatformState, username: string) =>
  iget(st.idx.usernames, username.toLowerCase()) !== undefined || iget(st.idx.namespaces, username.toLowerCase()) !== undefined;

export const emailTaken = (st: PlatformState, email: string) => iget(st.idx.emails, email.toLowerCase()) !== undefined;

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
    organization: null,
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
    id,
    namespace_id: namespaceId,
    password_digest: password ? digest(password) : null,
  };
  if (user.commit_email === null) user.commit_email = user.email;
  tset(st.users, id, user);
  iset(st.idx.usernames, user.username.toLowerCase(), id);
  iset(st.idx.emails, user.email.toLowerCase(), id);
  iset(st.idx.namespaces, user.username.toLowerCase(), -id);
  return id;
}

export interface NewToken {
  user_id: number;
  token: string;
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
    digest: digest(input.token),
  };
  tset(st.tokens, id, record);
  iset(st.idx.tokens, record.digest, id);
  return id;
}

export const userById = (st: PlatformState, id: number) => tget(st.users, id);
