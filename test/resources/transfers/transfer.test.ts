/**
 * Project transfers: `PUT /projects/:id/transfer` and the admins' `POST /groups/:id/projects/:project_id`.
 * The project keeps its id and moves its path; group labels and milestones it used follow as project
 * records; the old path answers 404; refusals are the service's 400s and change nothing.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, request, tok } from '../helpers.js';

const world: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', admin: true, tokens: tok('root-api') },
    { username: 'alice', tokens: tok('alice-api') },
    { username: 'bob', tokens: tok('bob-api') },
    { username: 'carol', tokens: tok('carol-api') },
  ],
  groups: [
    {
      path: 'acme',
      visibility: 'public',
      members: [
        { username: 'alice', access_level: 'owner' },
        { username: 'carol', access_level: 'maintainer' },
      ],
      labels: [{ name: 'bug', color: '#FF0000', description: 'Broken' }],
    },
    { path: 'lab', visibility: 'private', members: [{ username: 'alice', access_level: 'maintainer' }] },
    { path: 'dev', visibility: 'public', members: [{ username: 'alice', access_level: 'developer' }] },
    { path: 'taken', visibility: 'public', members: [{ username: 'alice', access_level: 'owner' }] },
  ],
  projects: [
    {
      path: 'acme/website',
      name: 'website',
      visibility: 'public',
      creator: 'alice',
      issues: [{ title: 'Broken', author: 'alice', labels: ['bug'] }],
    },
    { path: 'taken/website', visibility: 'public', creator: 'alice' },
    { path: 'alice/own', visibility: 'public', creator: 'alice' },
  ],
};

const fx0 = () => createFauxlab({ scenario: world });
type Fx = ReturnType<typeof fx0>;

async function send(fx: Fx, method: string, path: string, token?: string, body?: unknown) {
  const res = await request(fx, method, `/api/v4${path}`, { token, body });
  return { status: res.status, body: await json(res) };
}

async function refused(
  fx: Fx,
  path: string,
  token: string | undefined,
  body: unknown,
  status: number,
  expected: unknown,
) {
  const before = fx.state;
  const r = await send(fx, 'PUT', path, token, body);
  expect(r.status).toBe(status);
  expect(r.body).toEqual(expected);
  expect(fx.state).toBe(before);
}

const failed = (m: string) => ({ message: `Failed to transfer project {:new_namespace=>["${m}"]}` });

describe('PUT /projects/:id/transfer', () => {
  it('PUT /projects/:id/transfer: the project keeps its id and takes the new path, the old path is gone', async () => {
    const fx = fx0();
    const before = await send(fx, 'GET', '/projects/acme%2Fwebsite', 'alice-api');
    const r = await send(fx, 'PUT', '/projects/acme%2Fwebsite/transfer', 'alice-api', { namespace: 'lab' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: before.body.id,
      path: 'website',
      path_with_namespace: 'lab/website',
      name_with_namespace: 'lab / website',
      web_url: 'http://localhost/lab/website',
      http_url_to_repo: 'http://localhost/lab/website.git',
      visibility: 'private',
      namespace: { kind: 'group', full_path: 'lab' },
    });
    expect(r.body.runners_token).toBeUndefined();
    expect(before.body.runners_token).toEqual(expect.any(String));
    expect((await send(fx, 'GET', '/projects/lab%2Fwebsite', 'alice-api')).body.id).toBe(before.body.id);
    expect(await send(fx, 'GET', '/projects/acme%2Fwebsite', 'alice-api')).toEqual({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    const issue = await send(fx, 'GET', '/projects/lab%2Fwebsite/issues/1', 'alice-api');
    expect(issue.body.web_url).toBe('http://localhost/lab/website/-/issues/1');
  });

  it('PUT /projects/:id/transfer: group labels and milestones in use become project ones of the same title', async () => {
    const fx = fx0();
    const m = await send(fx, 'POST', '/groups/acme/milestones', 'alice-api', {
      title: 'v1',
      due_date: '2021-04-01',
    });
    await send(fx, 'PUT', '/projects/acme%2Fwebsite/issues/1', 'alice-api', { milestone_id: m.body.id });
    const r = await send(fx, 'PUT', '/projects/acme%2Fwebsite/transfer', 'alice-api', { namespace: 'lab' });
    expect(r.status).toBe(200);
    const list = await send(
      fx,
      'GET',
      '/projects/lab%2Fwebsite/issues?with_labels_details=true',
      'alice-api',
    );
    const issue = { body: list.body[0] };
    expect(issue.body.labels).toMatchObject([{ name: 'bug', color: '#FF0000', description: 'Broken' }]);
    expect(issue.body.milestone).toMatchObject({
      title: 'v1',
      due_date: '2021-04-01',
      project_id: r.body.id,
    });
    expect(issue.body.milestone.id).not.toBe(m.body.id);
    const labels = await send(fx, 'GET', '/projects/lab%2Fwebsite/labels', 'alice-api');
    expect(
      labels.body.map((l: { name: string; is_project_label: boolean }) => [l.name, l.is_project_label]),
    ).toEqual([['bug', true]]);
  });

  it("PUT /projects/:id/transfer: by namespace id, into the owner's personal namespace", async () => {
    const fx = fx0();
    const ns = await send(fx, 'GET', '/namespaces/alice', 'alice-api');
    const r = await send(fx, 'PUT', '/projects/acme%2Fwebsite/transfer', 'alice-api', {
      namespace: String(ns.body.id),
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      path_with_namespace: 'alice/website',
      namespace: { kind: 'user', path: 'alice' },
    });
  });

  it('PUT /projects/:id/transfer: 400 when the namespace has a project of the same path or name', async () => {
    const fx = fx0();
    await refused(
      fx,
      '/projects/acme%2Fwebsite/transfer',
      'alice-api',
      { namespace: 'taken' },
      400,
      failed('Project with same name or path in target namespace already exists'),
    );
  });

  it('PUT /projects/:id/transfer: 400 into its own namespace or one the caller cannot create projects in', async () => {
    const fx = fx0();
    await refused(
      fx,
      '/projects/acme%2Fwebsite/transfer',
      'alice-api',
      { namespace: 'acme' },
      400,
      failed('Transfer failed, please contact an admin.'),
    );
    await refused(
      fx,
      '/projects/acme%2Fwebsite/transfer',
      'alice-api',
      { namespace: 'dev' },
      400,
      failed('Transfer failed, please contact an admin.'),
    );
  });

  it('PUT /projects/:id/transfer: 403 for a maintainer, 404 for a namespace the caller cannot see', async () => {
    const fx = fx0();
    await refused(fx, '/projects/acme%2Fwebsite/transfer', 'carol-api', { namespace: 'lab' }, 403, {
      message: '403 Forbidden',
    });
    await refused(fx, '/projects/alice%2Fown/transfer', 'alice-api', { namespace: 'nowhere' }, 404, {
      message: '404 Namespace Not Found',
    });
    await refused(fx, '/projects/acme%2Fwebsite/transfer', 'bob-api', { namespace: 'lab' }, 403, {
      message: '403 Forbidden',
    });
  });

  it('PUT /projects/:id/transfer: 400 without namespace, 401 anonymously', async () => {
    const fx = fx0();
    await refused(fx, '/projects/acme%2Fwebsite/transfer', 'alice-api', {}, 400, {
      error: 'namespace is missing',
    });
    await refused(fx, '/projects/acme%2Fwebsite/transfer', undefined, { namespace: 'lab' }, 401, {
      message: '401 Unauthorized',
    });
  });
});

describe('POST /groups/:id/projects/:project_id', () => {
  it('POST /groups/:id/projects/:project_id: an admin moves a personal project into the group, answered with the group', async () => {
    const fx = fx0();
    const r = await send(fx, 'POST', '/groups/lab/projects/alice%2Fown', 'root-api');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ path: 'lab', full_path: 'lab' });
    expect(r.body.projects.map((p: { path_with_namespace: string }) => p.path_with_namespace)).toEqual([
      'lab/own',
    ]);
    expect(r.body.runners_token).toBeUndefined();
  });

  it('POST /groups/:id/projects/:project_id: 403 for a group owner who is no admin, 400 for a taken path', async () => {
    const fx = fx0();
    const before = fx.state;
    expect(await send(fx, 'POST', '/groups/taken/projects/alice%2Fown', 'alice-api')).toEqual({
      status: 403,
      body: { message: '403 Forbidden' },
    });
    expect(await send(fx, 'POST', '/groups/taken/projects/acme%2Fwebsite', 'root-api')).toEqual({
      status: 400,
      body: failed('Project with same name or path in target namespace already exists'),
    });
    expect(await send(fx, 'POST', '/groups/taken/projects/nope%2Fnope', 'root-api')).toEqual({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    expect(fx.state).toBe(before);
  });
});
