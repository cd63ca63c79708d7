/**
 * Following users (`lib/api/users.rb`, GitLab 13.11): `POST /users/:id/follow` and `/unfollow`, and
 * the `followers` / `following` lists (`Entities::UserBasic`, paginated).
 */
import { state, write, type Ctx } from '../../core/context.js';
import { notFound, notModified } from '../../core/errors.js';
import { paginateJson, paginationParams } from '../../core/pagination.js';
import { jsonResponse } from '../../core/respond.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { userRenderer } from '../users/entities.js';
import { publicRestricted } from '../users/route-helpers.js';
import { follow, followeesOf, followersOf, unfollow } from './model.js';

/** User ids are numeric (the users resource's requirement): anything else is the catch-all 404. */
const USER_ID = { id: /^\d+$/ };

function target(c: Ctx): UserRecord {
  const id = Number(c.req.param('id'));
  const u = tget(state(c).users, id);
  if (!u) throw notFound('User', `no user ${id}`);
  return u;
}

/**
 * `current_user.follow(user)` / `unfollow(user)`: the user (`UserBasic`) when a row was made or
 * deleted, else `not_modified!` (304: oneself, followed already, not followed).
 */
function change(c: Ctx, how: typeof follow) {
  const user = target(c);
  const me = c.get('viewer').user!.id;
  let changed = false;
  write(c, (d) => {
    changed = how(d, me, user.id);
  });
  if (!changed) throw notModified();
  return jsonResponse(userRenderer(c).basicBody(user), 201);
}

/** `not_found!('User') unless user && can?(current_user, :read_user_profile, user)`. */
function list(c: Ctx, of: (st: PlatformState, id: number) => UserRecord[]) {
  const user = target(c);
  const st = state(c);
  const rr = userRenderer(c);
  if (!c.get('viewer').user && publicRestricted(st))
    throw notFound('User', 'public visibility is restricted: anonymous users see no one');
  if (!rr.canReadProfile(user)) throw notFound('User', 'the profile is private or the user blocked');
  return paginateJson(c, of(st, user.id), (u) => rr.basicBody(u));
}

export function followRoutes(r: ApiRouter): void {
  const read = { requirements: USER_ID, readScopes: ['read_user'], params: paginationParams };
  r.post('/users/:id/follow', { requirements: USER_ID }, (c) => change(c, follow));
  r.post('/users/:id/unfollow', { requirements: USER_ID }, (c) => change(c, unfollow));
  r.get('/users/:id/following', read, (c) => list(c, followeesOf));
  r.get('/users/:id/followers', read, (c) => list(c, followersOf));
}
