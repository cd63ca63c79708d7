/**
 * Project clusters (`lib/api/project_clusters.rb`): maintainers list, read, add, edit and delete a
 * project's certificate-based clusters; `Entities::ClusterProject` never shows the token.
 */
import { describe, expect, it } from 'vitest';
import { apiPath, json, request } from '../helpers.js';
import { ACME, APP, CERT, K8S, NOW, world, type World } from './world.js';

async function call(fx: World, method: string, path: string, token?: string, body?: unknown) {
  const res = await request(fx, method, apiPath(path), { token, body });
  return { status: res.status, headers: res.headers, body: await json(res) };
}

const CLUSTERS = `${APP}/clusters`;

describe('project clusters API', () => {
  it('POST /clusters/user: Entities::ClusterProject in the platform order, defaults, no token', async () => {
    const fx = world();
    const made = await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', {
      ...K8S,
      domain: 'example.com',
      platform_kubernetes_attributes: {
        ...K8S.platform_kubernetes_attributes,
        ca_cert: `\n${CERT}\n`,
        namespace: 'Prod-NS',
      },
    });
    expect(made.status).toBe(201);
    expect(Object.keys(made.body)).toEqual([
      'id',
      'name',
      'created_at',
      'domain',
      'enabled',
      'managed',
      'provider_type',
      'platform_type',
      'environment_scope',
      'cluster_type',
      'namespace_per_environment',
      'user',
      'platform_kubernetes',
      'provider_gcp',
      'management_project',
      'project',
    ]);
    expect(made.body).toMatchObject({
      name: 'production',
      created_at: NOW,
      domain: 'example.com',
      enabled: true,
      managed: true,
      provider_type: 'user',
      platform_type: 'kubernetes',
      environment_scope: '*',
      cluster_type: 'project_type',
      namespace_per_environment: true,
      user: { username: 'maint' },
      platform_kubernetes: {
        api_url: 'https://35.111.51.20',
        namespace: 'prod-ns',
        authorization_type: 'rbac',
        ca_cert: CERT.trim(),
      },
      provider_gcp: null,
      management_project: null,
      project: { path_with_namespace: 'acme/app' },
    });
    expect(Object.keys(made.body.platform_kubernetes)).toEqual([
      'api_url',
      'namespace',
      'authorization_type',
      'ca_cert',
    ]);
    expect(JSON.stringify(made.body)).not.toContain('s3cr3t');
    const list = await call(fx, 'GET', CLUSTERS, 'maint');
    expect(list.headers.get('x-total')).toBe('1');
    expect(list.body[0]).toEqual({ ...made.body, project: undefined, ...{} });
    expect(list.body[0]).not.toHaveProperty('project');
    expect((await call(fx, 'GET', `${CLUSTERS}/${made.body.id}`, 'owner')).body).toEqual(made.body);
  });

  it('PUT edits (the platform attributes through their hash; namespace_per_environment back to its default)', async () => {
    const fx = world();
    const made = await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', {
      ...K8S,
      namespace_per_environment: false,
    });
    expect(made.body.namespace_per_environment).toBe(false);
    fx.clock.advance(60_000);
    const put = await call(fx, 'PUT', `${CLUSTERS}/${made.body.id}`, 'maint', {
      name: 'renamed',
      enabled: false,
      managed: false,
      environment_scope: 'review/*',
      platform_kubernetes_attributes: { api_url: 'https://k8s.example.com:6443', namespace: 'apps' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      name: 'renamed',
      enabled: false,
      managed: false,
      environment_scope: 'review/*',
      namespace_per_environment: true,
      platform_kubernetes: { api_url: 'https://k8s.example.com:6443', namespace: 'apps' },
      project: { id: made.body.project.id },
    });
    expect((await call(fx, 'GET', `${CLUSTERS}/${made.body.id}`, 'maint')).body.name).toBe('renamed');
  });

  it('DELETE: 204, then 404 Not found; a cluster of another project is not found here', async () => {
    const fx = world();
    const made = await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', K8S);
    const other = await call(fx, 'POST', '/projects/acme%2Fsub%2Ftool/clusters/user', 'owner', K8S);
    expect(other.status).toBe(201);
    expect(await call(fx, 'GET', `${CLUSTERS}/${other.body.id}`, 'maint')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect((await call(fx, 'DELETE', `${CLUSTERS}/${made.body.id}`, 'maint')).status).toBe(204);
    expect((await call(fx, 'GET', `${CLUSTERS}/${made.body.id}`, 'maint')).status).toBe(404);
    expect((await call(fx, 'GET', CLUSTERS, 'maint')).body).toEqual([]);
  });

  it("the model's errors: URL, PEM certificate, namespace, name, duplicated scope; Grape's first", async () => {
    const fx = world();
    expect(await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', {})).toMatchObject({
      status: 400,
      body: {
        error:
          'name is missing, platform_kubernetes_attributes is missing, platform_kubernetes_attributes[api_url] is missing, platform_kubernetes_attributes[token] is missing',
      },
    });
    expect(
      await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', {
        name: 'x',
        platform_kubernetes_attributes: { api_url: '', token: 't', authorization_type: 'nope' },
      }),
    ).toMatchObject({
      status: 400,
      body: {
        error:
          'platform_kubernetes_attributes[api_url] is empty, platform_kubernetes_attributes[authorization_type] does not have a valid value',
      },
    });
    const bad = await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', {
      name: ' ',
      environment_scope: 'a!',
      domain: '-bad-',
      platform_kubernetes_attributes: {
        api_url: 'http://127.0.0.1:6443',
        token: '  ',
        ca_cert: 'not a certificate',
        namespace: 'Bad_NS',
      },
    });
    expect(bad).toMatchObject({
      status: 400,
      body: {
        message: {
          environment_scope: [
            "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces",
          ],
          'platform_kubernetes.namespace': [
            "can contain only lowercase letters, digits, and '-'. Must start with a letter, and cannot end with '-'",
          ],
          'platform_kubernetes.api_url': ['is blocked: Requests to localhost are not allowed'],
          'platform_kubernetes.token': ["can't be blank"],
          'platform_kubernetes.ca_cert': ['must be a valid PEM certificate'],
          name: [' has to be present'],
          domain: ['begins or ends with hyphen'],
        },
      },
    });
    expect(Object.keys(bad.body.message)).toEqual([
      'environment_scope',
      'platform_kubernetes.namespace',
      'platform_kubernetes.api_url',
      'platform_kubernetes.token',
      'platform_kubernetes.ca_cert',
      'name',
      'domain',
    ]);
    expect(
      (
        await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', {
          ...K8S,
          platform_kubernetes_attributes: { api_url: 'k8s.local', token: 't' },
        })
      ).body,
    ).toEqual({
      message: { 'platform_kubernetes.api_url': ['is blocked: Only allowed schemes are http, https'] },
    });
    expect((await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', K8S)).status).toBe(201);
    expect(await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', K8S)).toMatchObject({
      status: 400,
      body: { message: { environment_scope: ['cannot add duplicated environment scope'] } },
    });
    expect((await call(fx, 'GET', CLUSTERS, 'maint')).body).toHaveLength(1);
  });

  it('management_project_id: a maintained project of the same namespace, else the one message', async () => {
    const fx = world();
    const id = async (path: string) =>
      (await call(fx, 'GET', `/projects/${encodeURIComponent(path)}`, 'root')).body.id;
    const refused = {
      status: 400,
      body: {
        message: {
          management_project_id: [
            "Project does not exist or you don't have permission to perform this action",
          ],
        },
      },
    };
    // A subgroup's project is outside a project cluster's scope; another namespace's too; a missing id.
    for (const mid of [await id('acme/sub/tool'), await id('alice/own'), 99999])
      expect(
        await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', { ...K8S, management_project_id: mid }),
      ).toMatchObject(refused);
    const ops = await id('acme/ops');
    const made = await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', { ...K8S, management_project_id: ops });
    expect(made.status).toBe(201);
    expect(made.body.management_project).toEqual({
      id: ops,
      description: '',
      name: 'ops',
      name_with_namespace: 'acme / ops',
      path: 'ops',
      path_with_namespace: 'acme/ops',
      created_at: NOW,
    });
    expect(
      (await call(fx, 'PUT', `${CLUSTERS}/${made.body.id}`, 'maint', { management_project_id: 99999 })).body,
    ).toEqual(refused.body);
  });

  it('permissions: 401 first, maintainers only, features and archiving as ProjectPolicy has them', async () => {
    const fx = world();
    expect(await call(fx, 'GET', CLUSTERS)).toMatchObject({ status: 401 });
    expect(await call(fx, 'GET', `${CLUSTERS}/abc`)).toMatchObject({ status: 401 });
    expect(await call(fx, 'GET', CLUSTERS, 'outsider')).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    for (const who of ['dev', 'rep', 'guest']) {
      expect(await call(fx, 'GET', CLUSTERS, who)).toMatchObject({
        status: 403,
        body: { message: '403 Forbidden' },
      });
      expect((await call(fx, 'POST', `${CLUSTERS}/user`, who, K8S)).status).toBe(403);
    }
    const made = await call(fx, 'POST', `${CLUSTERS}/user`, 'root', K8S);
    expect(made.status).toBe(201);
    expect((await call(fx, 'GET', `${CLUSTERS}/${made.body.id}`, 'dev')).status).toBe(403);
    expect((await call(fx, 'PUT', `${CLUSTERS}/${made.body.id}`, 'dev', { name: 'x' })).status).toBe(403);
    expect((await call(fx, 'DELETE', `${CLUSTERS}/${made.body.id}`, 'rep')).status).toBe(403);
    // A bad param is Grape's 400 before the project is looked up.
    expect(await call(fx, 'GET', '/projects/acme%2Fnope/clusters/abc', 'maint')).toMatchObject({
      status: 400,
      body: { error: 'cluster_id is invalid' },
    });
    // Operations disabled: add_cluster stays, read_cluster goes.
    const OPS = '/projects/acme%2Fops/clusters';
    const k = await call(fx, 'POST', `${OPS}/user`, 'maint', K8S);
    expect(k.status).toBe(201);
    expect((await call(fx, 'GET', OPS, 'maint')).status).toBe(403);
    expect((await call(fx, 'GET', `${OPS}/${k.body.id}`, 'maint')).status).toBe(403);
    // Archived: reads and add_cluster stay, edits and deletes go.
    const OLD = '/projects/acme%2Fold/clusters';
    const o = await call(fx, 'POST', `${OLD}/user`, 'maint', K8S);
    expect(o.status).toBe(201);
    expect((await call(fx, 'GET', OLD, 'maint')).status).toBe(200);
    expect((await call(fx, 'PUT', `${OLD}/${o.body.id}`, 'maint', { name: 'x' })).status).toBe(403);
    expect((await call(fx, 'DELETE', `${OLD}/${o.body.id}`, 'maint')).status).toBe(403);
  });

  it('attacks: prototype keys as names, a long name is the column’s 500, no outbound request to the api_url', async () => {
    const fx = world();
    const fetched: string[] = [];
    const real = globalThis.fetch;
    globalThis.fetch = ((u: unknown) => {
      fetched.push(String(u));
      return Promise.reject(new Error('no outbound request expected'));
    }) as typeof fetch;
    try {
      const made = await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', {
        name: '__proto__',
        environment_scope: 'constructor',
        platform_kubernetes_attributes: {
          api_url: 'https://kubernetes.invalid',
          token: 'constructor',
          __proto__: 'x',
        },
      });
      expect(made.status).toBe(201);
      expect(made.body.name).toBe('__proto__');
      expect(({} as Record<string, unknown>).x).toBeUndefined();
      expect(
        (await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', { ...K8S, name: 'n'.repeat(256) })).status,
      ).toBe(500);
      expect(
        await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', {
          ...K8S,
          platform_kubernetes_attributes: 'str',
        }),
      ).toMatchObject({
        status: 400,
        body: { error: 'platform_kubernetes_attributes is invalid' },
      });
    } finally {
      globalThis.fetch = real;
    }
    expect(fetched).toEqual([]);
  });

  it('the journal filters the token of a cluster request, as JSON and as a form', async () => {
    const fx = world();
    await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', K8S);
    await fx.app.request(apiPath(`${CLUSTERS}/user`), {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'maint', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'name=f&environment_scope=f&platform_kubernetes_attributes[api_url]=https://k.example.com&platform_kubernetes_attributes[token]=s3cr3t-k8s-token',
    });
    const text = JSON.stringify(fx.requests());
    expect(fx.requests().map((r) => r.status)).toEqual([201, 201]);
    expect(text).not.toContain('s3cr3t-k8s-token');
    expect(text).toContain('[FILTERED]');
  });

  it('deleting a management project leaves the clusters it managed without one', async () => {
    const fx = world();
    const ops = (await call(fx, 'GET', '/projects/acme%2Fops', 'root')).body.id;
    const made = await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', { ...K8S, management_project_id: ops });
    expect(made.body.management_project.id).toBe(ops);
    expect((await call(fx, 'DELETE', '/projects/acme%2Fops', 'owner')).status).toBe(202);
    expect(
      (await call(fx, 'GET', `${CLUSTERS}/${made.body.id}`, 'maint')).body.management_project,
    ).toBeNull();
  });

  it('deleting the project takes its clusters; a group of it is unaffected', async () => {
    const fx = world();
    const made = await call(fx, 'POST', `${CLUSTERS}/user`, 'maint', K8S);
    await call(fx, 'POST', `${ACME}/clusters/user`, 'owner', K8S);
    expect((await call(fx, 'DELETE', APP, 'owner')).status).toBe(202);
    expect(fx.state.clusters.records.size).toBe(1);
    expect(made.body.id).toBe(1);
  });
});
