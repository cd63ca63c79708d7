/**
 * A user's profile sub-resources, as the users API serves them: `/user/{emails,keys,gpg_keys,status}`
 * for the current user, and the `/users/:id/...` twins (administrators write; SSH keys, GPG keys and the
 * status are public to read).
 *
 * The `/user` routes authenticate before anything else. The `/users/:id` routes declare an integer id
 * (other ids are unknown routes) and validate their params before the admin check, which precedes the
 * user lookup, as in the platform's endpoint bodies.
 */
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { notFound, validationError } from '../../core/errors.js';
import { findUser, requireUser } from '../../core/auth.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { visibilityRestricted } from '../settings/model.js';
import {
  createEmail,
  createGpgKey,
  createKey,
  deleteEmail,
  deleteGpgKey,
  deleteKey,
  emailErrors,
  gpgKeyErrors,
  keyErrors,
  keyFingerprint,
  normaliseEmail,
  sanitizeKey,
  userEmails,
  userGpgKeys,
  userKeys,
  userRecord,
} from './model.js';
import { CLEAR_AFTER, currentStatus, DEFAULT_EMOJI, setStatus, userStatusEntity } from './status.js';
import type { EmailRecord, GpgKeyRecord, SshKeyRecord } from './store.js';
import { emojiByName } from '../markdown/emoji.js';
import { keyEventData, systemEvent } from '../hooks/system.js';

/** `Entities::Email` (13.x). */
const emailEntity = (e: EmailRecord) => ({ id: e.id, email: e.email });

/** `Entities::SSHKey`. */
export const keyEntity = (k: SshKeyRecord) => ({
  id: k.id,
  title: k.title,
  key: k.key,
  created_at: k.created_at,
  expires_at: k.expires_at,
});

/** `Entities::GpgKey`. */
const gpgKeyEntity = (k: GpgKeyRecord) => ({ id: k.id, key: k.key, created_at: k.created_at });

const readScopes = ['read_user'];
/** `resource :users, requirements: { id: /[0-9]*\/ }`. */
const USER_ID = { id: /^\d+$/ };

function saveOrFail(errors: Record<string, string[]>): void {
  if (Object.keys(errors).length) throw validationError(errors);
}

/** `User.find_by(id:)` → `not_found!('User')`. */
function userById(c: Ctx): UserRecord {
  const u = tget(state(c).users, Number(c.req.param('id')));
  if (!u) throw notFound('User', 'no such user');
  return u;
}

/** `find_user` by id or username, and `can?(current_user, :read_user, user)`. */
function readableUser(c: Ctx, idOrUsername: string): UserRecord {
  const st = state(c);
  const u = findUser(st, idOrUsername);
  if (!u) throw notFound('User', 'no such user');
  if (!c.get('viewer').user && visibilityRestricted(st, 'public'))
    throw notFound('User', 'public visibility is restricted: anonymous users see no one');
  return u;
}

// ---------------------------------------------------------------------------------------------------
// Writes shared by `/user` and `/users/:id`

function addEmail(c: Ctx, user: UserRecord, raw: string, confirmed: boolean): Response {
  const email = normaliseEmail(raw);
  saveOrFail(emailErrors(state(c), email));
  const now = c.get('fx').clock.iso();
  const id = write(c, (d) => createEmail(d, user.id, email, confirmed, now));
  return c.json(emailEntity(tget(state(c).profile.emails, id)!), 201);
}

function addKey(
  c: Ctx,
  user: UserRecord,
  prm: { title: string; key: string; expires_at?: string },
): Response {
  const key = prm.key.trim() === '' ? '' : sanitizeKey(prm.key);
  const fingerprint = key === '' ? null : keyFingerprint(key);
  saveOrFail(keyErrors(state(c), { title: prm.title, key, fingerprint }));
  const now = c.get('fx').clock.iso();
  const id = write(c, (d) =>
    createKey(
      d,
      user.id,
      { title: prm.title, key, fingerprint: fingerprint!, expires_at: prm.expires_at ?? null },
      now,
    ),
  );
  systemEvent(c, 'key_create', keyEventData(tget(state(c).profile.keys, id)!, user));
  return c.json(keyEntity(tget(state(c).profile.keys, id)!), 201);
}

function addGpgKey(c: Ctx, user: UserRecord, key: string): Response {
  saveOrFail(gpgKeyErrors(state(c), key));
  const now = c.get('fx').clock.iso();
  const id = write(c, (d) => createGpgKey(d, user.id, key, now));
  return c.json(gpgKeyEntity(tget(state(c).profile.gpgKeys, id)!), 201);
}

/** `destroy_conditionally!`: 412 when the record changed after `If-Unmodified-Since`, else 204. */
/**
 * `GpgKey#revoke`: the key's signatures become `unknown_key` and the key is destroyed; the endpoint
 * ends with `status :accepted`, whose value (the code) is the body. fauxlab verifies no commit
 * signatures (`GET .../commits/:sha/signature` finds none), so only the key goes.
 */
function revoke(c: Ctx, key: GpgKeyRecord): Response {
  write(c, (d) => deleteGpgKey(d, key.id));
  return c.json(202, 202);
}

function destroy(c: Ctx, rec: { updated_at: string }, del: Parameters<typeof write>[1]): Response {
  checkUnmodifiedSince(c, rec.updated_at);
  write(c, del);
  return c.body(null, 204);
}

const keyShape = { key: p.str().required(), title: p.str().required(), expires_at: p.datetime() };

// ---------------------------------------------------------------------------------------------------

function currentUserRoutes(r: ApiRouter): void {
  const me = { auth: 'required' as const, readScopes };

  r.get('/user/emails', me, (c) => {
    parse(c, paginationParams);
    return paginate(c, userEmails(state(c), requireUser(c).id), emailEntity);
  });
  r.get('/user/emails/:email_id', me, (c) => {
    const { email_id } = parse(c, { email_id: p.int().required() });
    const e = userRecord(state(c), 'emails', requireUser(c).id, email_id);
    if (!e) throw notFound('Email', 'no such e-mail of this user');
    return c.json(emailEntity(e));
  });
  r.post('/user/emails', me, (c) => {
    const { email } = parse(c, { email: p.str().required() });
    return addEmail(c, requireUser(c), email, false);
  });
  r.delete('/user/emails/:email_id', me, (c) => {
    const { email_id } = parse(c, { email_id: p.int().required() });
    const e = userRecord(state(c), 'emails', requireUser(c).id, email_id);
    if (!e) throw notFound('Email', 'no such e-mail of this user');
    return destroy(c, e, (d) => deleteEmail(d, e.id));
  });

  r.get('/user/keys', me, (c) => {
    parse(c, paginationParams);
    return paginate(c, userKeys(state(c), requireUser(c).id), keyEntity);
  });
  r.get('/user/keys/:key_id', me, (c) => {
    const { key_id } = parse(c, { key_id: p.int().required() });
    const k = userRecord(state(c), 'keys', requireUser(c).id, key_id);
    if (!k) throw notFound('Key', 'no such key of this user');
    return c.json(keyEntity(k));
  });
  r.post('/user/keys', me, (c) => addKey(c, requireUser(c), parse(c, keyShape)));
  r.delete('/user/keys/:key_id', me, (c) => {
    const { key_id } = parse(c, { key_id: p.int().required() });
    const k = userRecord(state(c), 'keys', requireUser(c).id, key_id);
    if (!k) throw notFound('Key', 'no such key of this user');
    return destroy(c, k, (d) => deleteKey(d, k.id));
  });

  r.get('/user/gpg_keys', me, (c) => {
    parse(c, paginationParams);
    return paginate(c, userGpgKeys(state(c), requireUser(c).id), gpgKeyEntity);
  });
  r.get('/user/gpg_keys/:key_id', me, (c) => {
    const { key_id } = parse(c, { key_id: p.int().required() });
    const k = userRecord(state(c), 'gpgKeys', requireUser(c).id, key_id);
    if (!k) throw notFound('GPG Key', 'no such GPG key of this user');
    return c.json(gpgKeyEntity(k));
  });
  r.post('/user/gpg_keys', me, (c) => {
    const { key } = parse(c, { key: p.str().required() });
    return addGpgKey(c, requireUser(c), key);
  });
  r.delete('/user/gpg_keys/:key_id', me, (c) => {
    const { key_id } = parse(c, { key_id: p.int().required() });
    const k = userRecord(state(c), 'gpgKeys', requireUser(c).id, key_id);
    if (!k) throw notFound('GPG Key', 'no such GPG key of this user');
    return destroy(c, k, (d) => deleteGpgKey(d, k.id));
  });

  r.post('/user/gpg_keys/:key_id/revoke', me, (c) => {
    const { key_id } = parse(c, { key_id: p.int().required() });
    const k = userRecord(state(c), 'gpgKeys', requireUser(c).id, key_id);
    if (!k) throw notFound('GPG Key', 'no such GPG key of this user');
    return revoke(c, k);
  });

  r.get('/user/status', me, (c) => {
    const u = requireUser(c);
    return c.json(userStatusEntity(currentStatus(state(c), u.id, c.get('fx').clock.ms())));
  });
  r.put('/user/status', me, (c) => {
    const u = requireUser(c);
    const prm = parse(c, {
      emoji: p.str(),
      message: p.str(),
      availability: p.str(),
      clear_status_after: p.str().values(Object.keys(CLEAR_AFTER)),
    });
    const availability = prm.availability === 'busy' ? 'busy' : 'not_set';
    // `Users::SetStatusService`: nothing to show means no status at all.
    if (!prm.emoji && !prm.message && availability === 'not_set') {
      write(c, (d) => setStatus(d, null, u.id));
      return c.json(null);
    }
    const emoji = prm.emoji || DEFAULT_EMOJI;
    const message = prm.message ?? null;
    const errors: Record<string, string[]> = {};
    if (!emojiByName(emoji)) errors.emoji = ['is not included in the list'];
    if (message !== null && message.length > 100)
      errors.message = ['is too long (maximum is 100 characters)'];
    saveOrFail(errors);
    const nowMs = c.get('fx').clock.ms();
    const after = prm.clear_status_after;
    const rec = {
      id: u.id,
      emoji,
      message,
      availability,
      clear_status_at: after ? new Date(nowMs + CLEAR_AFTER[after]! * 1000).toISOString() : null,
    } as const;
    write(c, (d) => setStatus(d, rec, u.id));
    return c.json(userStatusEntity(rec));
  });
}

function adminTwinRoutes(r: ApiRouter): void {
  const admin = { auth: 'admin' as const, requirements: USER_ID };
  const idParam = { id: p.int().required() };

  r.get('/users/:id/emails', { ...admin, readScopes, params: { ...idParam, ...paginationParams } }, (c) =>
    paginate(c, userEmails(state(c), userById(c).id), emailEntity),
  );
  r.post(
    '/users/:id/emails',
    { ...admin, params: { ...idParam, email: p.str().required(), skip_confirmation: p.bool() } },
    (c, prm) => addEmail(c, userById(c), prm.email, prm.skip_confirmation === true),
  );
  r.delete(
    '/users/:id/emails/:email_id',
    { ...admin, params: { ...idParam, email_id: p.int().required() } },
    (c, prm) => {
      const u = userById(c);
      const e = userRecord(state(c), 'emails', u.id, prm.email_id);
      if (!e) throw notFound('Email', 'no such e-mail of this user');
      return destroy(c, e, (d) => deleteEmail(d, e.id));
    },
  );

  r.get(
    '/users/:user_id/keys',
    { readScopes, requirements: { user_id: /^[^/]+$/ }, params: paginationParams },
    (c) => paginate(c, userKeys(state(c), readableUser(c, c.req.param('user_id') ?? '').id), keyEntity),
  );
  r.post('/users/:id/keys', { ...admin, params: { ...idParam, ...keyShape } }, (c, prm) =>
    addKey(c, userById(c), prm),
  );
  r.delete(
    '/users/:id/keys/:key_id',
    { ...admin, params: { ...idParam, key_id: p.int().required() } },
    (c, prm) => {
      const u = userById(c);
      const k = userRecord(state(c), 'keys', u.id, prm.key_id);
      if (!k) throw notFound('Key', 'no such key of this user');
      return destroy(c, k, (d) => deleteKey(d, k.id));
    },
  );

  const pub = { requirements: USER_ID, readScopes };
  // 14.9 (merge request 81790): `find_user` with `can?(current_user, :read_user, user)`, as the list.
  r.get(
    '/users/:id/keys/:key_id',
    {
      ...pub,
      params: { ...idParam, key_id: p.int().required() },
      since: '14.9',
      source:
        'doc/api/users.md "Single SSH key for given user" (Introduced in GitLab 14.9, merge request 81790)',
    },
    (c, prm) => {
      const u = readableUser(c, String(prm.id));
      const k = userRecord(state(c), 'keys', u.id, prm.key_id);
      if (!k) throw notFound('Key', 'no such key of this user');
      return c.json(keyEntity(k));
    },
  );
  r.get('/users/:id/gpg_keys', { ...pub, params: { ...idParam, ...paginationParams } }, (c) =>
    paginate(c, userGpgKeys(state(c), userById(c).id), gpgKeyEntity),
  );
  r.get(
    '/users/:id/gpg_keys/:key_id',
    { ...pub, params: { ...idParam, key_id: p.int().required() } },
    (c, prm) => {
      const k = userRecord(state(c), 'gpgKeys', userById(c).id, prm.key_id);
      if (!k) throw notFound('GPG Key', 'no such GPG key of this user');
      return c.json(gpgKeyEntity(k));
    },
  );
  r.post('/users/:id/gpg_keys', { ...admin, params: { ...idParam, key: p.str().required() } }, (c, prm) =>
    addGpgKey(c, userById(c), prm.key),
  );
  r.delete(
    '/users/:id/gpg_keys/:key_id',
    { ...admin, params: { ...idParam, key_id: p.int().required() } },
    (c, prm) => {
      const u = userById(c);
      const k = userRecord(state(c), 'gpgKeys', u.id, prm.key_id);
      if (!k) throw notFound('GPG Key', 'no such GPG key of this user');
      return destroy(c, k, (d) => deleteGpgKey(d, k.id));
    },
  );

  r.post(
    '/users/:id/gpg_keys/:key_id/revoke',
    { ...admin, params: { ...idParam, key_id: p.int().required() } },
    (c, prm) => {
      const k = userRecord(state(c), 'gpgKeys', userById(c).id, prm.key_id);
      if (!k) throw notFound('GPG Key', 'no such GPG key of this user');
      return revoke(c, k);
    },
  );

  r.get('/users/:user_id/status', { readScopes, requirements: { user_id: /^[^/]+$/ } }, (c) => {
    const u = readableUser(c, c.req.param('user_id') ?? '');
    return c.json(userStatusEntity(currentStatus(state(c), u.id, c.get('fx').clock.ms())));
  });
}

export function userProfileRoutes(r: ApiRouter): void {
  currentUserRoutes(r);
  adminTwinRoutes(r);
}
