/** Deploy keys and their projects: validation (the SSH key model's), the writes, and lookups. */
import type { Draft } from 'immer';
import { ACCESS, projectAccess } from '../../core/access.js';
import { nextId, type PlatformState, type UserRecord } from '../../core/state.js';
import { idelete, iget, iset, madd, mcount, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { keyErrors, keyFingerprint, sanitizeKey } from '../user_profile/model.js';
import type { DeployKeyLinkRecord, DeployKeyRecord } from './store.js';

type S = Draft<PlatformState>;

const pair = (projectId: number, keyId: number) => `${projectId}:${keyId}`;

/** The key text as the model stores it, and its fingerprint (null when none can be made). */
export function parseKey(text: string): { key: string; fingerprint: string | null } {
  const key = text.trim() === '' ? '' : sanitizeKey(text);
  return { key, fingerprint: key === '' ? null : keyFingerprint(key) };
}

/**
 * `Key` validations of a new deploy key, as the nested record of its project link reports them
 * (`deploy_key.<field>`). A fingerprint is taken by any key, a user's SSH key or a deploy key.
 */
export function deployKeyErrors(
  st: PlatformState,
  k: { title: string; key: string; fingerprint: string | null },
): Record<string, string[]> {
  const errors = keyErrors(st, k);
  const taken = errors.fingerprint?.includes('has already been taken') === true;
  if (!taken && k.fingerprint !== null && iget(st.deployKeys.idx.fingerprints, k.fingerprint) !== undefined)
    (errors.fingerprint ??= []).push('has already been taken');
  return Object.fromEntries(Object.entries(errors).map(([f, m]) => [`deploy_key.${f}`, m]));
}

export function createDeployKey(
  st: S,
  k: { title: string; key: string; fingerprint: string },
  userId: number | null,
  now: string,
): number {
  const id = nextId(st, 'keys');
  tset(st.deployKeys.keys, id, { id, ...k, user_id: userId, created_at: now, updated_at: now });
  iset(st.deployKeys.idx.fingerprints, k.fingerprint, id);
  return id;
}

/** Enables the key in the project; the existing link when it is enabled there already. */
export function enableKey(st: S, projectId: number, keyId: number, canPush: boolean, now: string): number {
  const found = iget(st.deployKeys.idx.pairs, pair(projectId, keyId));
  if (found !== undefined) return found;
  const id = nextId(st, 'deploy_keys_projects');
  const link: DeployKeyLinkRecord = {
    id,
    project_id: projectId,
    deploy_key_id: keyId,
    can_push: canPush,
    created_at: now,
    updated_at: now,
  };
  tset(st.deployKeys.links, id, link);
  madd(st.deployKeys.idx.byProject, String(projectId), id);
  madd(st.deployKeys.idx.byKey, String(keyId), id);
  iset(st.deployKeys.idx.pairs, pair(projectId, keyId), id);
  return id;
}

/** Removes a link; `destroy_orphaned_deploy_key`: the key goes with its last project. */
export function removeLink(st: S, linkId: number): void {
  const l = tget(st.deployKeys.links, linkId);
  if (!l) return;
  mremove(st.deployKeys.idx.byProject, String(l.project_id), linkId);
  mremove(st.deployKeys.idx.byKey, String(l.deploy_key_id), linkId);
  idelete(st.deployKeys.idx.pairs, pair(l.project_id, l.deploy_key_id));
  tdelete(st.deployKeys.links, linkId);
  if (mcount(st.deployKeys.idx.byKey, String(l.deploy_key_id)) === 0) {
    const k = tget(st.deployKeys.keys, l.deploy_key_id);
    if (k) idelete(st.deployKeys.idx.fingerprints, k.fingerprint);
    tdelete(st.deployKeys.keys, l.deploy_key_id);
  }
}

export function deleteProjectDeployKeys(st: S, projectId: number): void {
  for (const id of mget(st.deployKeys.idx.byProject, String(projectId))) removeLink(st, id);
}

/** The project's links, in id order. */
export const projectLinks = (st: PlatformState, projectId: number): DeployKeyLinkRecord[] =>
  mget(st.deployKeys.idx.byProject, String(projectId))
    .sort((a, b) => a - b)
    .map((id) => tget(st.deployKeys.links, id)!);

export const linkOf = (st: PlatformState, projectId: number, keyId: number) => {
  const id = iget(st.deployKeys.idx.pairs, pair(projectId, keyId));
  return id === undefined ? undefined : tget(st.deployKeys.links, id);
};

/**
 * `project_deploy_keys`: the keys of the projects the user maintains; `accessible_deploy_keys` adds the
 * public ones (fauxlab has none). An admin reaches every key.
 */
export function accessibleKey(
  st: PlatformState,
  user: UserRecord,
  keyId: number,
): DeployKeyRecord | undefined {
  const k = tget(st.deployKeys.keys, keyId);
  if (!k) return undefined;
  if (user.admin) return k;
  for (const id of mget(st.deployKeys.idx.byKey, String(keyId))) {
    const project = tget(st.projects, tget(st.deployKeys.links, id)!.project_id);
    if (project && projectAccess(st, user, project) >= ACCESS.MAINTAINER) return k;
  }
  return undefined;
}
