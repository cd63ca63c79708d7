import { describe, expect, it } from 'vitest';
import { findProject } from '../../src/core/access.js';
import { notFound } from '../../src/core/errors.js';
import type { ApiRouter } from '../../src/core/router.js';
import { createFauxlab, type FauxlabOptions } from '../../src/index.js';
import { json, smallWorld } from '../helpers.js';

/** Test doubles: a route that looks a project up as every project route does, and a premium-only route. */
const routes = (r: ApiRouter) => {
  r.get('/explain-test/projects/:id', (c) => c.json({ id: findProject(c, c.req.param('id')!).id }));
  r.get('/explain-test/epics', { tier: 'premium' }, (c) => c.json([]));
  r.get('/explain-test/unicode', () => {
    throw notFound('Thing', 'no thing named “zoë”');
  });
};

const make = (o: FauxlabOptions = {}) => createFauxlab({ scenario: smallWorld, routes, ...o });
const ALICE = { 'PRIVATE-TOKEN': 'alice-api' };

describe('why 404: the reason in the journal', () => {
  it('names each kind of 404: no route, wrong method, no object, hidden object, tier', async () => {
    const fx = make();
    const cases: [string, RequestInit, string][] = [
      ['/api/v4/nothing', {}, 'no such route'],
      [
        '/api/v4/users/1',
        { method: 'PATCH', headers: ALICE },
        'no route for PATCH on this path (it has GET, PUT, DELETE)',
      ],
      ['/api/v4/users/999', { headers: ALICE }, 'no user 999'],
      ['/api/v4/explain-test/projects/12345', { headers: ALICE }, 'no project with this id or path'],
      ['/api/v4/explain-test/projects/bob%2Fnotes', { headers: ALICE }, 'project hidden from this viewer'],
      ['/api/v4/explain-test/epics', { headers: ALICE }, 'no such route on the free tier (it needs premium)'],
      ['/api/v4/user', { headers: { 'PRIVATE-TOKEN': 'root-sudo', Sudo: 'nobody' } }, 'sudo: no user nobody'],
    ];
    for (const [path, init] of cases) expect((await fx.app.request(path, init)).status, path).toBe(404);
    expect(fx.requests().map((e) => e.explain)).toEqual(cases.map((c) => c[2]));
  });

  it('the bodies stay the platform bodies: hidden and missing answer alike', async () => {
    const fx = make();
    const hidden = await fx.app.request('/api/v4/explain-test/projects/bob%2Fnotes', { headers: ALICE });
    const missing = await fx.app.request('/api/v4/explain-test/projects/12345', { headers: ALICE });
    expect(await json(hidden)).toEqual({ message: '404 Project Not Found' });
    expect(await json(missing)).toEqual({ message: '404 Project Not Found' });
  });

  it('a premium route exists on premium: no 404', async () => {
    const fx = make({ tier: 'premium' });
    expect((await fx.app.request('/api/v4/explain-test/epics', { headers: ALICE })).status).toBe(200);
  });

  it('on free, OPTIONS does not offer a premium route', async () => {
    const fx = make();
    const res = await fx.app.request('/api/v4/explain-test/epics', { method: 'OPTIONS' });
    expect(res.status).toBe(404);
  });

  it('a 2xx carries no reason', async () => {
    const fx = make();
    await fx.app.request('/api/v4/users/1', { headers: ALICE });
    expect(fx.requests()[0]!.explain).toBeUndefined();
  });
});

describe('why 404: X-Fauxlab-Explain', () => {
  it('is never sent by default: the platform sends no such header', async () => {
    const fx = make();
    const res = await fx.app.request('/api/v4/users/999', { headers: ALICE });
    expect(res.headers.has('X-Fauxlab-Explain')).toBe(false);
  });

  it('carries the reason with explain on, for every kind of 404', async () => {
    const fx = make({ explain: true });
    let res = await fx.app.request('/api/v4/users/999', { headers: ALICE });
    expect(res.headers.get('X-Fauxlab-Explain')).toBe('no user 999');
    res = await fx.app.request('/api/v4/nothing');
    expect(res.headers.get('X-Fauxlab-Explain')).toBe('no such route');
    res = await fx.app.request('/api/v4/explain-test/projects/bob%2Fnotes', { headers: ALICE });
    expect(res.headers.get('X-Fauxlab-Explain')).toBe('project hidden from this viewer');
  });

  it('is not sent on other responses', async () => {
    const fx = make({ explain: true });
    const res = await fx.app.request('/api/v4/users/1', { headers: ALICE });
    expect(res.status).toBe(200);
    expect(res.headers.has('X-Fauxlab-Explain')).toBe(false);
  });

  it('non-ASCII in a reason is percent-encoded (header values are bytes)', async () => {
    const fx = make({ explain: true });
    const res = await fx.app.request('/api/v4/explain-test/unicode');
    expect(res.status).toBe(404);
    expect(res.headers.get('X-Fauxlab-Explain')).toBe('no thing named %E2%80%9Czo%C3%AB%E2%80%9D');
    expect(fx.requests()[0]!.explain).toBe('no thing named “zoë”');
  });
});
