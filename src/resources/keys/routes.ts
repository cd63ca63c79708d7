/**
 * `GET /keys/:id` and `GET /keys?fingerprint=`: an SSH key with its owner, for administrators. A
 * fingerprint is MD5 (`aa:bb:...`) or `SHA256:` and unpadded base64, as `ssh-keygen -l` prints them.
 */
import { createHash } from 'node:crypto';
import { requireAdmin, requireUser } from '../../core/auth.js';
import { state, type Ctx } from '../../core/context.js';
import { apiError, notFound, recordNotFound } from '../../core/errors.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { iget, tget, tvalues } from '../../core/table.js';
import { keyEntity } from '../user_profile/routes.js';
import type { SshKeyRecord } from '../user_profile/store.js';
import { userRenderer } from '../users/entities.js';

/** `Entities::SSHKeyWithUser`. */
function withUser(c: Ctx, k: SshKeyRecord) {
  const owner = tget(state(c).users, k.user_id);
  return { ...keyEntity(k), user: owner ? userRenderer(c).public(owner) : null };
}

/** The SHA-256 fingerprint of a key's blob, base64 without padding. */
const sha256Of = (k: SshKeyRecord) =>
  createHash('sha256')
    .update(Buffer.from(k.key.split(' ')[1] ?? '', 'base64'))
    .digest('base64')
    .replace(/=+$/, '');

/** `KeysFinder#by_fingerprint`: the key, undefined when none has it; a malformed one is refused. */
function byFingerprint(c: Ctx, raw: string): SshKeyRecord | undefined {
  const st = state(c);
  const sha = /^sha256:/i.test(raw);
  if (sha) {
    const want = raw.replace(/^sha256:/i, '');
    if (Buffer.from(want, 'base64').length !== 32) throw apiError(400, 'Failed to return the key');
    return tvalues(st.profile.keys)
      .reverse()
      .find((k) => sha256Of(k) === want);
  }
  if (!/^([0-9a-fA-F]{2}:){15}[0-9a-fA-F]{2}/.test(raw)) throw apiError(400, 'Failed to return the key');
  const id = iget(st.profile.idx.fingerprints, raw);
  return id === undefined ? undefined : tget(st.profile.keys, id);
}

export function keysRoutes(r: ApiRouter): void {
  r.get('/keys', (c) => {
    requireUser(c);
    const prm = parse(c, { fingerprint: p.str().required() });
    requireAdmin(c);
    const key = byFingerprint(c, prm.fingerprint);
    if (!key) throw notFound('Key');
    return c.json(withUser(c, key));
  });

  r.get('/keys/:id', (c) => {
    requireAdmin(c);
    const raw = c.req.param('id') ?? '';
    const key = /^\d+$/.test(raw) ? tget(state(c).profile.keys, Number(raw)) : undefined;
    if (!key) throw recordNotFound(`no key ${raw}`);
    return c.json(withUser(c, key));
  });
}
