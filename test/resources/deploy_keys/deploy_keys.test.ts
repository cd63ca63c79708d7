import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, loadScenario, ScenarioError } from '../../../src/index.js';
import { sshKey } from '../../reliability/matrix.js';
import { APP, body, call, ciWorld, world } from '../ci/world.js';

const K = `${APP}/deploy_keys`;
/** A second project the maintainer keeps too. */
const twoProjects = () =>
  createFauxlab({
    scenario: {
      ...ciWorld,
      projects: [...ciWorld.projects!, { path: 'acme/lib', visibility: 'private', creator: 'owner' }],
    },
  });
const LIB = '/api/v4/projects/acme%2Flib/deploy_keys';

describe('deploy keys', () => {
  it('POST /projects/:id/deploy_keys: 201 with the key and can_push; the key sanitised', async () => {
    const fx = world();
    const res = await call(fx, 'POST', K, 'maint', {
      title: 'ci',
      key: `  ${sshKey(1)} extra words `,
      can_push: true,
    });
    expect(res.status).toBe(201);
    const k = await body(res);
    expect(Object.keys(k)).toEqual(['id', 'title', 'key', 'created_at', 'expires_at', 'can_push']);
    expect(k).toMatchObject({ title: 'ci', key: sshKey(1), expires_at: null, can_push: true });
    const list = await body(await call(fx, 'GET', K, 'maint'));
    expect(list).toEqual([k]);
    expect(await body(await call(fx, 'GET', `${K}/${k.id}`, 'maint'))).toEqual(k);
  });

  it('POST /projects/:id/deploy_keys: the key model’s errors under deploy_key; a user’s key is taken', async () => {
    const fx = world();
    const bad = await call(fx, 'POST', K, 'maint', { title: '', key: 'ssh-rsa nope' });
    expect([bad.status, await body(bad)]).toEqual([
      400,
      {
        message: {
          'deploy_key.title': ["can't be blank"],
          'deploy_key.fingerprint': ['cannot be generated'],
        },
      },
    ]);
    await call(fx, 'POST', '/api/v4/user/keys', 'dev', { title: 'mine', key: sshKey(2) });
    const taken = await call(fx, 'POST', K, 'maint', { title: 'ci', key: sshKey(2) });
    expect(await body(taken)).toEqual({ message: { 'deploy_key.fingerprint': ['has already been taken'] } });
    const missing = await call(fx, 'POST', K, 'maint', { key: sshKey(3) });
    expect(await body(missing)).toEqual({ error: 'title is missing' });
    expect((await call(fx, 'POST', K, 'dev', { title: 'x', key: sshKey(3) })).status).toBe(403);
    expect((await call(fx, 'GET', K)).status).toBe(401);
  });

  it('the same key in two projects is one key, enabled twice; the key goes with its last project', async () => {
    const fx = twoProjects();
    const first = await body(await call(fx, 'POST', K, 'maint', { title: 'shared', key: sshKey(4) }));
    const again = await call(fx, 'POST', LIB, 'maint', {
      title: 'other title',
      key: sshKey(4),
      can_push: true,
    });
    expect(again.status).toBe(201);
    expect(await body(again)).toMatchObject({ id: first.id, title: 'shared', can_push: true });
    // Already enabled here: the link as it is.
    const same = await body(
      await call(fx, 'POST', K, 'maint', { title: 'x', key: sshKey(4), can_push: true }),
    );
    expect([same.id, same.can_push]).toEqual([first.id, false]);
    expect(((await body(await call(fx, 'GET', '/api/v4/deploy_keys', 'root'))) as unknown[]).length).toBe(1);
    expect((await call(fx, 'DELETE', `${K}/${first.id}`, 'maint')).status).toBe(204);
    expect(((await body(await call(fx, 'GET', '/api/v4/deploy_keys', 'root'))) as unknown[]).length).toBe(1);
    expect((await call(fx, 'DELETE', `${LIB}/${first.id}`, 'maint')).status).toBe(204);
    expect(await body(await call(fx, 'GET', '/api/v4/deploy_keys', 'root'))).toEqual([]);
    const gone = await call(fx, 'DELETE', `${LIB}/${first.id}`, 'maint');
    expect([gone.status, await body(gone)]).toEqual([404, { message: '404 Deploy Key Not Found' }]);
  });

  it('POST /projects/:id/deploy_keys/:key_id/enable: a key of a project the caller maintains; others are not found', async () => {
    const fx = twoProjects();
    const k = await body(await call(fx, 'POST', K, 'maint', { title: 'shared', key: sshKey(5) }));
    const enabled = await call(fx, 'POST', `${LIB}/${k.id}/enable`, 'maint');
    expect(enabled.status).toBe(201);
    expect(Object.keys(await body(enabled))).toEqual(['id', 'title', 'key', 'created_at', 'expires_at']);
    expect(await body(await call(fx, 'GET', `${LIB}/${k.id}`, 'maint'))).toMatchObject({ can_push: false });
    const none = await call(fx, 'POST', `${LIB}/999/enable`, 'maint');
    expect([none.status, await body(none)]).toEqual([404, { message: '404 Deploy Key Not Found' }]);
  });

  it('PUT /projects/:id/deploy_keys/:key_id: title and can_push; at least one of them', async () => {
    const fx = world();
    const k = await body(await call(fx, 'POST', K, 'maint', { title: 'ci', key: sshKey(6) }));
    const put = await call(fx, 'PUT', `${K}/${k.id}`, 'maint', { title: 'deployer', can_push: true });
    expect(await body(put)).toMatchObject({ id: k.id, title: 'deployer', can_push: true });
    const empty = await call(fx, 'PUT', `${K}/${k.id}`, 'maint', {});
    expect([empty.status, await body(empty)]).toEqual([
      400,
      { error: 'title, can_push are missing, at least one parameter must be provided' },
    ]);
    const blank = await call(fx, 'PUT', `${K}/${k.id}`, 'maint', { title: '' });
    expect(await body(blank)).toEqual({ message: { 'deploy_key.title': ["can't be blank"] } });
    const missing = await call(fx, 'GET', `${K}/999`, 'maint');
    expect([missing.status, await body(missing)]).toEqual([404, { message: '404 Not found' }]);
  });

  it('GET /deploy_keys: admins only', async () => {
    const fx = world();
    expect((await call(fx, 'GET', '/api/v4/deploy_keys', 'maint')).status).toBe(403);
    expect((await call(fx, 'GET', '/api/v4/deploy_keys')).status).toBe(401);
    expect(await body(await call(fx, 'GET', '/api/v4/deploy_keys', 'root'))).toEqual([]);
  });

  it('projects[].deploy_keys: one key for the same text in two projects; exported and checked', () => {
    const fx = createFauxlab({
      scenario: {
        ...ciWorld,
        projects: [
          ...ciWorld.projects!.map((p) =>
            p.path === 'acme/app'
              ? { ...p, deploy_keys: [{ title: 'shared', key: sshKey(7), can_push: true }] }
              : p,
          ),
          { path: 'acme/lib', creator: 'owner', deploy_keys: [{ title: 'ignored', key: sshKey(7) }] },
        ],
      },
    });
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    const entries = out.projects!.flatMap(
      (p) => ((p as Record<string, unknown>).deploy_keys as unknown[]) ?? [],
    );
    expect(entries).toEqual([
      { title: 'shared', key: sshKey(7), can_push: true, created_at: '2021-03-01T12:00:00.000Z' },
      { title: 'shared', key: sshKey(7), created_at: '2021-03-01T12:00:00.000Z' },
    ]);
    let problems: string[] = [];
    try {
      loadScenario({
        users: [{ username: 'a' }],
        projects: [{ path: 'a/p', deploy_keys: [{ title: ' ', key: 'x' }] }],
      });
    } catch (e) {
      problems = e instanceof ScenarioError ? e.problems : [];
    }
    expect(problems).toEqual(
      expect.arrayContaining([
        "projects[0].deploy_keys[0].title: can't be blank",
        'projects[0].deploy_keys[0].fingerprint: cannot be generated',
      ]),
    );
  });
});
