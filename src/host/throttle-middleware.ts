import { binding, isControlPath, type C } from './env.js';
import { throttlesOn } from './throttle.js';

/** The client's address as Rails' `request.ip` has it behind a local proxy: the first forwarded one. */
function clientIp(c: C): string {
  const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
  if (forwarded) return forwarded;
  const socket = (c.env as { incoming?: { socket?: { remoteAddress?: string } } }).incoming?.socket;
  return socket?.remoteAddress ?? '127.0.0.1';
}

/** Rack::Attack in front of the application (host/throttle.ts); the control plane is not the platform's. */
export async function throttleMiddleware(c: C, next: () => Promise<void>): Promise<Response | void> {
  const b = binding(c);
  // No throttle enabled (the default): nothing to count, so no address or credential is looked up.
  if (!throttlesOn(b.fx.store.state) || isControlPath(b, c.req.path)) return next();
  const refused = b.throttles.check(b.fx, c.req.raw, c.req.path, clientIp(c));
  if (refused) return refused;
  return next();
}
