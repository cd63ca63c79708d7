/** The vulnerabilities API (EE `vulnerabilities.rb`, ultimate): lists, one by id, and the state actions. */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import { APP, call, json, vulnWorld, world } from './world.js';

const KEYS = [
  'id',
  'title',
  'description',
  'state',
  'severity',
  'confidence',
  'report_type',
  'project',
  'finding',
  'author_id',
  'updated_by_id',
  'last_edited_by_id',
  'resolved_by_id',
  'dismissed_by_id',
  'confirmed_by_id',
  'start_date',
  'due_date',
  'created_at',
  'updated_at',
  'last_edited_at',
  'resolved_at',
  'dismissed_at',
  'confirmed_at',
];

describe('GET /projects/:id/vulnerabilities', () => {
  it("lists a project's vulnerabilities by id to a developer, paginated, in the entity's field order", async () => {
    const fx = world();
    const res = await call(fx, 'GET', `${APP}/vulnerabilities?per_page=2`, 'dev');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('3');
    expect(res.headers.get('x-next-page')).toBe('2');
    const list = await json(res);
    expect(list.map((v: { id: number }) => v.id)).toEqual([1, 2]);
    expect(Object.keys(list[0])).toEqual(KEYS);
    expect(list[0]).toMatchObject({
      title: 'Predictable pseudorandom number generator',
      state: 'detected',
      severity: 'medium',
      confidence: 'medium',
      report_type: 'sast',
      author_id: 4,
      project: { id: 1, name: 'app', path_with_namespace: 'acme/app', name_with_namespace: 'acme / app' },
      created_at: '2021-02-01T10:00:00.000Z',
    });
    expect(list[0].finding).toMatchObject({ id: 1, vulnerability_id: 1, project_id: 1, cve: 'CVE-2021-1' });
    expect(list[1]).toMatchObject({
      state: 'dismissed',
      dismissed_by_id: 4,
      dismissed_at: '2021-02-10T10:00:00.000Z',
    });
  });

  it('401 anonymous, 404 for a project hidden from the caller, 403 below developer', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${APP}/vulnerabilities`)).status).toBe(401);
    const hidden = await call(fx, 'GET', `${APP}/vulnerabilities`, 'outsider');
    expect(hidden.status).toBe(404);
    expect(await json(hidden)).toEqual({ message: '404 Project Not Found' });
    const rep = await call(fx, 'GET', `${APP}/vulnerabilities`, 'rep');
    expect(rep.status).toBe(403);
    expect(await json(rep)).toEqual({ message: '403 Forbidden' });
    expect((await call(fx, 'GET', `${APP}/vulnerabilities`, 'root')).status).toBe(200);
  });

  it('is not a route below the ultimate tier', async () => {
    const fx = createFauxlab({ scenario: { ...vulnWorld, tier: 'premium' } });
    const res = await call(fx, 'GET', `${APP}/vulnerabilities`, 'dev');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: '404 Not Found' });
  });
});

describe('GET /vulnerabilities/:id', () => {
  it('one vulnerability; an unknown id (or one that is not a number) is the record 404', async () => {
    const fx = world();
    const res = await call(fx, 'GET', '/vulnerabilities/3', 'dev');
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: 3, state: 'confirmed', confirmed_by_id: 2 });
    for (const id of ['99', 'abc', '__proto__', 'constructor']) {
      const missing = await call(fx, 'GET', `/vulnerabilities/${id}`, 'dev');
      expect(missing.status).toBe(404);
      expect(await json(missing)).toEqual({ message: '404 Not found' });
    }
  });

  it("403 for a caller who may not read the project's vulnerabilities, even when the project is hidden", async () => {
    const fx = world();
    for (const who of ['rep', 'outsider']) {
      const res = await call(fx, 'GET', '/vulnerabilities/1', who);
      expect(res.status).toBe(403);
      expect(await json(res)).toEqual({ message: '403 Forbidden' });
    }
    expect((await call(fx, 'GET', '/vulnerabilities/1')).status).toBe(401);
  });
});

describe('POST /vulnerabilities/:id/resolve|dismiss|confirm|revert', () => {
  it('resolve sets the state with who and when (201), seen by the next GET; again is 304 with no body', async () => {
    const fx = world();
    fx.clock.set(Date.parse('2021-03-02T08:00:00Z'));
    const res = await call(fx, 'POST', '/vulnerabilities/1/resolve', 'dev');
    expect(res.status).toBe(201);
    const v = await json(res);
    expect(Object.keys(v)).toEqual(KEYS);
    expect(v).toMatchObject({
      state: 'resolved',
      resolved_by_id: 4,
      resolved_at: '2021-03-02T08:00:00.000Z',
      updated_at: '2021-03-02T08:00:00.000Z',
    });
    expect(await json(await call(fx, 'GET', '/vulnerabilities/1', 'dev'))).toEqual(v);
    const before = fx.state;
    const again = await call(fx, 'POST', '/vulnerabilities/1/resolve', 'dev');
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(fx.state).toBe(before);
  });

  it('dismiss, confirm, and revert to detected (which clears who resolved, dismissed or confirmed)', async () => {
    const fx = world();
    expect((await call(fx, 'POST', '/vulnerabilities/2/dismiss', 'dev')).status).toBe(304);
    const confirmed = await json(await call(fx, 'POST', '/vulnerabilities/1/confirm', 'maint'));
    expect(confirmed).toMatchObject({ state: 'confirmed', confirmed_by_id: 3 });
    const dismissed = await json(await call(fx, 'POST', '/vulnerabilities/1/dismiss', 'owner'));
    expect(dismissed).toMatchObject({ state: 'dismissed', dismissed_by_id: 2, confirmed_by_id: 3 });
    const reverted = await call(fx, 'POST', '/vulnerabilities/1/revert', 'dev');
    expect(reverted.status).toBe(201);
    expect(await json(reverted)).toMatchObject({
      state: 'detected',
      dismissed_by_id: null,
      dismissed_at: null,
      confirmed_by_id: null,
      confirmed_at: null,
      resolved_by_id: null,
    });
    expect((await call(fx, 'POST', '/vulnerabilities/1/revert', 'dev')).status).toBe(304);
  });

  it('403 for a reporter, 404 for an unknown id, 401 anonymous; nothing changes', async () => {
    const fx = world();
    const before = fx.state;
    const rep = await call(fx, 'POST', '/vulnerabilities/1/resolve', 'rep');
    expect(rep.status).toBe(403);
    expect((await call(fx, 'POST', '/vulnerabilities/42/dismiss', 'dev')).status).toBe(404);
    expect((await call(fx, 'POST', '/vulnerabilities/1/confirm')).status).toBe(401);
    expect(fx.state).toBe(before);
  });
});

describe('scenario: vulnerabilities', () => {
  it('export -> load gives the same records, state changes included', async () => {
    const fx = world();
    await call(fx, 'POST', '/vulnerabilities/1/resolve', 'dev');
    const again = createFauxlab({ scenario: exportScenario(fx.state, { now: fx.clock.iso() }) });
    expect(again.state.vulnerabilities.records).toEqual(fx.state.vulnerabilities.records);
    expect(again.state.vulnerabilities.findings).toEqual(fx.state.vulnerabilities.findings);
  });

  it('refuses unknown users and a state outside the platform enum', () => {
    const bad = (v: Record<string, unknown>) => () =>
      createFauxlab({
        scenario: {
          ...vulnWorld,
          projects: [
            { path: 'acme/x', vulnerabilities: [{ title: 't', severity: 'low', report_type: 'sast', ...v }] },
          ],
        },
      });
    expect(bad({ author: 'ghost' })).toThrow(/no user "ghost"/);
    expect(bad({ state: 'opened' })).toThrow();
    expect(bad({ severity: '__proto__' })).toThrow();
  });
});
