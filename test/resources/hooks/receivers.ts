/** Webhook receivers on 127.0.0.1 for the hook tests, closed after each test. */
import { afterEach } from 'vitest';
import { receiver } from '../settings/world.js';

/** Settings that let project and group hooks post to 127.0.0.1. */
export const LOCAL_OK = { settings: { allow_local_requests_from_web_hooks_and_services: true } };

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** A receiver that answers `status(n)` to its n-th request (200 by default). */
export async function listen(status?: (n: number) => number) {
  const r = await receiver(status);
  closers.push(r.close);
  return r;
}
