/**
 * Group SAML providers, SCIM tokens and SCIM identities: the records, the finder's filters, the params
 * parser and the provisioning, update and deprovisioning rules of the platform's group SCIM API.
 */
import { randomBytes } from 'node:crypto';
import type { Draft } from 'immer';
import { nextId, type PlatformState, type UserRecord } from '../../core/state.js';
import { digest } from '../../core/store.js';
import { idelete, iget, iset, madd, mget, tget, tset } from '../../core/table.js';
import { isLastOwner, subresourceMemberships } from '../groups/membership.js';
import { removeMember, setMember } from '../projects/model.js';
import { memberKey } from '../../core/access.js';
import {
  changeEmail,
  createUser,
  renameUser,
  userIdByEmail,
  userIdByUsername,
  userValidationErrors,
  type UserChanges,
} from '../users/model.js';
import type { SamlProviderRecord, ScimIdentityRecord } from '../oauth/store.js';

type S = Draft<PlatformState>;

/** The identity provider name of users who sign in through a group's SAML. */
export const GROUP_SAML_PROVIDER = 'group_saml';

export interface SamlConfig {
  enabled: boolean;
  sso_url: string;
  default_membership_role: number;
}

/** Configures a group's SAML SSO (and optionally its SCIM token); returns the provider id. */
export function setSamlProvider(st: S, groupId: number, cfg: SamlConfig, scimToken: string | null): number {
  const existing = iget(st.identity.idx.samlByGroup, String(groupId));
  const id = existing ?? nextId(st, 'saml_providers');
  const old = existing === undefined ? undefined : tget(st.identity.samlProviders, existing);
  if (old?.scim_token_digest) idelete(st.identity.idx.scimTokens, old.scim_token_digest);
  const rec: SamlProviderRecord = {
    id,
    group_id: groupId,
    ...cfg,
    scim_token_digest: scimToken === null ? null : digest(scimToken),
  };
  tset(st.identity.samlProviders, id, rec);
  iset(st.identity.idx.samlByGroup, String(groupId), id);
  if (rec.scim_token_digest) iset(st.identity.idx.scimTokens, rec.scim_token_digest, groupId);
  return id;
}

export function samlProviderOf(st: PlatformState, groupId: number): SamlProviderRecord | undefined {
  const id = iget(st.identity.idx.samlByGroup, String(groupId));
  return id === undefined ? undefined : tget(st.identity.samlProviders, id);
}

/** `ScimOauthAccessToken.token_matches_for_group?`: the token is this very group's. */
export function scimTokenMatches(st: PlatformState, groupId: number, token: string): boolean {
  return iget(st.identity.idx.scimTokens, digest(token)) === groupId;
}

export function addScimIdentity(
  st: S,
  groupId: number,
  userId: number,
  externUid: string,
  active: boolean,
  now: string,
): number {
  const id = nextId(st, 'scim_identities');
  tset(st.identity.scimIdentities, id, {
    id,
    group_id: groupId,
    user_id: userId,
    extern_uid: externUid,
    active,
    created_at: now,
  });
  iset(st.identity.idx.scim, `${groupId}:${externUid.toLowerCase()}`, id);
  madd(st.identity.idx.scimBy, `g${groupId}`, id);
  madd(st.identity.idx.scimBy, `u${userId}`, id);
  return id;
}

/** A group's SCIM identities, by id; those of users deleted since are gone with them. */
export function groupIdentities(st: PlatformState, groupId: number): ScimIdentityRecord[] {
  return mget(st.identity.idx.scimBy, `g${groupId}`)
    .map((id) => tget(st.identity.scimIdentities, id)!)
    .filter((i) => tget(st.users, i.user_id) !== undefined);
}

/** `scim_identities.with_extern_uid`: case-insensitive. */
export function identityByUid(
  st: PlatformState,
  groupId: number,
  uid: string,
): ScimIdentityRecord | undefined {
  const id = iget(st.identity.idx.scim, `${groupId}:${uid.toLowerCase()}`);
  const rec = id === undefined ? undefined : tget(st.identity.scimIdentities, id);
  return rec && tget(st.users, rec.user_id) ? rec : undefined;
}

const identityOfUser = (st: PlatformState, groupId: number, userId: number) =>
  mget(st.identity.idx.scimBy, `u${userId}`)
    .map((id) => tget(st.identity.scimIdentities, id)!)
    .find((i) => i.group_id === groupId);

// ---------------------------------------------------------------------------------------------------
// Params: EE::Gitlab::Scim::ParamsParser

const ATTRIBUTE_MAP: Record<string, string> = {
  id: 'extern_uid',
  displayName: 'name',
  'name.formatted': 'name',
  'emails[type eq "work"].value': 'email',
  active: 'active',
  externalId: 'extern_uid',
  userName: 'username',
};

export type ScimValue = unknown;

/** Quotes stripped from strings; `True` / `False` (exactly) become booleans. */
export function coerce(v: ScimValue): ScimValue {
  if (typeof v !== 'string') return v;
  const s = v.replace(/"/g, '');
  return s === 'True' ? true : s === 'False' ? false : s;
}

export class UnsupportedFilter extends Error {}

/** `attribute operator value`, split on whitespace as Ruby's `split(' ')` does. */
function parseFilter(filter: string): { attribute: string | null; value: ScimValue } | null {
  const [attribute, operator, value] = filter.trim().split(/\s+/);
  if (operator !== 'eq' || !attribute || !Object.hasOwn(ATTRIBUTE_MAP, attribute)) return null;
  return { attribute: ATTRIBUTE_MAP[attribute]!, value: coerce(value) };
}

const present = (v: ScimValue): v is string | number | boolean =>
  v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '') && v !== false;

const EMAIL = /^[^@\s]+@[^@\s]+$/;

/** `ScimFinder#search`: every identity, or those a supported `eq` filter picks. */
export function searchIdentities(
  st: PlatformState,
  groupId: number,
  filter: string | undefined,
): ScimIdentityRecord[] {
  const provider = samlProviderOf(st, groupId);
  if (!provider?.enabled) return [];
  if (filter === undefined || filter.trim() === '') return groupIdentities(st, groupId);
  const f = parseFilter(filter);
  if (f && f.attribute === 'extern_uid' && present(f.value)) {
    const i = identityByUid(st, groupId, String(f.value));
    return i ? [i] : [];
  }
  if (f && f.attribute === 'username' && present(f.value)) {
    const name = String(f.value);
    const byUid = identityByUid(st, groupId, name);
    if (byUid) return [byUid];
    let userId = userIdByUsername(st, name);
    if (userId === undefined && EMAIL.test(name))
      userId = userIdByEmail(st, name) ?? userIdByUsername(st, name.slice(0, name.indexOf('@')));
    const i = userId === undefined ? undefined : identityOfUser(st, groupId, userId);
    return i ? [i] : [];
  }
  throw new UnsupportedFilter();
}

/** `post_params`: mapped attributes in the order given, then the work e-mail and the name. */
export function postParams(params: Record<string, unknown>): Record<string, ScimValue> {
  const out: Record<string, ScimValue> = {};
  for (const [k, v] of Object.entries(params)) {
    if (k === 'email' || k === 'name' || v === null || v === undefined) continue;
    const attr = Object.hasOwn(ATTRIBUTE_MAP, k) ? ATTRIBUTE_MAP[k] : undefined;
    if (attr) out[attr] = coerce(v);
  }
  const emails = params.emails;
  if (Array.isArray(emails)) {
    const e = emails.find(
      (x): x is Record<string, unknown> =>
        typeof x === 'object' &&
        x !== null &&
        ((x as Record<string, unknown>).type === 'work' || !!(x as Record<string, unknown>).primary),
    );
    if (e && e.value !== undefined && e.value !== null) out.email = e.value;
  }
  const name = params.name;
  if (typeof name === 'object' && name !== null && !Array.isArray(name)) {
    const n = name as Record<string, unknown>;
    const formatted = typeof n.formatted === 'string' && n.formatted.trim() !== '' ? n.formatted : null;
    out.name =
      formatted ?? [n.givenName, n.familyName].filter((x) => x !== undefined && x !== null).join(' ');
  }
  return out;
}

export class OperationsMissing extends Error {}

/** `update_params`: the Replace and Add operations whose path the parser knows. */
export function updateParams(params: Record<string, unknown>): Record<string, ScimValue> {
  const ops = params.Operations;
  // The platform iterates `Operations` unguarded: without it the request crashes.
  if (!Array.isArray(ops)) throw new OperationsMissing();
  const out: Record<string, ScimValue> = {};
  for (const op of ops) {
    if (typeof op !== 'object' || op === null) continue;
    const o = op as Record<string, unknown>;
    if (o.op !== 'Replace' && o.op !== 'Add') continue;
    const attr =
      typeof o.path === 'string' && Object.hasOwn(ATTRIBUTE_MAP, o.path) ? ATTRIBUTE_MAP[o.path] : undefined;
    if (attr) out[attr] = coerce(o.value);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Provisioning

export type Outcome =
  { status: 'success'; identityId: number } | { status: 'conflict' | 'error'; message: string };

/** Rails' `to_sentence`. */
function toSentence(xs: string[]): string {
  if (xs.length <= 1) return xs.join('');
  if (xs.length === 2) return `${xs[0]} and ${xs[1]}`;
  return `${xs.slice(0, -1).join(', ')}, and ${xs[xs.length - 1]}`;
}

const HUMAN: Record<string, string> = {
  email: 'Email',
  name: 'Name',
  username: 'Username',
  password: 'Password',
};
const fullMessages = (errors: Record<string, string[]>) =>
  Object.entries(errors).flatMap(([k, msgs]) => msgs.map((m) => `${HUMAN[k] ?? k} ${m}`));

function errorOutcome(messages: string[]): Outcome {
  const conflict = messages.some((m) => m.includes('has already been taken'));
  return { status: conflict ? 'conflict' : 'error', message: toSentence(messages) };
}

/** `Namespace.clean_path`, made unique against every namespace path. */
function cleanUsername(st: PlatformState, raw: string): string {
  let path = raw
    .replace(/@.*$/s, '')
    .replace(/[^a-zA-Z0-9_\-.]/g, '')
    .replace(/(\.atom|\.git|\.)*$/, '')
    .replace(/^-+/, '');
  if (path === '') path = 'blank';
  let candidate = path;
  for (let n = 1; iget(st.idx.namespaces, candidate.toLowerCase()) !== undefined; n++)
    candidate = `${path}${n}`;
  return candidate;
}

const isMember = (st: PlatformState, groupId: number, userId: number) =>
  iget(st.idx.members, memberKey('group', groupId, userId)) !== undefined;

/** Adds the group's SAML identity to a user, if missing. */
export function linkSamlIdentity(
  st: S,
  userId: number,
  provider: SamlProviderRecord,
  externUid: string,
): void {
  const u = tget(st.users, userId)!;
  if (u.identities.some((i) => i.provider === GROUP_SAML_PROVIDER && i.saml_provider_id === provider.id))
    return;
  u.identities.push({ provider: GROUP_SAML_PROVIDER, extern_uid: externUid, saml_provider_id: provider.id });
}

/**
 * `ProvisioningService#execute` (a plan on the committed state, then one write): an identity that
 * exists with its user a member is success as it is; otherwise the user (found by e-mail, or created)
 * gets the identity and, if needed, the group membership.
 */
export function planProvisioning(
  st: PlatformState,
  groupId: number,
  parsed: Record<string, ScimValue>,
): Outcome | ((d: S, now: string) => number) {
  const missing = ['extern_uid', 'email', 'username'].filter((k) => !(k in parsed));
  if (missing.length)
    return { status: 'error', message: `Missing params: [${missing.map((k) => `:${k}`).join(', ')}]` };
  const provider = samlProviderOf(st, groupId)!;
  const externUid = String(parsed.extern_uid ?? '');
  const existing = identityByUid(st, groupId, externUid);
  if (existing && isMember(st, groupId, existing.user_id))
    return { status: 'success', identityId: existing.id };
  const email = String(parsed.email ?? '');
  const userId = email === '' ? undefined : userIdByEmail(st, email);
  // ScimIdentity validates a present extern_uid, unique in the group, and one identity per user.
  const blankUid = externUid.trim() === '' ? ["Extern uid can't be blank"] : [];
  if (userId !== undefined) {
    if (!existing) {
      const errors = [
        ...blankUid,
        ...(identityOfUser(st, groupId, userId) ? ['User has already been taken'] : []),
      ];
      if (errors.length) return errorOutcome(errors);
    }
    return (d, now) => {
      if (!isMember(d, groupId, userId))
        setMember(d, 'group', groupId, userId, provider.default_membership_role, now);
      return existing?.id ?? addScimIdentity(d, groupId, userId, externUid, true, now);
    };
  }
  const username = cleanUsername(st, String(parsed.username ?? ''));
  const name = typeof parsed.name === 'string' ? parsed.name : '';
  const password = randomBytes(12).toString('hex');
  const identityErrors = [...blankUid, ...(existing ? ['Extern uid has already been taken'] : [])];
  const errors = [
    ...fullMessages(userValidationErrors(st, { email, name, username, password })),
    // The user validates its new identity too, and reports it as a whole.
    ...(identityErrors.length ? ['Scim identities is invalid', ...identityErrors] : []),
  ];
  if (errors.length) return errorOutcome(errors);
  return (d, now) => {
    const id = createUser(
      d,
      {
        username,
        name,
        email,
        password,
        confirmed_at: null,
        identities: [{ provider: GROUP_SAML_PROVIDER, extern_uid: externUid, saml_provider_id: provider.id }],
      },
      now,
    );
    setMember(d, 'group', groupId, id, provider.default_membership_role, now);
    return addScimIdentity(d, groupId, id, externUid, true, now);
  };
}

/**
 * `DeprovisionService`: the identity goes inactive, the user leaves the group (with its subgroups and
 * projects) unless they are its last owner, and loses the group's SAML identity.
 */
export function deprovision(st: S, identityId: number): void {
  const identity = tget(st.identity.scimIdentities, identityId)!;
  identity.active = false;
  const group = tget(st.groups, identity.group_id);
  const memberId = iget(st.idx.members, memberKey('group', identity.group_id, identity.user_id));
  if (group && memberId !== undefined && !isLastOwner(st, group, identity.user_id)) {
    for (const id of subresourceMemberships(st, group.id, identity.user_id)) removeMember(st, id);
    removeMember(st, memberId);
  }
  const provider = samlProviderOf(st, identity.group_id);
  const u = tget(st.users, identity.user_id);
  if (u && provider)
    u.identities = u.identities.filter(
      (i) => !(i.provider === GROUP_SAML_PROVIDER && i.saml_provider_id === provider.id),
    );
}

/** `ReprovisionService`: active again, back in the group with the default role, SAML identity restored. */
export function reprovision(st: S, identityId: number, now: string): void {
  const identity = tget(st.identity.scimIdentities, identityId)!;
  identity.active = true;
  const provider = samlProviderOf(st, identity.group_id)!;
  if (!isMember(st, identity.group_id, identity.user_id))
    setMember(st, 'group', identity.group_id, identity.user_id, provider.default_membership_role, now);
  linkSamlIdentity(st, identity.user_id, provider, identity.extern_uid);
}

/** Changes an identity's extern_uid; false when another identity of the group has it. */
export function changeExternUid(st: S, identityId: number, uid: string): boolean {
  const identity = tget(st.identity.scimIdentities, identityId)!;
  const key = (x: string) => `${identity.group_id}:${x.toLowerCase()}`;
  const taken = iget(st.identity.idx.scim, key(uid));
  if (uid.trim() === '' || (taken !== undefined && taken !== identityId)) return false;
  idelete(st.identity.idx.scim, key(identity.extern_uid));
  iset(st.identity.idx.scim, key(uid), identityId);
  identity.extern_uid = uid;
  return true;
}

/**
 * `Users::UpdateService` with a SCIM PATCH's name, e-mail and username; false when the user does not
 * validate.
 */
export function planUserUpdate(
  st: PlatformState,
  user: UserRecord,
  parsed: Record<string, ScimValue>,
): ((d: S) => void) | null {
  const ch: UserChanges = {};
  if (parsed.name !== undefined) ch.name = String(parsed.name ?? '');
  if (parsed.email !== undefined) ch.email = String(parsed.email ?? '');
  if (parsed.username !== undefined) ch.username = String(parsed.username ?? '');
  const errors = userValidationErrors(st, ch, user);
  if (ch.username !== undefined && ch.username.toLowerCase() === user.username.toLowerCase())
    delete errors.username;
  else if (ch.username !== undefined && !errors.username) {
    const owner = userIdByUsername(st, ch.username);
    if (owner !== undefined && owner !== user.id) errors.username = ['has already been taken'];
  }
  if (ch.email !== undefined) {
    const owner = userIdByEmail(st, ch.email);
    if (owner !== undefined && owner !== user.id) (errors.email ??= []).push('has already been taken');
  }
  if (Object.keys(errors).length) return null;
  return (d) => {
    const u = tget(d.users, user.id)!;
    if (ch.name !== undefined) u.name = ch.name;
    if (ch.email !== undefined && ch.email.toLowerCase() !== u.email.toLowerCase())
      changeEmail(d, user.id, ch.email.trim().toLowerCase());
    if (ch.username !== undefined && ch.username !== u.username)
      renameUser(d, user.id, ch.username, mget(d.idx.projectsByNamespace, `user:${user.id}`));
  };
}
