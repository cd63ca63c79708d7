/**
 * `POST /users/:id/approve` (GitLab 13.7, `Users::ApproveService`): an administrator lets in a sign-up
 * waiting in `blocked_pending_approval`.
 *
 * `POST /users/:id/ban` and `/unban` (GitLab 14.3, `Users::BanService` / `Users::UnbanService`): an
 * administrator moves an active user to `banned`, a state of the `blocked?` group (no sign-in, no token,
 * no git), and a banned one back to active. Banning hides the user's issues only behind the
 * `ban_user_feature_flag` flag, off by default in 14.3: not done here.
 */
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, notFound } from '../../core/errors.js';
import type { ApiRouter } from '../../core/router.js';
import type { UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { findUserById } from './route-helpers.js';
import { USER_BAN_SOURCE } from './versions.js';

/** User ids are numeric: anything else matches no route and reaches the catch-all. */
const USER_ID = { id: /^\d+$/ };

/**
 * `BannedUserBaseService#execute`: the state machine's event only leaves `from` (`ban`: active,
 * `unban`: banned); any other state is `state_error`, 403 "You cannot ban blocked users.", the
 * state's own name in it. Success answers `true`, 201 as every POST.
 */
function moderate(c: Ctx, action: 'ban' | 'unban', from: UserRecord['state'], to: UserRecord['state']) {
  const id = Number(c.req.param('id'));
  const user = findUserById(c, id);
  if (user.state !== from) throw forbidden(`You cannot ${action} ${user.state} users.`);
  const now = c.get('fx').clock.iso();
  write(c, (d) => {
    const u = tget(d.users, id)!;
    u.state = to;
    u.updated_at = now;
  });
  return c.json(true, 201);
}

/** The message `Users::ApproveService` gives for every state but `blocked_pending_approval`. */
const NOT_PENDING = 'The user you are trying to approve is not pending approval';

/**
 * The endpoint has no `authenticated_as_admin!`: it finds the user (`read_user`, 404 when there is none),
 * and the service refuses a caller without `approve_user` (403 with its own message, no "403 Forbidden"
 * prefix: `render_api_error!`). Any state but pending approval is a 409, active, blocked and
 * deactivated alike. The endpoint tests `result[:success]`, which the service's hash never has, so
 * success too goes out through `render_api_error!`: `{"message":"Success"}` with the service's 201.
 */
function approve(c: Ctx) {
  const id = Number(c.req.param('id'));
  const user = tget(state(c).users, id);
  if (!user) throw notFound('User', `no user ${id}`);
  if (!c.get('viewer').user?.admin) throw apiError(403, 'You are not allowed to approve a user');
  if (user.state !== 'blocked_pending_approval') throw apiError(409, NOT_PENDING);
  const now = c.get('fx').clock.iso();
  // `user.activate`: the state machine's `activate` leaves `blocked_pending_approval` for active.
  write(c, (d) => {
    const u = tget(d.users, id)!;
    u.state = 'active';
    u.updated_at = now;
  });
  return c.json({ message: 'Success' }, 201);
}

export function moderationRoutes(r: ApiRouter): void {
  r.post('/users/:id/approve', { requirements: USER_ID }, approve);

  const opts = {
    requirements: USER_ID,
    auth: 'admin' as const,
    since: '14.3' as const,
    source: USER_BAN_SOURCE,
  };
  r.post('/users/:id/ban', opts, (c) => moderate(c, 'ban', 'active', 'banned'));
  r.post('/users/:id/unban', opts, (c) => moderate(c, 'unban', 'banned', 'active'));
}
