import { faultResponse } from '../testing/faults.js';
import { binding, isControlPath, type C, type RequestEnv } from './env.js';

const hasCredential = (req: Request) =>
  req.headers.has('private-token') ||
  req.headers.has('authorization') ||
  req.headers.has('job-token') ||
  /[?&](private_token|access_token|job_token)=/.test(req.url);

/** Applies the instance's faults: latency first, then an answer in the route's place if one fired. */
export async function faultMiddleware(c: C, next: () => Promise<void>): Promise<Response | void> {
  const b = binding(c);
  if (b.faults.size === 0 || isControlPath(b, c.req.path)) return next();
  const plan = b.faults.plan(c.req.method, c.req.path);
  if (!plan) return next();
  (c.env as RequestEnv).probe.faults = plan.ids;
  if (plan.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, plan.delayMs));
  const f = plan.answer;
  if (!f) return next();
  if (f.drop) {
    (c.env as RequestEnv).probe.drop = true;
    return new Response(null, { status: 204 });
  }
  return faultResponse(f, {
    nowMs: b.fx.clock.ms(),
    authenticated: hasCredential(c.req.raw),
    head: c.req.method === 'HEAD',
  });
}
