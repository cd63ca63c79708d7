/** Vulnerability exports (EE `vulnerability_exports.rb`, ultimate): made in the background, read by their author. */
import { describe, expect, it } from 'vitest';
import { APP, call, json, world } from './world.js';

const KEYS = [
  'id',
  'created_at',
  'project_id',
  'group_id',
  'format',
  'status',
  'started_at',
  'finished_at',
  '_links',
];

describe('vulnerability exports', () => {
  it('a project export: 201 created, 202 with Poll-Interval while running, 200 finished, then the CSV', async () => {
    const fx = world();
    const res = await call(fx, 'POST', '/security/projects/acme%2Fapp/vulnerability_exports', 'dev');
    expect(res.status).toBe(201);
    const made = await json(res);
    expect(Object.keys(made)).toEqual(KEYS);
    expect(made).toEqual({
      id: 1,
      created_at: '2021-03-01T12:00:00.000Z',
      project_id: 1,
      group_id: null,
      format: 'csv',
      status: 'created',
      started_at: null,
      finished_at: null,
      _links: {
        self: 'http://localhost/api/v4/security/vulnerability_exports/1',
        download: 'http://localhost/api/v4/security/vulnerability_exports/1/download',
      },
    });
    const early = await call(fx, 'GET', '/security/vulnerability_exports/1/download', 'dev');
    expect(early.status).toBe(404);
    expect(await json(early)).toEqual({ message: '404 Vulnerability Export Not Found' });
    fx.clock.advance(1000);
    const running = await call(fx, 'GET', '/security/vulnerability_exports/1', 'dev');
    expect(running.status).toBe(202);
    expect(running.headers.get('poll-interval')).toBe('5000');
    expect(await json(running)).toMatchObject({ status: 'running', started_at: '2021-03-01T12:00:01.000Z' });
    fx.clock.advance(1000);
    const done = await call(fx, 'GET', '/security/vulnerability_exports/1', 'dev');
    expect(done.status).toBe(200);
    expect(await json(done)).toMatchObject({ status: 'finished', finished_at: '2021-03-01T12:00:02.000Z' });
    const csv = await call(fx, 'GET', '/security/vulnerability_exports/1/download', 'dev');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv');
    expect(csv.headers.get('content-disposition')).toContain('acme-app_vulnerabilities_2021-03-01T1200.csv');
    expect((await csv.text()).split('\n')).toEqual([
      'Group Name,Project Name,Scanner Type,Scanner Name,Status,Vulnerability,Details,Additional Info,Severity,CVE,CWE,Other Identifiers',
      'acme,app,sast,Brakeman,detected,Predictable pseudorandom number generator,Weak randomness,,medium,CVE-2021-1,CWE-330,',
      'acme,app,sast,sast,dismissed,SQL injection,,,critical,,,',
      'acme,app,dependency_scanning,dependency_scanning,confirmed,Old lodash,,,low,,,',
      '',
    ]);
  });

  it('a group export covers its projects; the instance export (an empty dashboard) any user may make', async () => {
    const fx = world();
    const g = await call(fx, 'POST', '/security/groups/acme/vulnerability_exports', 'dev');
    expect(g.status).toBe(201);
    expect(await json(g)).toMatchObject({ project_id: null, group_id: 7 });
    const i = await call(fx, 'POST', '/security/vulnerability_exports', 'outsider');
    expect(i.status).toBe(201);
    expect(await json(i)).toMatchObject({ project_id: null, group_id: null });
    fx.clock.advance(2000);
    const rows = (
      await (await call(fx, 'GET', '/security/vulnerability_exports/1/download', 'dev')).text()
    ).split('\n');
    expect(rows).toHaveLength(5);
    const none = await (
      await call(fx, 'GET', '/security/vulnerability_exports/2/download', 'outsider')
    ).text();
    expect(none.split('\n')).toHaveLength(2);
  });

  it('only the author reads an export (403 for others, the admin included); 404 unknown; 401 anonymous', async () => {
    const fx = world();
    await call(fx, 'POST', '/security/projects/acme%2Fapp/vulnerability_exports', 'dev');
    for (const who of ['maint', 'root', 'rep']) {
      const res = await call(fx, 'GET', '/security/vulnerability_exports/1', who);
      expect(res.status).toBe(403);
    }
    expect((await call(fx, 'GET', '/security/vulnerability_exports/9', 'dev')).status).toBe(404);
    expect((await call(fx, 'GET', '/security/vulnerability_exports/1')).status).toBe(401);
  });

  it('refusals write nothing: 403 below developer, 404 hidden project or group, 400 for another format', async () => {
    const fx = world();
    const before = fx.state;
    expect(
      (await call(fx, 'POST', '/security/projects/acme%2Fapp/vulnerability_exports', 'rep')).status,
    ).toBe(403);
    expect(
      (await call(fx, 'POST', '/security/projects/acme%2Fapp/vulnerability_exports', 'outsider')).status,
    ).toBe(404);
    expect((await call(fx, 'POST', '/security/groups/secret/vulnerability_exports', 'dev')).status).toBe(404);
    expect((await call(fx, 'POST', '/security/groups/acme/vulnerability_exports', 'rep')).status).toBe(403);
    const fmt = await call(fx, 'POST', '/security/vulnerability_exports', 'dev', {
      export_format: '__proto__',
    });
    expect(fmt.status).toBe(400);
    expect(await json(fmt)).toEqual({ error: 'export_format does not have a valid value' });
    expect((await call(fx, 'POST', '/security/vulnerability_exports')).status).toBe(401);
    expect(fx.state).toBe(before);
    expect(APP).toContain('acme');
  });
});
