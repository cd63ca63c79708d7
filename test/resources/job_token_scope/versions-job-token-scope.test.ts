/**
 * The project job token scope API by release (job_token_scope/versions.ts): the settings and project
 * allowlist from 16.4, the groups allowlist from 17.3, the allowlist enforced for every project from 18.0.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { Minor } from '../../../src/core/versions.js';

const at = (version: Minor) =>
  createFauxlab({
    version,
    scenario: {
      users: [
        { username: 'root', admin: true, tokens: [{ token: 'root-api' }] },
        { username: 'dev', tokens: [{ token: 'dev-api' }] },
      ],
      groups: [
        { path: 'team', name: 'Team', members: [{ username: 'dev', access_level: 'developer' }] },
        { path: 'hidden', visibility: 'private' },
      ],
      projects: [
        { path: 'team/app', visibility: 'private' },
        { path: 'team/lib', visibility: 'private' },
        { path: 'root/secret', visibility: 'private' },
      ],
    },
  });

const send = async (
  fx: ReturnType<typeof at>,
  method: string,
  path: string,
  body?: unknown,
  token = 'root-api',
) => {
  const res = await fx.app.request(`/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
};

const idOf = async (fx: ReturnType<typeof at>, path: string, kind = 'projects') =>
  ((await send(fx, 'GET', `/${kind}/${encodeURIComponent(path)}`)).body as { id: number }).id;

describe('job token scope by release', () => {
  it('16.3: none of the routes exists', async () => {
    const fx = at('16.3');
    const app = await idOf(fx, 'team/app');
    expect((await send(fx, 'GET', `/projects/${app}/job_token_scope`)).status).toBe(404);
    expect((await send(fx, 'GET', `/projects/${app}/job_token_scope/allowlist`)).status).toBe(404);
    const add = await send(fx, 'POST', `/projects/${app}/job_token_scope/allowlist`, {
      target_project_id: 1,
    });
    expect(add).toEqual({ status: 404, body: { error: '404 Not Found' } });
  });

  it('16.4: the switch (on by default) and the project allowlist, which holds the project itself first', async () => {
    const fx = at('16.4');
    const app = await idOf(fx, 'team/app');
    const lib = await idOf(fx, 'team/lib');
    expect(await send(fx, 'GET', `/projects/${app}/job_token_scope`)).toEqual({
      status: 200,
      body: { inbound_enabled: true, outbound_enabled: false },
    });
    expect(await send(fx, 'PATCH', `/projects/${app}/job_token_scope`, { enabled: false })).toEqual({
      status: 204,
      body: null,
    });
    expect((await send(fx, 'GET', `/projects/${app}/job_token_scope`)).body).toEqual({
      inbound_enabled: false,
      outbound_enabled: false,
    });
    expect((await send(fx, 'PATCH', `/projects/${app}/job_token_scope`, {})).body).toEqual({
      error: 'enabled is missing',
    });

    expect(
      await send(fx, 'POST', `/projects/${app}/job_token_scope/allowlist`, { target_project_id: lib }),
    ).toEqual({ status: 201, body: { source_project_id: app, target_project_id: lib } });
    const list = await send(fx, 'GET', `/projects/${app}/job_token_scope/allowlist`);
    expect(list.status).toBe(200);
    expect((list.body as { path_with_namespace: string }[]).map((p) => p.path_with_namespace)).toEqual([
      'team/app',
      'team/lib',
    ]);
    // `Entities::BasicProjectDetails`: no permissions or settings.
    expect(Object.keys((list.body as object[])[1]!)).toContain('namespace');
    expect(Object.keys((list.body as object[])[1]!)).not.toContain('permissions');

    // The services' refusals.
    expect(
      await send(fx, 'POST', `/projects/${app}/job_token_scope/allowlist`, { target_project_id: lib }),
    ).toEqual({
      status: 400,
      body: { message: '400 Bad request - Target project is already in the job token scope' },
    });
    expect(
      await send(fx, 'POST', `/projects/${app}/job_token_scope/allowlist`, { target_project_id: app }),
    ).toEqual({
      status: 400,
      body: {
        message:
          "400 Bad request - Validation failed: Target project can't be the same as the source project",
      },
    });
    expect(
      await send(fx, 'POST', `/projects/${app}/job_token_scope/allowlist`, { target_project_id: 9999 }),
    ).toEqual({ status: 404, body: { message: '404 target_project_id not found Not Found' } });
    expect(
      await send(fx, 'POST', `/projects/team%2Fapp/job_token_scope/allowlist`, { target_project_id: lib }),
    ).toEqual({ status: 400, body: { error: 'id is invalid' } });

    // A developer: 403 on reads and additions; the removal service's own message.
    expect((await send(fx, 'GET', `/projects/${app}/job_token_scope`, undefined, 'dev-api')).status).toBe(
      403,
    );
    expect(
      await send(fx, 'DELETE', `/projects/${app}/job_token_scope/allowlist/${lib}`, undefined, 'dev-api'),
    ).toEqual({
      status: 403,
      body: { message: '403 Forbidden - Insufficient permissions to modify the job token scope' },
    });

    expect(await send(fx, 'DELETE', `/projects/${app}/job_token_scope/allowlist/${app}`)).toEqual({
      status: 400,
      body: { message: '400 Bad request - Source project cannot be removed from the job token scope' },
    });
    expect((await send(fx, 'DELETE', `/projects/${app}/job_token_scope/allowlist/${lib}`)).status).toBe(204);
    expect(await send(fx, 'DELETE', `/projects/${app}/job_token_scope/allowlist/${lib}`)).toEqual({
      status: 400,
      body: { message: '400 Bad request - Target project is not in the job token scope' },
    });
    expect(
      ((await send(fx, 'GET', `/projects/${app}/job_token_scope/allowlist`)).body as object[]).length,
    ).toBe(1);

    // The groups allowlist is not there yet.
    expect((await send(fx, 'GET', `/projects/${app}/job_token_scope/groups_allowlist`)).status).toBe(404);
  });

  it('a project the viewer cannot read is refused as the service words it; deleting a target drops its link', async () => {
    const fx = at('16.4');
    const app = await idOf(fx, 'team/app');
    const lib = await idOf(fx, 'team/lib');
    const secret = await idOf(fx, 'root/secret');
    // dev maintains nothing; make them maintainer of team/app only.
    const dev = ((await send(fx, 'GET', '/users?username=dev')).body as { id: number }[])[0]!.id;
    await send(fx, 'POST', `/projects/${app}/members`, { user_id: dev, access_level: 40 });
    expect(
      await send(
        fx,
        'POST',
        `/projects/${app}/job_token_scope/allowlist`,
        { target_project_id: secret },
        'dev-api',
      ),
    ).toEqual({
      status: 400,
      body: {
        message:
          "400 Bad request - The target_project that you are attempting to access does not exist or you don't have permission to perform this action",
      },
    });
    expect(
      (await send(fx, 'POST', `/projects/${app}/job_token_scope/allowlist`, { target_project_id: lib }))
        .status,
    ).toBe(201);
    expect((await send(fx, 'DELETE', `/projects/${lib}`)).status).toBe(202);
    const list = (await send(fx, 'GET', `/projects/${app}/job_token_scope/allowlist`)).body as {
      id: number;
    }[];
    expect(list.map((p) => p.id)).toEqual([app]);
  });

  it('17.2: no groups allowlist; 17.3: groups are added, listed as BasicGroupDetails and removed', async () => {
    const before = at('17.2');
    const a = await idOf(before, 'team/app');
    expect((await send(before, 'GET', `/projects/${a}/job_token_scope/groups_allowlist`)).status).toBe(404);

    const fx = at('17.3');
    const app = await idOf(fx, 'team/app');
    const team = await idOf(fx, 'team', 'groups');
    expect(
      await send(fx, 'POST', `/projects/${app}/job_token_scope/groups_allowlist`, { target_group_id: team }),
    ).toEqual({ status: 201, body: { source_project_id: app, target_group_id: team } });
    expect(await send(fx, 'GET', `/projects/${app}/job_token_scope/groups_allowlist`)).toEqual({
      status: 200,
      body: [{ id: team, web_url: 'http://localhost/groups/team', name: 'Team' }],
    });
    expect(
      await send(fx, 'POST', `/projects/${app}/job_token_scope/groups_allowlist`, { target_group_id: team }),
    ).toEqual({
      status: 400,
      body: { message: '400 Bad request - Target group is already in the job token scope' },
    });
    expect(
      await send(fx, 'POST', `/projects/${app}/job_token_scope/groups_allowlist`, { target_group_id: 9999 }),
    ).toEqual({ status: 404, body: { message: '404 target_group_id not found Not Found' } });
    expect(
      (await send(fx, 'DELETE', `/projects/${app}/job_token_scope/groups_allowlist/${team}`)).status,
    ).toBe(204);
    expect(await send(fx, 'DELETE', `/projects/${app}/job_token_scope/groups_allowlist/${team}`)).toEqual({
      status: 400,
      body: { message: '400 Bad request - Target group is not in the job token scope' },
    });
    expect((await send(fx, 'GET', `/projects/${app}/job_token_scope/groups_allowlist`)).body).toEqual([]);
  });

  it('17.11: turning the switch off shows; 18.0: the instance enforces the allowlist, inbound_enabled stays true', async () => {
    for (const [version, shown] of [
      ['17.11', false],
      ['18.0', true],
    ] as const) {
      const fx = at(version);
      const app = await idOf(fx, 'team/app');
      expect((await send(fx, 'PATCH', `/projects/${app}/job_token_scope`, { enabled: false })).status).toBe(
        204,
      );
      expect((await send(fx, 'GET', `/projects/${app}/job_token_scope`)).body).toEqual({
        inbound_enabled: shown,
        outbound_enabled: false,
      });
    }
  });
});
