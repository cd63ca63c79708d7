/**
 * `GET /keys/:id` and `GET /keys?fingerprint=`: an SSH key with its owner, for administrators. A
 * fingerprint is MD5 (`aa:bb:...`) or `SHA256:` and unpadded base64, as `ssh-keygen -l` prints them.
 * Deploy keys are rows of the same `keys` table (`DeployKey < Key`, one id sequence): both routes find
 * them, and the fingerprint search shows one as `Entities::DeployKeyWithUser`.
 */
import { createHash } from 'node:crypto';
import { requireAdmin, requireUser } from '../../core/auth.js';
import { state, type Ctx } from '../../core/context.js';
import { apiError, notFound, recordNotFound } from '../../core/errors.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { iget, mget, tget, tvalues } from '../../core/table.js';
import { keyEntity } from '../user_profile/routes.js';
import type { SshKeyRecord } from '../user_profile/store.js';
import type { DeployKeyRecord } from '../deploy_keys/store.js';
import { userRenderer } from '../users/entities.js';

type AnyKey = { kind: 'user'; key: SshKeyRecord } | { kind: 'deploy'; key: DeployKeyRecord };

/** `Entities::SSHKey` of a deploy key: it has no expiry in fauxlab. */
const deployKeyEntity = (k: DeployKeyRecord) => ({
  id: k.id,
  title: k.title,
  key: k.key,
  created_at: k.created_at,
  expires_at: null,
});

/**
 * `Entities::SSHKeyWithUser` (the owner, `UserPublic`); for a deploy key the user who added it, and with
 * `deploy_keys` `DeployKeyWithUser`'s `deploy_keys_projects`, the link rows as their columns.
 */
function withUser(c: Ctx, k: AnyKey, projects = false) {
  const st = state(c);
  const ownerId = k.key.user_id;
  const owner = ownerId === null ? undefined : tget(st.users, ownerId);
  const user = owner ? userRenderer(c).public(owner) : null;
  if (k.kind === 'user') return { ...keyEntity(k.key), user };
  const out: Record<string, unknown> = { ...deployKeyEntity(k.key), user };
  if (projects)
    out.deploy_keys_projects = mget(st.deployKeys.idx.byKey, String(k.key.id))
      .map((id) => tget(st.deployKeys.links, id)!)
      .sort((a, b) => a.id - b.id)
      .map((l) => ({
        id: l.id,
        deploy_key_id: l.deploy_key_id,
        project_id: l.project_id,
        created_at: l.created_at,
        updated_at: l.updated_at,
        can_push: l.can_push,
      }));
  return out;
}

/** The SHA-256 fingerprint of a key's blob, base64 without padding. */
const sha256Of = (text: string) =>
  createHash('sha256')
    .update(Buffer.from(text.split(' ')[1] ?? '', 'base64'))
    .digest('base64')
    .replace(/=+$/, '');

/** The newest of the keys found, users' and deploy keys alike (`KeysFinder` sorts by id, descending). */
function newest(a: SshKeyRecord | undefined, b: DeployKeyRecord | undefined): AnyKey | undefined {
  if (a && (!b || a.id > b.id)) return { kind: 'user', key: a };
  return b ? { kind: 'deploy', key: b } : undefined;
}

/** `KeysFinder#by_fingerprint` over every key: undefined when none has it; a malformed one is refused. */
function byFingerprint(c: Ctx, raw: string): AnyKey | undefined {
  const st = state(c);
  const sha = /^sha256:/i.test(raw);
  if (sha) {
    const want = raw.replace(/^sha256:/i, '');
    if (Buffer.from(want, 'base64').length !== 32) throw apiError(400, 'Failed to return the key');
    const user = tvalues(st.profile.keys)
      .reverse()
      .find((k) => sha256Of(k.key) === want);
    const deploy = tvalues(st.deployKeys.keys)
      .reverse()
      .find((k) => sha256Of(k.key) === want);
    return newest(user, deploy);
  }
  if (!/^([0-9a-fA-F]{2}:){15}[0-9a-fA-F]{2}/.test(raw)) throw apiError(400, 'Failed to return the key');
  const uid = iget(st.profile.idx.fingerprints, raw);
  const did = iget(st.deployKeys.idx.fingerprints, raw);
  return newest(
    uid === undefined ? undefined : tget(st.profile.keys, uid),
    did === undefined ? undefined : tget(st.deployKeys.keys, did),
  );
}

export function keysRoutes(r: ApiRouter): void {
  r.get('/keys', (c) => {
    requireUser(c);
    const prm = parse(c, { fingerprint: p.str().required() });
    requireAdmin(c);
    const key = byFingerprint(c, prm.fingerprint);
    if (!key) throw notFound('Key');
    return c.json(withUser(c, key, true));
  });

  r.get('/keys/:id', (c) => {
    requireAdmin(c);
    const raw = c.req.param('id') ?? '';
    const st = state(c);
    const id = /^\d+$/.test(raw) ? Number(raw) : undefined;
    // `Key.find`: the one id sequence makes at most one of the two tables hold it.
    const key =
      id === undefined ? undefined : newest(tget(st.profile.keys, id), tget(st.deployKeys.keys, id));
    if (!key) throw recordNotFound(`no key ${raw}`);
    return c.json(withUser(c, key));
  });
}
