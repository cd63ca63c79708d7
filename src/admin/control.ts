/**
 * The control plane under `/__fauxlab/`: off the API's namespace, for tests and people driving a running
 * mock. Its errors use the same shapes as the API's.
 */
import { Hono } from 'hono';
import type { Fauxlab } from '../app.js';
import { parseDuration } from '../core/clock.js';
import type { Env } from '../core/context.js';
import { apiError } from '../core/errors.js';
import { ScenarioError } from '../scenario/index.js';

async function jsonBody(req: Request): Promise<Record<string, unknown>> {
  const text = await req.text();
  if (text.trim() === '') return {};
  try {
    const body = JSON.parse(text) as unknown;
    if (typeof body === 'object' && body !== null && !Array.isArray(body))
      return body as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw apiError(400, 'body must be a JSON object');
}

export function controlPlane(instance: Fauxlab): Hono<Env> {
  const app = new Hono<Env>();

  app.post('/reset', (c) => {
    instance.reset();
    return c.json({ message: 'reset', now: instance.clock.iso() });
  });

  app.post('/scenario', async (c) => {
    const body = await jsonBody(c.req.raw);
    try {
      instance.load(body);
    } catch (e) {
      if (e instanceof ScenarioError) throw apiError(400, { scenario: e.problems });
      throw e;
    }
    return c.json({ message: 'loaded', now: instance.clock.iso() }, 201);
  });

  app.get('/state', (c) => c.json(instance.state));

  app.get('/clock', (c) => c.json({ now: instance.clock.iso() }));

  app.post('/clock', async (c) => {
    const body = await jsonBody(c.req.raw);
    try {
      if (typeof body.advance === 'string' || typeof body.advance === 'number')
        instance.clock.advance(parseDuration(body.advance));
      else if (typeof body.set === 'string') instance.clock.set(body.set);
      else throw new Error('give "advance" (e.g. "5m") or "set" (an ISO time)');
    } catch (e) {
      throw apiError(400, (e as Error).message);
    }
    return c.json({ now: instance.clock.iso() });
  });

  return app;
}
