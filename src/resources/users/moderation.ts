/**
 * `POST /users/:id/ban` and `/unban` (GitLab 14.3, `Users::BanService` / `Users::UnbanService`): an
 * administrator moves an active user to `banned`, a state of the `blocked?` group (no sign-in, no token,
 * no git), and a banned one back to active. Banning hides the user's issues only behind the
 * `ban_user_feature_flag` flag, off by default in 14.3: not done here.
 */
import { write, type Ctx } from '../../core/context.js';
import { forbidden } from '../../core/errors.js';
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

export function moderationRoutes(r: ApiRouter): void {
  const opts = {
    requirements: USER_ID,
    auth: 'admin' as const,
    since: '14.3' as const,
    source: USER_BAN_SOURCE,
  };
  r.post('/users/:id/ban', opts, (c) => moderate(c, 'ban', 'active', 'banned'));
  r.post('/users/:id/unban', opts, (c) => moderate(c, 'unban', 'banned', 'active'));
}
