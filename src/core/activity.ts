import { tget } from './table.js';
import type { Fx } from './context.js';
import type { UserRecord } from './state.js';

const DAY_MS = 86_400_000;

/** Each instance's last date (UTC) and the span of instants it covers: formatting one costs more than the rest. */
const lastDays = new WeakMap<Fx, { from: number; day: string }>();

function dayOf(fx: Fx, ms: number): string {
  const last = lastDays.get(fx);
  if (last && ms >= last.from && ms < last.from + DAY_MS) return last.day;
  const from = Math.floor(ms / DAY_MS) * DAY_MS;
  const day = new Date(from).toISOString().slice(0, 10);
  lastDays.set(fx, { from, day });
  return day;
}

/**
 * `Users::ActivityService`, run after every API endpoint that answered without an error (the `after`
 * block around the platform's API mounts): the effective user's `last_activity_on` becomes today. The
 * service writes only when the date differs, so this is one small write per user and day, never one per
 * request, and it does nothing for anonymous requests.
 */
export function recordActivity(fx: Fx, user: UserRecord | null | undefined): void {
  if (!user) return;
  const today = dayOf(fx, fx.clock.peekMs());
  if (user.last_activity_on === today) return;
  fx.store.write((d) => {
    const u = tget(d.users, user.id);
    if (u) u.last_activity_on = today;
  });
}
