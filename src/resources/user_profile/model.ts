/**
 * Secondary e-mails, SSH keys and GPG keys: records, validation as the platform's models report it,
 * and the SSH key parsing that gives a key its fingerprint.
 */
import { createHash } from 'node:crypto';
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { EmailRecord, GpgKeyRecord, SshKeyRecord } from './store.js';

type S = Draft<PlatformState>;

export type ProfileKind = 'emails' | 'keys' | 'gpgKeys';

const PREFIX: Record<ProfileKind, string> = { emails: 'e', keys: 'k', gpgKeys: 'g' };
const byKey = (kind: ProfileKind, userId: number) => `${PREFIX[kind]}${userId}`;

function ids(st: PlatformState, kind: ProfileKind, userId: number): number[] {
  return mget(st.profile.idx.by, byKey(kind, userId)).sort((a, b) => a - b);
}

/** A user's secondary e-mails, SSH keys and GPG keys, each in id order. */
export const userEmails = (st: PlatformState, userId: number) =>
  ids(st, 'emails', userId).map((id) => tget(st.profile.emails, id)!);
export const userKeys = (st: PlatformState, userId: number) =>
  ids(st, 'keys', userId).map((id) => tget(st.profile.keys, id)!);
export const userGpgKeys = (st: PlatformState, userId: number) =>
  ids(st, 'gpgKeys', userId).map((id) => tget(st.profile.gpgKeys, id)!);

/** One of the user's records, or undefined (also when it is another user's). */
export function userRecord(
  st: PlatformState,
  kind: 'emails',
  userId: number,
  id: number,
): EmailRecord | undefined;
export function userRecord(
  st: PlatformState,
  kind: 'keys',
  userId: number,
  id: number,
): SshKeyRecord | undefined;
export function userRecord(
  st: PlatformState,
  kind: 'gpgKeys',
  userId: number,
  id: number,
): GpgKeyRecord | undefined;
export function userRecord(
  st: PlatformState,
  kind: ProfileKind,
  userId: number,
  id: number,
): EmailRecord | SshKeyRecord | GpgKeyRecord | undefined {
  const rec = tget(st.profile[kind] as PlatformState['profile']['emails'], id);
  return rec?.user_id === userId ? rec : undefined;
}

// ---------------------------------------------------------------------------------------------------
// E-mails

/** Devise's `email_regexp` as the platform configures it. */
const EMAIL_FORMAT = /^[^@\s]+@[^@\s]+$/;

/** The model's normalisation: stripped and down-cased. */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/** `Email` validations: presence, format, uniqueness among secondary e-mails and against primary ones. */
export function emailErrors(st: PlatformState, email: string): Record<string, string[]> {
  const list: string[] = [];
  if (email === '') list.push("can't be blank");
  if (!EMAIL_FORMAT.test(email)) list.push('is invalid');
  if (email !== '' && iget(st.profile.idx.emails, email) !== undefined) list.push('has already been taken');
  if (email !== '' && iget(st.idx.emails, email) !== undefined) list.push('has already been taken');
  return list.length ? { email: list } : {};
}

export function createEmail(st: S, userId: number, email: string, confirmed: boolean, now: string): number {
  const id = nextId(st, 'emails');
  tset(st.profile.emails, id, {
    id,
    user_id: userId,
    email,
    confirmed_at: confirmed ? now : null,
    created_at: now,
    updated_at: now,
  });
  iset(st.profile.idx.emails, email, id);
  madd(st.profile.idx.by, byKey('emails', userId), id);
  return id;
}

export function deleteEmail(st: S, id: number): void {
  const e = tget(st.profile.emails, id);
  if (!e) return;
  idelete(st.profile.idx.emails, e.email);
  mremove(st.profile.idx.by, byKey('emails', e.user_id), id);
  tdelete(st.profile.emails, id);
}

/** The user whose secondary e-mail an address is (`User.by_any_email` looks there too). */
export function secondaryEmailOwner(st: PlatformState, email: string): number | undefined {
  const id = iget(st.profile.idx.emails, normaliseEmail(email));
  return id === undefined ? undefined : tget(st.profile.emails, id)?.user_id;
}

// ---------------------------------------------------------------------------------------------------
// SSH keys

/** `Gitlab::SSHPublicKey` technologies of the 13.x era, with the fields of each key blob after its type. */
const KEY_FIELDS: Record<string, number> = {
  'ssh-rsa': 2,
  'ssh-dss': 4,
  'ecdsa-sha2-nistp256': 2,
  'ecdsa-sha2-nistp384': 2,
  'ecdsa-sha2-nistp521': 2,
  'ssh-ed25519': 1,
};

const KEY_FORMAT = new RegExp(`^(${Object.keys(KEY_FIELDS).join('|')})`);

/** The blob of a `<type> <base64>` key when it parses as a key of that type, else null. */
function keyBlob(type: string, base64: string): Buffer | null {
  if (!Object.hasOwn(KEY_FIELDS, type) || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return null;
  const blob = Buffer.from(base64, 'base64');
  let at = 0;
  const field = (): Buffer | null => {
    if (at + 4 > blob.length) return null;
    const len = blob.readUInt32BE(at);
    if (at + 4 + len > blob.length) return null;
    const out = blob.subarray(at + 4, at + 4 + len);
    at += 4 + len;
    return out;
  };
  if (field()?.toString('latin1') !== type) return null;
  for (let i = 0; i < KEY_FIELDS[type]!; i++) if (!field()) return null;
  return at === blob.length ? blob : null;
}

/**
 * `Gitlab::SSHPublicKey.sanitize`: the type, the base64 body (joined back together when line breaks
 * split it) and the first word of the comment; the text as given when no prefix of it parses.
 */
export function sanitizeKey(text: string): string {
  const [type = '', ...parts] = text.trim().split(/\s+/);
  let body = '';
  for (let i = 0; i < parts.length; i++) {
    body += parts[i];
    if (keyBlob(type, body)) return [`${type} ${body}`, parts[i + 1]].filter(Boolean).join(' ');
  }
  return text;
}

/** The MD5 fingerprint (`aa:bb:...`) of a sanitised key, or null when it cannot be generated. */
export function keyFingerprint(key: string): string | null {
  const [type = '', body = ''] = key.split(' ');
  const blob = keyBlob(type, body);
  if (!blob) return null;
  return createHash('md5').update(blob).digest('hex').match(/../g)!.join(':');
}

/** `Key` validations, for a sanitised key and its fingerprint. */
export function keyErrors(
  st: PlatformState,
  k: { title: string; key: string; fingerprint: string | null },
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  if (k.title.trim() === '') add('title', "can't be blank");
  if (k.title.length > 255) add('title', 'is too long (maximum is 255 characters)');
  if (k.key.trim() === '') add('key', "can't be blank");
  if (k.key.length > 5000) add('key', 'is too long (maximum is 5000 characters)');
  if (!KEY_FORMAT.test(k.key)) add('key', 'is invalid');
  if (k.fingerprint === null) add('fingerprint', 'cannot be generated');
  else if (iget(st.profile.idx.fingerprints, k.fingerprint) !== undefined)
    add('fingerprint', 'has already been taken');
  return errors;
}

export interface NewKey {
  title: string;
  key: string;
  fingerprint: string;
  expires_at: string | null;
}

export function createKey(st: S, userId: number, k: NewKey, now: string): number {
  const id = nextId(st, 'keys');
  tset(st.profile.keys, id, { id, user_id: userId, ...k, created_at: now, updated_at: now });
  iset(st.profile.idx.fingerprints, k.fingerprint, id);
  madd(st.profile.idx.by, byKey('keys', userId), id);
  return id;
}

export function deleteKey(st: S, id: number): void {
  const k = tget(st.profile.keys, id);
  if (!k) return;
  idelete(st.profile.idx.fingerprints, k.fingerprint);
  mremove(st.profile.idx.by, byKey('keys', k.user_id), id);
  tdelete(st.profile.keys, id);
}

// ---------------------------------------------------------------------------------------------------
// GPG keys

const GPG_PREFIX = '-----BEGIN PGP PUBLIC KEY BLOCK-----';
const GPG_SUFFIX = '-----END PGP PUBLIC KEY BLOCK-----';
const GPG_FORMAT_MESSAGE = `is invalid. A valid public GPG key begins with '${GPG_PREFIX}' and ends with '${GPG_SUFFIX}'`;

/** `GpgKey` validations: presence, the armour's format, uniqueness. */
export function gpgKeyErrors(st: PlatformState, key: string): Record<string, string[]> {
  const list: string[] = [];
  const t = key.trim();
  if (t === '') list.push("can't be blank");
  const inner = t.slice(GPG_PREFIX.length, t.length - GPG_SUFFIX.length);
  const wellFormed =
    t.startsWith(GPG_PREFIX) &&
    t.endsWith(GPG_SUFFIX) &&
    t.length > GPG_PREFIX.length + GPG_SUFFIX.length &&
    !inner.includes(GPG_PREFIX) &&
    !inner.includes(GPG_SUFFIX);
  if (!wellFormed) list.push(GPG_FORMAT_MESSAGE);
  else if (iget(st.profile.idx.gpgKeys, t) !== undefined) list.push('has already been taken');
  return list.length ? { key: list } : {};
}

export function createGpgKey(st: S, userId: number, key: string, now: string): number {
  const id = nextId(st, 'gpg_keys');
  const text = key.trim();
  tset(st.profile.gpgKeys, id, { id, user_id: userId, key: text, created_at: now, updated_at: now });
  iset(st.profile.idx.gpgKeys, text, id);
  madd(st.profile.idx.by, byKey('gpgKeys', userId), id);
  return id;
}

export function deleteGpgKey(st: S, id: number): void {
  const k = tget(st.profile.gpgKeys, id);
  if (!k) return;
  idelete(st.profile.idx.gpgKeys, k.key);
  mremove(st.profile.idx.by, byKey('gpgKeys', k.user_id), id);
  tdelete(st.profile.gpgKeys, id);
}

// ---------------------------------------------------------------------------------------------------

/** Everything of a deleted user's profile (`deleteUser` cascades through this). */
export function deleteUserProfile(st: S, userId: number): void {
  for (const id of mget(st.profile.idx.by, byKey('emails', userId))) deleteEmail(st, id);
  for (const id of mget(st.profile.idx.by, byKey('keys', userId))) deleteKey(st, id);
  for (const id of mget(st.profile.idx.by, byKey('gpgKeys', userId))) deleteGpgKey(st, id);
  tdelete(st.profile.statuses, userId);
}
