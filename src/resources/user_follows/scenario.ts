/** Scenario files' `following`: the usernames a user follows. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut, ScenarioRefs } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { ientries, mget } from '../../core/table.js';
import { follow } from './model.js';

/** The most users one entry may follow: a bound on what a file can make (the platform set none in 13.12). */
const MAX_FOLLOWING = 1000;

export const followFields = {
  following: z
    .array(z.string().min(1).max(255))
    .max(MAX_FOLLOWING)
    .optional()
    .describe('usernames this user follows (not themselves)'),
};

export interface FollowEntry {
  username: string;
  following?: string[];
}

/** Unknown usernames, the user themselves, and a username listed twice, as `users[i].following[j]` lines. */
export function followProblems(users: readonly FollowEntry[], refs: ScenarioRefs): string[] {
  const problems: string[] = [];
  users.forEach((u, i) => {
    const seen = new Set<string>();
    (u.following ?? []).forEach((name, j) => {
      const k = name.toLowerCase();
      const at = `users[${i}].following[${j}]`;
      if (!refs.users.has(k)) problems.push(`${at}: no user "${name}" in the scenario`);
      else if (k === u.username.toLowerCase()) problems.push(`${at}: a user cannot follow themselves`);
      else if (seen.has(k)) problems.push(`${at}: "${name}" is listed twice`);
      seen.add(k);
    });
  });
  return problems;
}

/** After every user exists, so that an entry may follow a user listed after it. */
export function buildFollows(
  st: Draft<PlatformState>,
  users: readonly FollowEntry[],
  b: ScenarioBuild,
): void {
  for (const u of users) for (const name of u.following ?? []) follow(st, b.uid(u.username), b.uid(name));
}

/** Each follower's `following`, by the followees' ids (the order the lists answer in). */
export function exportFollows(st: PlatformState, out: ScenarioOut): void {
  for (const [key] of ientries(st.follows.following)) {
    const entry = out.user(Number(key));
    if (!entry) continue;
    const names = mget(st.follows.following, key)
      .map((id) => out.username(id))
      .filter((n): n is string => n !== undefined);
    if (names.length) entry.following = names;
  }
}
