import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { call, json, paths, projectsFx, projectsWorld, send } from './world.js';

/** Asserts a refused write left the state as it was: the very same root object. */
async function refused(
  fx: ReturnType<typeof projectsFx>,
  method: string,
  path: string,
  token: string | undefined,
  body: unknown,
  status: number,
  expected?: unknown,
) {
  const before = fx.state;
  const r = await send(fx, method, path, token, body);
  expect(r.res.status).toBe(status);
  if (expected !== undefined) expect(r.body).toEqual(expected);
  expect(fx.state).toBe(before);
  return r;
}

describe('POST /projects', () => {
  it('POST /projects: needs a user', async () => {
    await refused(projectsFx(), 'POST', '/projects', undefined, { name: 'x' }, 401, {
      message: '401 Unauthorized',
    });
  });

  it('POST /projects: name or path is required', async () => {
    await refused(projectsFx(), 'POST', '/projects', 'frank-api', {}, 400, {
      error: 'name, path are missing, at least one parameter must be provided',
    });
  });

  it('POST /projects: bad params are reported together', async () => {
    await refused(
      projectsFx(),
      'POST',
      '/projects',
      'frank-api',
      { name: 'x', visibility: 'secret', merge_method: 'squash' },
      400,
      {
        error: 'visibility does not have a valid value, merge_method does not have a valid value',
      },
    );
  });

  it('POST /projects: creates a personal project from a name, with the Project entity', async () => {
    const fx = projectsFx();
    const { res, body } = await send(fx, 'POST', '/projects', 'frank-api', {
      name: 'My Tool',
      description: 'd',
    });
    expect(res.status).toBe(201);
    expect(body).toMatchObject({
      id: 6,
      name: 'My Tool',
      path: 'my-tool',
      path_with_namespace: 'frank/my-tool',
      name_with_namespace: 'Frank Zappa / My Tool',
      description: 'd',
      visibility: 'private',
      default_branch: null,
      empty_repo: true,
      creator_id: 7,
      created_at: '2021-03-01T12:00:00.000Z',
      web_url: 'http://localhost/frank/my-tool',
    });
    expect(body.owner.username).toBe('frank');
    expect(body.runners_token).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(body.permissions).toBeUndefined();
    const shown = await send(fx, 'GET', '/projects/frank%2Fmy-tool', 'frank-api');
    expect(shown.body.id).toBe(6);
    expect(shown.body.permissions.project_access.access_level).toBe(40);
  });

  it('POST /projects: a path alone names the project too', async () => {
    const { body } = await send(projectsFx(), 'POST', '/projects', 'frank-api', { path: 'tool_x' });
    expect(body).toMatchObject({ name: 'tool_x', path: 'tool_x' });
  });

  it('POST /projects: initialize_with_readme gives a default branch', async () => {
    const { body } = await send(projectsFx(), 'POST', '/projects', 'frank-api', {
      name: 'r',
      initialize_with_readme: true,
    });
    expect(body).toMatchObject({ default_branch: 'master', empty_repo: false });
  });

  it('POST /projects: attributes are stored and shown', async () => {
    const { body } = await send(projectsFx(), 'POST', '/projects', 'frank-api', {
      name: 'cfg',
      visibility: 'public',
      tag_list: 'b, a,b',
      issues_enabled: false,
      wiki_access_level: 'private',
      merge_method: 'ff',
      build_timeout: 600,
      ci_config_path: 'ci/main.yml',
      public_builds: false,
      container_expiration_policy_attributes: { cadence: '7d', enabled: true },
    });
    expect(body).toMatchObject({
      visibility: 'public',
      tag_list: ['a', 'b'],
      issues_enabled: false,
      issues_access_level: 'disabled',
      wiki_access_level: 'private',
      wiki_enabled: true,
      merge_method: 'ff',
      build_timeout: 600,
      ci_config_path: 'ci/main.yml',
      public_jobs: false,
    });
    expect(body.container_expiration_policy).toMatchObject({ cadence: '7d', enabled: true, keep_n: 10 });
    expect(body.open_issues_count).toBeUndefined();
  });

  it('POST /projects: the default visibility comes from the settings', async () => {
    const fx = createFauxlab({
      scenario: { ...projectsWorld, settings: { default_project_visibility: 'internal' } },
    });
    const { body } = await send(fx, 'POST', '/projects', 'frank-api', { name: 'x' });
    expect(body.visibility).toBe('internal');
  });

  it('POST /projects: a name taken in the namespace is refused with the limit_reached quirk', async () => {
    await refused(projectsFx(), 'POST', '/projects', 'bob-api', { name: 'Notes', path: 'notes' }, 400, {
      message: { name: ['has already been taken'], path: ['has already been taken'], limit_reached: [] },
    });
    await refused(projectsFx(), 'POST', '/projects', 'bob-api', { name: 'Other', path: 'NOTES' }, 400, {
      message: { path: ['has already been taken'], limit_reached: [] },
    });
  });

  it('POST /projects: invalid names and paths use the model messages', async () => {
    await refused(projectsFx(), 'POST', '/projects', 'bob-api', { name: '-bad', path: '-bad' }, 400, {
      message: {
        name: [
          "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.",
        ],
        path: [
          "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'",
        ],
        limit_reached: [],
      },
    });
  });

  it('POST /projects: namespace_id places the project in a group the user may create in', async () => {
    const fx = projectsFx();
    const { res, body } = await send(fx, 'POST', '/projects', 'dave-api', { name: 'tool', namespace_id: 8 });
    expect(res.status).toBe(201);
    expect(body).toMatchObject({ path_with_namespace: 'acme/tool', name_with_namespace: 'Acme / tool' });
    expect(body.owner).toBeUndefined();
    // The creator becomes the project's maintainer.
    const members = await send(fx, 'GET', `/projects/${body.id}/members`, 'dave-api');
    expect(members.body.map((m: any) => [m.username, m.access_level])).toEqual([['dave', 40]]);
  });

  it('POST /projects: a namespace the user may not create in is not valid', async () => {
    await refused(projectsFx(), 'POST', '/projects', 'erin-api', { name: 'tool', namespace_id: 9 }, 400, {
      message: { namespace: ['is not valid'], limit_reached: [] },
    });
    await refused(projectsFx(), 'POST', '/projects', 'frank-api', { name: 'tool', namespace_id: 999 }, 400, {
      message: { namespace: ['is not valid'], limit_reached: [] },
    });
  });

  it('POST /projects: a group caps the visibility', async () => {
    await refused(
      projectsFx(),
      'POST',
      '/projects',
      'alice-api',
      { name: 'x', namespace_id: 9, visibility: 'public' },
      400,
      {
        message: { visibility_level: ['public is not allowed in a private group.'], limit_reached: [] },
      },
    );
  });

  it('POST /projects: a restricted visibility is refused to non-admins', async () => {
    const fx = createFauxlab({
      scenario: { ...projectsWorld, settings: { restricted_visibility_levels: ['public'] } },
    });
    await refused(fx, 'POST', '/projects', 'frank-api', { name: 'x', visibility: 'public' }, 400, {
      message: {
        visibility_level: ['Public has been restricted by your GitLab administrator'],
        limit_reached: [],
      },
    });
    expect(
      (await send(fx, 'POST', '/projects', 'root-api', { name: 'x', visibility: 'public' })).res.status,
    ).toBe(201);
  });

  it('POST /projects: the projects limit answers 403 in the error shape', async () => {
    const fx = createFauxlab({
      scenario: {
        ...projectsWorld,
        users: projectsWorld.users!.map((u) => (u.username === 'bob' ? { ...u, projects_limit: 2 } : u)),
      },
    });
    await refused(fx, 'POST', '/projects', 'bob-api', { name: 'third' }, 403, {
      error: ['Your project limit is 2 projects! Please contact your administrator to increase it'],
    });
    const none = createFauxlab({
      scenario: {
        ...projectsWorld,
        users: projectsWorld.users!.map((u) => (u.username === 'frank' ? { ...u, projects_limit: 0 } : u)),
      },
    });
    await refused(none, 'POST', '/projects', 'frank-api', { name: 'x' }, 403, {
      error: ['Personal project creation is not allowed. Please contact your administrator with questions'],
    });
  });
});

describe('PUT /projects/:id', () => {
  it('PUT /projects/:id: needs at least one attribute', async () => {
    const r = await refused(projectsFx(), 'PUT', '/projects/1', 'alice-api', {}, 400);
    expect(r.body.error).toMatch(
      /^allow_merge_on_skipped_pipeline, autoclose_referenced_issues, .*, snippets_enabled are missing, at least one parameter must be provided$/,
    );
  });

  it('PUT /projects/:id: maintainers only', async () => {
    await refused(projectsFx(), 'PUT', '/projects/1', 'dave-api', { description: 'x' }, 403, {
      message: '403 Forbidden',
    });
    await refused(projectsFx(), 'PUT', '/projects/3', 'frank-api', { description: 'x' }, 404, {
      message: '404 Project Not Found',
    });
  });

  it('PUT /projects/:id: updates attributes and answers the Project entity', async () => {
    const fx = projectsFx({ now: '2021-03-02T00:00:00Z' });
    const { res, body } = await send(fx, 'PUT', '/projects/1', 'alice-api', {
      description: 'New',
      merge_method: 'rebase_merge',
      tag_list: ['z'],
      jobs_enabled: false,
    });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({
      description: 'New',
      merge_method: 'rebase_merge',
      tag_list: ['z'],
      jobs_enabled: false,
      builds_access_level: 'disabled',
    });
    expect(body.runners_token).toBeDefined();
    expect(body.permissions).toBeUndefined();
  });

  it('PUT /projects/:id: a new path keeps path_with_namespace, URLs and lookups in step', async () => {
    const fx = projectsFx();
    const { body } = await send(fx, 'PUT', '/projects/1', 'alice-api', { path: 'site' });
    expect(body).toMatchObject({
      path: 'site',
      path_with_namespace: 'acme/site',
      web_url: 'http://localhost/acme/site',
    });
    expect((await send(fx, 'GET', '/projects/acme%2Fsite')).body.id).toBe(1);
    expect((await send(fx, 'GET', '/projects/acme%2Fwebsite')).res.status).toBe(404);
    expect(paths((await send(fx, 'GET', '/projects?search=site')).body)).toContain('acme/site');
  });

  it('PUT /projects/:id: renaming and changing visibility need an owner', async () => {
    const fx = createFauxlab({
      scenario: {
        ...projectsWorld,
        projects: [{ path: 'acme/p', members: [{ username: 'frank', access_level: 'maintainer' }] }],
      },
    });
    await refused(fx, 'PUT', '/projects/1', 'frank-api', { name: 'Q' }, 403);
    await refused(fx, 'PUT', '/projects/1', 'frank-api', { visibility: 'internal' }, 403);
    expect((await send(fx, 'PUT', '/projects/1', 'frank-api', { path: 'q' })).res.status).toBe(200);
    expect(
      (await send(fx, 'PUT', '/projects/1', 'alice-api', { name: 'Q', visibility: 'public' })).body,
    ).toMatchObject({
      name: 'Q',
      visibility: 'public',
    });
  });

  it('PUT /projects/:id: validation errors use the model messages', async () => {
    await refused(projectsFx(), 'PUT', '/projects/1', 'alice-api', { path: 'intranet' }, 400, {
      message: { path: ['has already been taken'] },
    });
    await refused(projectsFx(), 'PUT', '/projects/3', 'alice-api', { visibility: 'public' }, 400, {
      message: { visibility_level: ['public is not allowed in a private group.'] },
    });
  });
});

describe('POST /projects/:id/fork', () => {
  it('POST /projects/:id/fork: 409 limit_reached into a personal namespace past the projects limit (external users have none)', async () => {
    const fx = projectsFx();
    const before = fx.state;
    const { res, body } = await send(fx, 'POST', '/projects/1/fork', 'carol-api');
    expect(res.status).toBe(409);
    expect(body).toEqual({
      message: {
        limit_reached: [
          'Personal project creation is not allowed. Please contact your administrator with questions',
        ],
      },
    });
    expect(fx.state).toBe(before);
  });

  it('POST /projects/:id/fork: forks into the user namespace', async () => {
    const fx = projectsFx();
    const { res, body } = await send(fx, 'POST', '/projects/1/fork', 'frank-api');
    expect(res.status).toBe(201);
    expect(body).toMatchObject({
      path_with_namespace: 'frank/website',
      name: 'Website',
      description: 'The public face of Acme',
      visibility: 'public',
      forked_from_project: { id: 1, forks_count: 2 },
      creator_id: 7,
    });
    expect((await send(fx, 'GET', '/projects/1')).body.forks_count).toBe(2);
  });

  it('POST /projects/:id/fork: path, name and namespace (id, path or deprecated form)', async () => {
    const fx = projectsFx();
    const a = await send(fx, 'POST', '/projects/1/fork', 'alice-api', {
      namespace_id: 9,
      path: 'w2',
      name: 'W2',
    });
    expect(a.body).toMatchObject({ path_with_namespace: 'acme/labs/w2', name: 'W2', visibility: 'private' });
    const b = await send(fx, 'POST', '/projects/1/fork', 'alice-api', {
      namespace_path: 'acme/labs',
      path: 'w3',
      name: 'W3',
    });
    expect(b.body.path_with_namespace).toBe('acme/labs/w3');
    const c = await send(fx, 'POST', '/projects/1/fork', 'alice-api', {
      namespace: 'acme/labs',
      path: 'w4',
      name: 'W4',
    });
    expect(c.body.path_with_namespace).toBe('acme/labs/w4');
  });

  it('POST /projects/:id/fork: a taken name and path conflict', async () => {
    await refused(projectsFx(), 'POST', '/projects/1/fork', 'bob-api', undefined, 409, {
      message: { name: ['has already been taken'], path: ['has already been taken'] },
    });
  });

  it('POST /projects/:id/fork: unknown namespaces and forbidden targets are not found', async () => {
    await refused(projectsFx(), 'POST', '/projects/1/fork', 'frank-api', { namespace_id: 999 }, 404, {
      message: '404 Namespace Not Found',
    });
    await refused(projectsFx(), 'POST', '/projects/1/fork', 'frank-api', { namespace: 'acme' }, 404, {
      message: '404 Target Namespace Not Found',
    });
  });

  it('POST /projects/:id/fork: a project with forking disabled cannot be forked', async () => {
    const fx = createFauxlab({
      scenario: {
        ...projectsWorld,
        projects: [{ path: 'acme/x', visibility: 'public', forking_access_level: 'disabled' }],
      },
    });
    await refused(fx, 'POST', '/projects/1/fork', 'frank-api', undefined, 404, { message: '404 Not Found' });
  });
});

describe('stars', () => {
  it('POST /projects/:id/star: stars once, then 304', async () => {
    const fx = projectsFx();
    const { res, body } = await send(fx, 'POST', '/projects/2/star', 'frank-api');
    expect(res.status).toBe(201);
    expect(body).toMatchObject({ id: 2, star_count: 1 });
    const again = await send(fx, 'POST', '/projects/2/star', 'frank-api');
    expect(again.res.status).toBe(304);
    expect(
      await call(fx, 'POST', '/api/v4/projects/2/star', { token: 'frank-api' }).then((r) => r.text()),
    ).toBe('');
    expect(paths((await send(fx, 'GET', '/projects?starred=true', 'frank-api')).body)).toEqual([
      'acme/intranet',
    ]);
  });

  it('POST /projects/:id/unstar: unstars, then 304', async () => {
    const fx = projectsFx();
    const { res, body } = await send(fx, 'POST', '/projects/1/unstar', 'bob-api');
    expect(res.status).toBe(201);
    expect(body.star_count).toBe(1);
    const before = fx.state;
    const again = await send(fx, 'POST', '/projects/1/unstar', 'bob-api');
    expect(again.res.status).toBe(304);
    expect(fx.state).toBe(before);
  });

  it('GET /projects/:id/starrers: who starred, since when, with search', async () => {
    const fx = projectsFx();
    const { res, body } = await send(fx, 'GET', '/projects/1/starrers');
    expect(res.status).toBe(200);
    expect(body.map((s: any) => s.user.username)).toEqual(['bob', 'dave']);
    expect(body[0]).toEqual({
      starred_since: '2021-03-01T12:00:00.000Z',
      user: expect.objectContaining({ id: 3, username: 'bob', state: 'active' }),
    });
    expect(res.headers.get('x-total')).toBe('2');
    expect(
      (await send(fx, 'GET', '/projects/1/starrers?search=dav')).body.map((s: any) => s.user.username),
    ).toEqual(['dave']);
  });
});

describe('archive', () => {
  it('POST /projects/:id/archive: owners and admins, idempotent, 201', async () => {
    const fx = projectsFx();
    await refused(fx, 'POST', '/projects/1/archive', 'dave-api', undefined, 403, {
      message: '403 Forbidden',
    });
    const { res, body } = await send(fx, 'POST', '/projects/1/archive', 'alice-api');
    expect(res.status).toBe(201);
    expect(body.archived).toBe(true);
    // root's activity of the day is recorded by its first request.
    await send(fx, 'GET', '/user', 'root-api');
    const before = fx.state;
    expect((await send(fx, 'POST', '/projects/1/archive', 'root-api')).body.archived).toBe(true);
    expect(fx.state).toBe(before);
    expect((await send(fx, 'POST', '/projects/1/unarchive', 'alice-api')).body.archived).toBe(false);
    expect((await send(fx, 'POST', '/projects/1/unarchive', 'alice-api')).res.status).toBe(201);
  });
});

describe('DELETE /projects/:id', () => {
  it('DELETE /projects/:id: owners delete, answering 202', async () => {
    const fx = projectsFx();
    await refused(fx, 'DELETE', '/projects/1', 'dave-api', undefined, 403);
    const { res, body } = await send(fx, 'DELETE', '/projects/1', 'alice-api');
    expect(res.status).toBe(202);
    expect(body).toEqual({ message: '202 Accepted' });
    expect((await send(fx, 'GET', '/projects/1', 'root-api')).res.status).toBe(404);
    // The fork loses its source.
    expect((await send(fx, 'GET', '/projects/5', 'root-api')).body.forked_from_project).toBeUndefined();
    expect((await send(fx, 'GET', '/projects/1/starrers')).res.status).toBe(404);
  });

  it('DELETE /projects/:id: If-Unmodified-Since older than the last change is 412', async () => {
    const fx = projectsFx();
    const before = fx.state;
    const res = await call(fx, 'DELETE', '/api/v4/projects/1', {
      token: 'alice-api',
      headers: { 'If-Unmodified-Since': 'Tue, 01 Oct 2019 00:00:00 GMT' },
    });
    expect(res.status).toBe(412);
    expect(await json(res)).toEqual({ message: '412 Precondition Failed' });
    expect(fx.state).toBe(before);
  });

  it('DELETE /projects/:id: paid tiers mark the project and remove it after the adjourned period', async () => {
    const fx = createFauxlab({
      scenario: { ...projectsWorld, settings: { deletion_adjourned_period: 3 } },
      tier: 'premium',
    });
    expect((await send(fx, 'DELETE', '/projects/1', 'alice-api')).res.status).toBe(202);
    const marked = await send(fx, 'GET', '/projects/1', 'alice-api');
    expect(marked.body).toMatchObject({
      marked_for_deletion_on: '2021-03-01',
      marked_for_deletion_at: '2021-03-01',
      archived: true,
    });
    expect((await send(fx, 'DELETE', '/projects/1', 'alice-api')).res.status).toBe(202);
    fx.clock.advance(2 * 86_400_000);
    expect((await send(fx, 'GET', '/projects/1', 'alice-api')).res.status).toBe(200);
    fx.clock.advance(86_400_000);
    expect((await send(fx, 'GET', '/projects/1', 'alice-api')).res.status).toBe(404);
    expect(paths((await send(fx, 'GET', '/projects', 'root-api')).body)).not.toContain('acme/website');
  });

  it('POST /projects/:id/restore: paid tiers restore a marked project', async () => {
    const fx = createFauxlab({ scenario: projectsWorld, tier: 'premium' });
    await send(fx, 'DELETE', '/projects/1', 'alice-api');
    await refused(fx, 'POST', '/projects/1/restore', 'dave-api', undefined, 403);
    const { res, body } = await send(fx, 'POST', '/projects/1/restore', 'alice-api');
    expect(res.status).toBe(201);
    expect(body).toMatchObject({ marked_for_deletion_on: null, archived: false });
    fx.clock.advance(30 * 86_400_000);
    expect((await send(fx, 'GET', '/projects/1')).res.status).toBe(200);
  });

  it('POST /projects/:id/restore: not found on the free tier', async () => {
    await refused(projectsFx(), 'POST', '/projects/1/restore', 'alice-api', undefined, 404, {
      message: '404 Not Found',
    });
  });
});

describe('sharing', () => {
  it('POST /projects/:id/share: shares with a group, once', async () => {
    const fx = projectsFx({ now: '2021-03-01T12:00:00Z' });
    // Alice may not read the private group; an admin may.
    await refused(fx, 'POST', '/projects/1/share', 'alice-api', { group_id: 10, group_access: 20 }, 404, {
      message: 'Not Found',
    });
    const { res, body } = await send(fx, 'POST', '/projects/1/share', 'root-api', {
      group_id: 10,
      group_access: 20,
      expires_at: '2021-12-31',
    });
    expect(res.status).toBe(201);
    expect(body).toEqual({ id: 2, project_id: 1, group_id: 10, group_access: 20, expires_at: '2021-12-31' });
    await refused(fx, 'POST', '/projects/1/share', 'root-api', { group_id: 10, group_access: 20 }, 409, {
      message: 'Group already shared with this group',
    });
    expect((await send(fx, 'GET', '/projects/1', 'alice-api')).body.shared_with_groups).toEqual([
      {
        group_id: 10,
        group_name: 'Partners',
        group_full_path: 'partners',
        group_access_level: 20,
        expires_at: '2021-12-31',
      },
    ]);
    // Members of the group now reach the project.
    expect(paths((await send(fx, 'GET', '/projects?min_access_level=20', 'bob-api')).body)).toContain(
      'acme/website',
    );
  });

  it('POST /projects/:id/share: params, permissions and the project own groups', async () => {
    const fx = projectsFx();
    await refused(fx, 'POST', '/projects/1/share', 'alice-api', { group_id: 10, group_access: 50 }, 400, {
      error: 'group_access does not have a valid value',
    });
    await refused(fx, 'POST', '/projects/1/share', 'alice-api', {}, 400, {
      error: 'group_id is missing, group_access is missing',
    });
    await refused(fx, 'POST', '/projects/1/share', 'dave-api', { group_id: 10, group_access: 20 }, 403);
    await refused(fx, 'POST', '/projects/1/share', 'alice-api', { group_id: 999, group_access: 20 }, 404, {
      message: 'Not Found',
    });
    await refused(fx, 'POST', '/projects/3/share', 'alice-api', { group_id: 8, group_access: 20 }, 409, {
      message: 'Project cannot be shared with the group it is in or one of its ancestors.',
    });
  });

  it('DELETE /projects/:id/share/:group_id: unshares, 204', async () => {
    const fx = projectsFx();
    await refused(fx, 'DELETE', '/projects/3/share/10', 'dave-api', undefined, 403);
    await refused(fx, 'DELETE', '/projects/3/share/9', 'alice-api', undefined, 404, {
      message: '404 Group Link Not Found',
    });
    const res = await call(fx, 'DELETE', '/api/v4/projects/3/share/10', { token: 'alice-api' });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect((await send(fx, 'GET', '/projects/3', 'alice-api')).body.shared_with_groups).toEqual([]);
    // Bob is now a guest only.
    expect(paths((await send(fx, 'GET', '/projects?min_access_level=20', 'bob-api')).body)).not.toContain(
      'acme/labs/rocket',
    );
  });
});

describe('GET /projects/:id/languages', () => {
  it('GET /projects/:id/languages: deterministic, summing to 100', async () => {
    const fx = projectsFx();
    const { body } = await send(fx, 'GET', '/projects/1/languages');
    const again = await send(projectsFx(), 'GET', '/projects/1/languages');
    expect(again.body).toEqual(body);
    const values = Object.values(body) as number[];
    expect(values.length).toBeGreaterThan(0);
    expect(Math.round(values.reduce((a, b) => a + b, 0) * 100)).toBe(10_000);
    expect(values).toEqual([...values].sort((a, b) => b - a));
    // An empty repository has no languages.
    const created = await send(fx, 'POST', '/projects', 'frank-api', { name: 'empty' });
    expect((await send(fx, 'GET', `/projects/${created.body.id}/languages`, 'frank-api')).body).toEqual({});
  });
});
