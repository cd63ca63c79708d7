/**
 * The control plane under `/__fauxlab/`: off the API's namespace, for tests and people driving a running
 * mock. Its errors use the same shapes as the API's. One app serves every instance: each request brings
 * its instance in its env (see app.ts).
 */
import { Hono } from 'hono';
import type { Binding } from '../host/instance.js';
import { parseDuration } from '../core/clock.js';
import type { Env } from '../core/context.js';
import { apiError, notFound } from '../core/errors.js';
import { AREAS } from '../resources/index.js';
import { exportScenario } from '../scenario/export.js';
import { ScenarioError } from '../scenario/index.js';
import { dashboard } from './dashboard/index.js';
import { checkFault, FaultError, type FaultSpec } from '../testing/faults.js';
import type { JournalFilter } from '../testing/journal.js';
import { MAX_PATTERN_LENGTH } from '../testing/match.js';
import { jsonBody, jsonObject } from '../core/json-body.js';

/** `?method=GET&method=POST&path=...&status=4xx&since=...&limit=10` as a journal filter. */
function journalFilter(url: URL): JournalFilter {
  const q = url.searchParams;
  const filter: JournalFilter = {};
  const methods = q.getAll('method').flatMap((m) => m.split(','));
  if (methods.length) filter.method = methods;
  const path = q.get('path');
  if (path && path.length > MAX_PATTERN_LENGTH)
    throw apiError(400, `path: a pattern of at most ${MAX_PATTERN_LENGTH} characters`);
  if (path) filter.path = path;
  const status = q.getAll('status').flatMap((s) => s.split(','));
  if (status.length) {
    for (const s of status)
      if (!/^([1-5]\d\d|[1-5]xx)$/i.test(s))
        throw apiError(400, `status: ${s} is not a status or a class such as 4xx`);
    filter.status = status;
  }
  const since = q.get('since');
  if (since) {
    if (/^\d+$/.test(since)) filter.since = Number(since);
    else if (Number.isNaN(Date.parse(since))) throw apiError(400, 'since: give an entry id or an ISO time');
    else filter.since = since;
  }
  const limit = q.get('limit');
  if (limit !== null) {
    if (!/^\d+$/.test(limit)) throw apiError(400, 'limit: give a number');
    filter.limit = Number(limit);
  }
  return filter;
}

const SNAPSHOT_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

export function controlPlane(): Hono<Env> {
  const app = new Hono<Env>();
  const bound = (c: { env: unknown }) => (c.env as { fauxlab: Binding }).fauxlab;

  app.post('/reset', (c) => {
    const { instance } = bound(c);
    instance.reset();
    return c.json({ message: 'reset', now: instance.clock.iso() });
  });

  app.post('/scenario', async (c) => {
    const { instance } = bound(c);
    const body = await jsonObject(c.req.raw);
    // A path would be read on the server's disk, on behalf of whoever can reach the control plane.
    if (Object.hasOwn(body, 'extends'))
      throw apiError(400, { scenario: ['extends: not accepted over HTTP: send the whole scenario'] });
    try {
      instance.load(body);
    } catch (e) {
      if (e instanceof ScenarioError) throw apiError(400, { scenario: e.problems });
      throw e;
    }
    return c.json({ message: 'loaded', now: instance.clock.iso() }, 201);
  });

  app.get('/scenario', (c) => {
    const { instance } = bound(c);
    return c.json(exportScenario(instance.state, { now: instance.clock.iso() }));
  });

  app.get('/state', (c) => c.json(bound(c).instance.state));

  app.get('/clock', (c) => c.json({ now: bound(c).instance.clock.iso() }));

  app.post('/clock', async (c) => {
    const { instance } = bound(c);
    const body = await jsonObject(c.req.raw);
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

  app.get('/requests', (c) => {
    const { instance } = bound(c);
    const filter = journalFilter(new URL(c.req.url));
    const entries = instance.requests(filter);
    return c.json(entries, 200, { 'X-Total': String(entries.length) });
  });

  app.delete('/requests', (c) => {
    bound(c).instance.requests.clear();
    return c.body(null, 204);
  });

  app.get('/faults', (c) => c.json(bound(c).instance.faults.list()));

  app.post('/faults', async (c) => {
    const { instance } = bound(c);
    const body = await jsonBody(c.req.raw);
    const specs = (Array.isArray(body) ? body : [body]) as FaultSpec[];
    // All or nothing: every spec is checked before any is added.
    const problems = specs.flatMap((s, i) => {
      try {
        checkFault(s);
        return [];
      } catch (e) {
        if (!(e instanceof FaultError)) throw e;
        return e.problems.map((p) => (Array.isArray(body) ? `[${i}] ${p}` : p));
      }
    });
    if (problems.length) throw apiError(400, { fault: problems });
    const added = specs.map((s) => instance.faults.add(s));
    return c.json(Array.isArray(body) ? added : added[0], 201);
  });

  app.delete('/faults', (c) => {
    bound(c).instance.faults.clear();
    return c.body(null, 204);
  });

  app.delete('/faults/:id', (c) => {
    const id = Number(c.req.param('id'));
    if (!bound(c).instance.faults.remove(id)) throw notFound('Fault', `no fault ${c.req.param('id')}`);
    return c.body(null, 204);
  });

  for (const area of AREAS) area.control?.(app, (c) => bound(c).fx);

  app.get('/snapshots', (c) => c.json(bound(c).instance.snapshots()));

  app.post('/snapshots', async (c) => {
    const { instance } = bound(c);
    const body = await jsonObject(c.req.raw);
    if (typeof body.name !== 'string' || !SNAPSHOT_NAME.test(body.name))
      throw apiError(400, 'give "name": letters, digits, "_", "-" or "." (at most 100)');
    instance.snapshot(body.name);
    return c.json({ name: body.name, now: instance.clock.iso() }, 201);
  });

  app.post('/snapshots/:name/restore', (c) => {
    const { instance } = bound(c);
    const name = c.req.param('name');
    if (!instance.snapshots().includes(name)) throw notFound('Snapshot', `no snapshot named ${name}`);
    instance.restore(name);
    return c.json({ name, now: instance.clock.iso() });
  });

  dashboard(app, journalFilter);
  return app;
}
