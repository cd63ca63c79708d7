import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import { tvalues } from '../../../src/core/table.js';
import { APP, body, call, world } from '../ci/world.js';

const MIRRORS = `${APP}/remote_mirrors`;

describe('remote mirrors', () => {
  it('POST /projects/:id/remote_mirrors: 201 with the entity; credentials masked, the state none', async () => {
    const fx = world();
    const res = await call(fx, 'POST', MIRRORS, 'maint', {
      url: 'https://bot:s3cret@mirror.example.com/acme/app.git',
      enabled: true,
    });
    expect([res.status, await body(res)]).toEqual([
      201,
      {
        id: 1,
        enabled: true,
        url: 'https://*****:*****@mirror.example.com/acme/app.git',
        update_status: 'none',
        last_update_at: null,
        last_update_started_at: null,
        last_successful_update_at: null,
        last_error: null,
        only_protected_branches: false,
        keep_divergent_refs: null,
      },
    ]);
    const git = await body(
      await call(fx, 'POST', MIRRORS, 'maint', { url: 'ssh://git@mirror.example.com/a.git' }),
    );
    expect([git.url, git.enabled]).toEqual(['ssh://git@mirror.example.com/a.git', false]);
  });

  it('POST /projects/:id/remote_mirrors: the URL rules of the platform, nothing stored on a refusal', async () => {
    const fx = world();
    const cases: Array<[string, string]> = [
      ['', "can't be blank"],
      ['not a url', 'is blocked: URI is invalid'],
      ['ftp://mirror.example.com/a.git', 'is blocked: Only allowed schemes are ssh, git, http, https'],
      ['https://127.0.0.1/a.git', 'is blocked: Requests to localhost are not allowed'],
      ['https://10.1.2.3/a.git', 'is blocked: Requests to the local network are not allowed'],
      [
        'ssh://-oProxyCommand@mirror.example.com/a.git',
        'is blocked: Username needs to start with an alphanumeric character',
      ],
    ];
    for (const [url, message] of cases) {
      const res = await call(fx, 'POST', MIRRORS, 'maint', { url });
      expect([res.status, await body(res)]).toEqual([400, { message: { url: [message] } }]);
    }
    const missing = await call(fx, 'POST', MIRRORS, 'maint', {});
    expect([missing.status, await body(missing)]).toEqual([400, { error: 'url is missing' }]);
    expect(await body(await call(fx, 'GET', MIRRORS, 'maint'))).toEqual([]);
  });

  it('remote mirrors: 401 for a developer (before the params), 404 for a stranger, admins allowed', async () => {
    const fx = world();
    const dev = await call(fx, 'POST', MIRRORS, 'dev', {});
    expect([dev.status, await body(dev)]).toEqual([401, { message: '401 Unauthorized' }]);
    expect((await call(fx, 'GET', MIRRORS, 'dev')).status).toBe(401);
    expect((await call(fx, 'GET', MIRRORS, 'outsider')).status).toBe(404);
    expect((await call(fx, 'GET', MIRRORS, 'root')).status).toBe(200);
    await call(fx, 'PUT', '/application/settings', 'root', { mirror_available: false });
    expect((await call(fx, 'GET', MIRRORS, 'maint')).status).toBe(401);
  });

  it('PUT /projects/:id/remote_mirrors/:mirror_id: changes the flags; 404 Not found for another id', async () => {
    const fx = world();
    await call(fx, 'POST', MIRRORS, 'maint', { url: 'https://mirror.example.com/a.git' });
    const res = await call(fx, 'PUT', `${MIRRORS}/1`, 'maint', {
      enabled: true,
      only_protected_branches: true,
      keep_divergent_refs: false,
    });
    expect([res.status, await body(res)]).toMatchObject([
      200,
      { enabled: true, only_protected_branches: true, keep_divergent_refs: false },
    ]);
    for (const id of ['2', 'abc']) {
      const missing = await call(fx, 'PUT', `${MIRRORS}/${id}`, 'maint', { enabled: false });
      expect([missing.status, await body(missing)]).toEqual([404, { message: '404 Not found' }]);
    }
  });

  it('POST /projects/:id/remote_mirrors: a project in a fork network pushes to any public URL', async () => {
    // `import_url_inside_fork_network` (EE) binds a fork's pull mirror, not its push mirrors.
    const fx = world();
    const fork = await call(fx, 'POST', `${APP}/fork`, 'maint', {
      namespace_path: 'maint',
      path: 'app-fork',
    });
    expect(fork.status).toBe(201);
    const forkMirrors = `/api/v4/projects/${(await body(fork)).id}/remote_mirrors`;
    for (const path of [MIRRORS, forkMirrors]) {
      const outside = await call(fx, 'POST', path, 'maint', { url: 'https://mirror.example.com/a.git' });
      expect([outside.status, (await body(outside)).url]).toEqual([201, 'https://mirror.example.com/a.git']);
    }
    const local = await call(fx, 'POST', forkMirrors, 'maint', {
      url: 'http://localhost/maint/app-fork.git',
    });
    expect(await body(local)).toEqual({
      message: { url: ['is blocked: Requests to localhost are not allowed'] },
    });
  });

  it('GET /projects/:id/remote_mirrors: paginated in id order', async () => {
    const fx = world();
    for (const n of [1, 2, 3])
      await call(fx, 'POST', MIRRORS, 'maint', { url: `https://m${n}.example.com/a.git` });
    const res = await call(fx, 'GET', `${MIRRORS}?per_page=2&page=2`, 'maint');
    expect([res.headers.get('x-total'), (await body(res)).map((m: { id: number }) => m.id)]).toEqual([
      '3',
      [3],
    ]);
  });

  it('remote mirrors scenario: loaded, exported back with the URL as given, removed with the project', async () => {
    const fx = world();
    await call(fx, 'POST', MIRRORS, 'maint', {
      url: 'https://u:p@mirror.example.com/a.git',
      keep_divergent_refs: true,
    });
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    expect((out.projects as { remote_mirrors?: unknown }[])[0]!.remote_mirrors).toEqual([
      { url: 'https://u:p@mirror.example.com/a.git', keep_divergent_refs: true },
    ]);
    const again = createFauxlab({ scenario: out });
    expect((await body(await call(again, 'GET', MIRRORS, 'maint')))[0].url).toBe(
      'https://*****:*****@mirror.example.com/a.git',
    );
    expect(() =>
      createFauxlab({
        scenario: { ...out, projects: [{ path: 'x/y', remote_mirrors: [{ url: 'https://localhost/a' }] }] },
      }),
    ).toThrow(/projects\[0\]\.remote_mirrors\[0\]\.url: is blocked: Requests to localhost are not allowed/);
    await call(fx, 'DELETE', APP, 'owner');
    expect(tvalues(fx.state.remoteMirrors.records)).toEqual([]);
  });
});
