/**
 * `ResourceAccessTokens::CreateService` and `RevokeService` (13.12): a bot user per token, named
 * `project_<id>_bot` (`Uniquify`: `project_<id>_bot1`, ... when taken), a maintainer of the project until
 * the token expires; revoking revokes the token and deletes the bot (`DeleteUserWorker`, here in the
 * same write).
 */
import { createHash } from 'node:crypto';
import type { Draft } from 'immer';
import { ACCESS } from '../../core/access.js';
import type { PlatformState, ProjectRecord, TokenRecord } from '../../core/state.js';
import { madd, mget, mremove, tget } from '../../core/table.js';
import { setMember } from '../projects/model.js';
import {
  addToken,
  createUser,
  deleteUser,
  emailTaken,
  planUserDeletion,
  usernameTaken,
} from '../users/model.js';

type S = Draft<PlatformState>;

/** `Uniquify#string`: the base, then the base with 1, 2, ... until one is free. */
function uniquify(make: (n: string) => string, taken: (s: string) => boolean): string {
  let n = 0;
  let s = make('');
  while (taken(s)) s = make(String(++n));
  return s;
}

/** The bot users of a project (`resource.bots`). */
export const projectBots = (st: PlatformState, projectId: number): number[] =>
  mget(st.resourceTokens.bots, String(projectId));

/** The project access tokens: every personal token of the project's bots, by id. */
export function projectAccessTokens(st: PlatformState, projectId: number): TokenRecord[] {
  return projectBots(st, projectId)
    .flatMap((uid) => mget(st.idx.tokensByUser, String(uid)).map((id) => tget(st.tokens, id)!))
    .filter((t) => t.kind === 'personal')
    .sort((a, b) => a.id - b.id);
}

/** A token string of the platform's shape (20 characters), from the record id and the instant. */
export function botToken(seq: number, now: string): string {
  return createHash('sha256')
    .update(`fauxlab:project-access-token:${seq}:${now}`)
    .digest('base64url')
    .slice(0, 20);
}

export interface NewProjectToken {
  name: string;
  scopes: string[];
  expires_at: string | null;
}

/** Makes the bot, its membership and its token; returns the token's id and string. */
export function createProjectToken(
  st: S,
  project: ProjectRecord,
  t: NewProjectToken,
  now: string,
): { id: number; token: string } {
  const username = uniquify(
    (n) => `project_${project.id}_bot${n}`,
    (s) => usernameTaken(st, s),
  );
  const email = uniquify(
    (n) => `project${project.id}_bot${n}@example.com`,
    (s) => emailTaken(st, s),
  );
  const userId = createUser(st, { username, name: t.name, email, bot: true }, now);
  madd(st.resourceTokens.bots, String(project.id), userId);
  setMember(st, 'project', project.id, userId, ACCESS.MAINTAINER, now, t.expires_at);
  const token = botToken((st.seq.tokens ?? 0) + 1, now);
  const id = addToken(
    st,
    { user_id: userId, token, kind: 'personal', name: t.name, scopes: t.scopes, expires_at: t.expires_at },
    now,
  );
  return { id, token };
}

/** `RevokeService`: the token is revoked and its bot user deleted, with its membership and tokens. */
export function revokeProjectToken(st: S, projectId: number, token: TokenRecord): void {
  tget(st.tokens, token.id)!.revoked = true;
  mremove(st.resourceTokens.bots, String(projectId), token.user_id);
  deleteUser(st, planUserDeletion(st, token.user_id, false));
}

/** A deleted project's bots are forgotten with it (the users stay, as the platform's do). */
export function forgetProjectBots(st: S, projectId: number): void {
  for (const uid of projectBots(st, projectId)) mremove(st.resourceTokens.bots, String(projectId), uid);
}
