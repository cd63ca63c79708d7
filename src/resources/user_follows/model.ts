/** The follow writes and reads, on the two indexes of store.ts. */
import type { Draft } from 'immer';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { madd, mget, mhas, mremove, tget } from '../../core/table.js';

type S = PlatformState | Draft<PlatformState>;

export const follows = (st: S, follower: number, followee: number): boolean =>
  mhas(st.follows.following, String(follower), followee);

/**
 * `User#follow`: false for oneself and for a user followed already (the unique index's
 * `RecordNotUnique`), else the row is made.
 */
export function follow(st: Draft<PlatformState>, follower: number, followee: number): boolean {
  if (follower === followee || follows(st, follower, followee)) return false;
  madd(st.follows.following, String(follower), followee);
  madd(st.follows.followers, String(followee), follower);
  return true;
}

/** `User#unfollow`: whether a row was deleted. */
export function unfollow(st: Draft<PlatformState>, follower: number, followee: number): boolean {
  if (!follows(st, follower, followee)) return false;
  mremove(st.follows.following, String(follower), followee);
  mremove(st.follows.followers, String(followee), follower);
  return true;
}

/**
 * The users a relation names, by id ascending (the API's `paginate` orders an unordered relation by
 * id). A user deleted since drops out, as the platform's foreign key deletes the row with the user.
 */
export function usersOf(st: PlatformState, ids: readonly number[]): UserRecord[] {
  const out: UserRecord[] = [];
  for (const id of ids) {
    const u = tget(st.users, id);
    if (u) out.push(u);
  }
  return out;
}

export const followeesOf = (st: PlatformState, id: number) =>
  usersOf(st, mget(st.follows.following, String(id)));
export const followersOf = (st: PlatformState, id: number) =>
  usersOf(st, mget(st.follows.followers, String(id)));
