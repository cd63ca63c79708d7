/**
 * Group clusters (`lib/api/group_clusters.rb`): group maintainers manage the group's clusters
 * (`Entities::ClusterGroup`); a namespace is only allowed on an unmanaged one; a management project may
 * be in a subgroup.
 */
import { describe, expect, it } from 'vitest';
import { apiPath, json, request } from '../helpers.js';
import { ACME, K8S, world, type World } from './world.js';

async function call(fx: World, method: string, path: string, token?: string, body?: unknown) {
  const res = await request(fx, method, apiPath(path), { token, body });
  return { status: res.status, headers: res.headers, body: await json(res) };
}

const CLUSTERS = `${ACME}/clusters`;

describe('group clusters API', () => {
  it('POST, GET, PUT, DELETE: Entities::ClusterGroup, lists as Entities::Cluster', async () => {
    const fx = world();
    const made = await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', {
      ...K8S,
      environment_scope: 'production',
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      cluster_type: 'group_type',
      environment_scope: 'production',
      group: { id: expect.any(Number), web_url: 'http://localhost/groups/acme', name: 'acme' },
    });
    expect(Object.keys(made.body).slice(-2)).toEqual(['management_project', 'group']);
    const list = await call(fx, 'GET', CLUSTERS, 'owner');
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).not.toHaveProperty('group');
    expect((await call(fx, 'GET', `${CLUSTERS}/${made.body.id}`, 'maint')).body).toEqual(made.body);
    const put = await call(fx, 'PUT', `${CLUSTERS}/${made.body.id}`, 'maint', { domain: 'apps.example.com' });
    expect(put.body).toMatchObject({ domain: 'apps.example.com', group: { name: 'acme' } });
    expect((await call(fx, 'DELETE', `${CLUSTERS}/${made.body.id}`, 'maint')).status).toBe(204);
    expect((await call(fx, 'GET', CLUSTERS, 'maint')).body).toEqual([]);
  });

  it('a namespace only on an unmanaged group cluster; a project cluster is not found through the group', async () => {
    const fx = world();
    const attrs = { ...K8S.platform_kubernetes_attributes, namespace: 'apps' };
    expect(
      await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', { ...K8S, platform_kubernetes_attributes: attrs }),
    ).toMatchObject({
      status: 400,
      body: { message: { 'platform_kubernetes.namespace': ['only allowed for project cluster'] } },
    });
    const ok = await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', {
      ...K8S,
      managed: false,
      platform_kubernetes_attributes: attrs,
    });
    expect(ok.status).toBe(201);
    expect(ok.body.platform_kubernetes.namespace).toBe('apps');
    const proj = await call(fx, 'POST', '/projects/acme%2Fapp/clusters/user', 'maint', K8S);
    expect((await call(fx, 'GET', `${CLUSTERS}/${proj.body.id}`, 'maint')).status).toBe(404);
    // The same scope on the group and on one of its projects: different owners.
    expect(proj.status).toBe(201);
  });

  it('management project: a project of a subgroup is in scope; one elsewhere is refused', async () => {
    const fx = world();
    const id = async (path: string) =>
      (await call(fx, 'GET', `/projects/${encodeURIComponent(path)}`, 'root')).body.id;
    const made = await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', {
      ...K8S,
      management_project_id: await id('acme/sub/tool'),
    });
    expect(made.status).toBe(201);
    expect(made.body.management_project.path_with_namespace).toBe('acme/sub/tool');
    expect(
      (
        await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', {
          ...K8S,
          management_project_id: await id('alice/own'),
        })
      ).status,
    ).toBe(400);
    // A second cluster with the management project's scope: the management project's clusters count too.
    const twice = await call(fx, 'POST', '/groups/acme%2Fsub/clusters/user', 'owner', {
      ...K8S,
      management_project_id: await id('acme/sub/tool'),
    });
    expect(twice).toMatchObject({
      status: 400,
      body: { message: { environment_scope: ['cannot add duplicated environment scope'] } },
    });
  });

  it('permissions: maintainers of the group (inherited in a subgroup), 404 for a hidden group', async () => {
    const fx = world();
    expect((await call(fx, 'GET', CLUSTERS)).status).toBe(401);
    for (const who of ['dev', 'rep', 'guest', 'outsider'])
      expect(await call(fx, 'GET', CLUSTERS, who)).toMatchObject({
        status: 403,
        body: { message: '403 Forbidden' },
      });
    expect((await call(fx, 'POST', `${CLUSTERS}/user`, 'dev', K8S)).status).toBe(403);
    expect((await call(fx, 'GET', '/groups/acme%2Fsub/clusters', 'maint')).status).toBe(200);
    expect(await call(fx, 'GET', '/groups/nope/clusters', 'maint')).toMatchObject({
      status: 404,
      body: { message: '404 Group Not Found' },
    });
    expect((await call(fx, 'GET', CLUSTERS, 'root')).status).toBe(200);
  });

  it('deleting the group takes its clusters', async () => {
    const fx = world();
    await call(fx, 'POST', '/groups/acme%2Fsub/clusters/user', 'owner', K8S);
    expect(fx.state.clusters.records.size).toBe(1);
    expect((await call(fx, 'DELETE', '/groups/acme%2Fsub', 'owner')).status).toBe(202);
    fx.clock.advance(60_000);
    await call(fx, 'GET', '/version', 'owner');
    expect(fx.state.clusters.records.size).toBe(0);
  });
});
