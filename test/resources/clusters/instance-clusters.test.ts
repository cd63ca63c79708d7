/**
 * Instance clusters (`lib/api/admin/instance_clusters.rb`): admins only (`authenticated_as_admin!`
 * before anything); the update answers `Entities::ClusterProject`, as the platform's does.
 */
import { describe, expect, it } from 'vitest';
import { apiPath, json, request } from '../helpers.js';
import { K8S, world, type World } from './world.js';

async function call(fx: World, method: string, path: string, token?: string, body?: unknown) {
  const res = await request(fx, method, apiPath(path), { token, body });
  return { status: res.status, headers: res.headers, body: await json(res) };
}

const CLUSTERS = '/admin/clusters';

describe('instance clusters API', () => {
  it('POST /admin/clusters/add, GET, PUT, DELETE', async () => {
    const fx = world();
    const made = await call(fx, 'POST', `${CLUSTERS}/add`, 'root', K8S);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ cluster_type: 'instance_type', user: { username: 'root' } });
    expect(made.body).not.toHaveProperty('project');
    expect((await call(fx, 'GET', `${CLUSTERS}/${made.body.id}`, 'root')).body).toEqual(made.body);
    expect((await call(fx, 'GET', CLUSTERS, 'root')).body).toEqual([made.body]);
    const put = await call(fx, 'PUT', `${CLUSTERS}/${made.body.id}`, 'root', { name: 'everywhere' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'everywhere', project: null });
    expect((await call(fx, 'DELETE', `${CLUSTERS}/${made.body.id}`, 'root')).status).toBe(204);
    expect(await call(fx, 'GET', `${CLUSTERS}/${made.body.id}`, 'root')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
  });

  it('admins only, before the params are read; any project may be the management project', async () => {
    const fx = world();
    expect(await call(fx, 'GET', `${CLUSTERS}/abc`)).toMatchObject({ status: 401 });
    expect(await call(fx, 'GET', `${CLUSTERS}/abc`, 'owner')).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    });
    expect(await call(fx, 'POST', `${CLUSTERS}/add`, 'owner', {})).toMatchObject({ status: 403 });
    expect(await call(fx, 'GET', `${CLUSTERS}/abc`, 'root')).toMatchObject({
      status: 400,
      body: { error: 'cluster_id is invalid' },
    });
    const alice = (await call(fx, 'GET', '/projects/alice%2Fown', 'root')).body.id;
    const made = await call(fx, 'POST', `${CLUSTERS}/add`, 'root', { ...K8S, management_project_id: alice });
    expect(made.body.management_project.path_with_namespace).toBe('alice/own');
    const project = await call(fx, 'POST', '/projects/acme%2Fapp/clusters/user', 'root', K8S);
    expect((await call(fx, 'GET', `${CLUSTERS}/${project.body.id}`, 'root')).status).toBe(404);
  });
});
