import { tget } from './table.js';
import type { Fx } from './context.js';
import type { UserRecord } from './state.js';

/**
 * `Users::ActivityService`, run after every API endpoint that answered without an error (the `after`
 * block around the platform's API mounts): the effective user's `last_activity_on` becomes today. The
 * service writes only when the date differs, so this is one small write per user and day, never one per
 * request, and it does nothing for anonymous requests.
 */
export function recordActivity(fx: Fx, user: UserRecord | null | undefined): void {
  if (!user) return;
  const today = new Date(fx.clock.peekMs()).toISOString().slice(0, 10);
  if (user.last_activity_on === today) return;
  fx.store.write((d) => {
    const u = tget(d.users, user.id);
    if (u) u.last_activity_on = today;
  });
}
