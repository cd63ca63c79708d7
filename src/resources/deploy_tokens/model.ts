/** Deploy token writes and validation, shared by the API, scenario loading and cascading deletes. */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { digest } from '../../core/store.js';
import { idelete, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { DeployTokenRecord, DeployTokenScope } from './store.js';

type S = Draft<PlatformState>;

export const ownerKey = (owner: 'project' | 'group', id: number) => `${owner[0]}${id}`;

/** The token's username as the platform shows it. */
export const deployTokenUsername = (t: DeployTokenRecord) => t.username ?? `gitlab+deploy-token-${t.id}`;

/** The tokens of a project or group, in id order. */
export function ownedDeployTokens(
  st: PlatformState,
  owner: 'project' | 'group',
  id: number,
): DeployTokenRecord[] {
  return mget(st.deployTokens.idx.by, ownerKey(owner, id))
    .sort((a, b) => a - b)
    .map((tid) => tget(st.deployTokens.records, tid)!);
}

export interface NewDeployToken {
  owner: 'project' | 'group';
  owner_id: number;
  name: string;
  username?: string | null;
  scopes: DeployTokenScope[];
  expires_at?: string | null;
  revoked?: boolean;
  /** The secret clients will send; or its digest. */
  token?: string;
  digest?: string;
  creator_id?: number | null;
}

export function createDeployToken(st: S, input: NewDeployToken, now: string): number {
  const id = nextId(st, 'deploy_tokens');
  tset(st.deployTokens.records, id, {
    id,
    owner: input.owner,
    owner_id: input.owner_id,
    name: input.name,
    // `username.presence`: an empty username means the default one.
    username: input.username ? input.username : null,
    scopes: input.scopes,
    expires_at: input.expires_at ?? null,
    revoked: input.revoked ?? false,
    digest: input.digest ?? digest(input.token ?? ''),
    creator_id: input.creator_id ?? null,
    created_at: now,
  });
  madd(st.deployTokens.idx.by, ownerKey(input.owner, input.owner_id), id);
  return id;
}

export function deleteDeployToken(st: S, id: number): void {
  const t = tget(st.deployTokens.records, id);
  if (!t) return;
  mremove(st.deployTokens.idx.by, ownerKey(t.owner, t.owner_id), id);
  tdelete(st.deployTokens.records, id);
}

/** A deleted project's or group's tokens go with it. */
export function deleteOwnedDeployTokens(st: S, owner: 'project' | 'group', id: number): void {
  for (const tid of mget(st.deployTokens.idx.by, ownerKey(owner, id))) tdelete(st.deployTokens.records, tid);
  idelete(st.deployTokens.idx.by, ownerKey(owner, id));
}

const USERNAME_FORMAT = /^[a-zA-Z0-9.+_-]+$/;

/**
 * `DeployToken` validations as the create service reports them: the full messages joined into one
 * sentence (`to_sentence`), or null when valid.
 */
export function deployTokenProblem(input: {
  username?: string | null;
  scopes: readonly string[];
}): string | null {
  const messages: string[] = [];
  const username = input.username ?? '';
  if (username !== '') {
    if (username.length > 255) messages.push('Username is too long (maximum is 255 characters)');
    if (!USERNAME_FORMAT.test(username))
      messages.push("Username can contain only letters, digits, '_', '-', '+', and '.'");
  }
  if (input.scopes.length === 0) messages.push("Scopes can't be blank");
  if (messages.length === 0) return null;
  if (messages.length === 1) return messages[0]!;
  if (messages.length === 2) return messages.join(' and ');
  return `${messages.slice(0, -1).join(', ')}, and ${messages.at(-1)}`;
}
