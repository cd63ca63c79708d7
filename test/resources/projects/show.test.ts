import { describe, expect, it } from 'vitest';
import { produce } from 'immer';
import { createFauxlab } from '../../../src/index.js';
import { projectEntity } from '../../../src/resources/projects/entities.js';
import { PROJECT_DEFAULTS } from '../../../src/resources/projects/model.js';
import { tget, tset, type Table } from '../../../src/core/table.js';
import { BASIC_KEYS, call, json, projectsFx, projectsWorld, reads } from './world.js';

const fx = projectsFx();
const { get } = reads(fx);

/** The 13.x Project entity, in the platform's order (ProjectIdentity, BasicProjectDetails, Project). */
const FULL_KEYS = [
  ...BASIC_KEYS,
  '_links',
  'packages_enabled',
  'empty_repo',
  'archived',
  'visibility',
  'resolve_outdated_diff_discussions',
  'container_registry_enabled',
  'container_expiration_policy',
  'issues_enabled',
  'merge_requests_enabled',
  'wiki_enabled',
  'jobs_enabled',
  'snippets_enabled',
  'service_desk_enabled',
  'service_desk_address',
  'can_create_merge_request_in',
  'issues_access_level',
  'repository_access_level',
  'merge_requests_access_level',
  'forking_access_level',
  'wiki_access_level',
  'builds_access_level',
  'snippets_access_level',
  'pages_access_level',
  'operations_access_level',
  'analytics_access_level',
  'emails_disabled',
  'shared_runners_enabled',
  'lfs_enabled',
  'creator_id',
  'import_status',
  'open_issues_count',
  'ci_default_git_depth',
  'public_jobs',
  'build_timeout',
  'auto_cancel_pending_pipelines',
  'build_coverage_regex',
  'ci_config_path',
  'shared_with_groups',
  'only_allow_merge_if_pipeline_succeeds',
  'allow_merge_on_skipped_pipeline',
  'request_access_enabled',
  'only_allow_merge_if_all_discussions_are_resolved',
  'remove_source_branch_after_merge',
  'printing_merge_request_link_enabled',
  'merge_method',
  'suggestion_commit_message',
  'auto_devops_enabled',
  'auto_devops_deploy_strategy',
  'autoclose_referenced_issues',
];

const withInserted = (keys: string[], after: string, added: string[]) => {
  const i = keys.indexOf(after);
  return [...keys.slice(0, i + 1), ...added, ...keys.slice(i + 1)];
};

describe('GET /projects/:id: who may see it', () => {
  it('GET /projects/:id: a private project is 404 for a non-member', async () => {
    const { res, body } = await get('/projects/3', 'frank-api');
    expect(res.status).toBe(404);
    expect(body).toEqual({ message: '404 Project Not Found' });
  });

  it('GET /projects/:id: a private project is 404 for anonymous callers', async () => {
    const { res, body } = await get('/projects/4');
    expect(res.status).toBe(404);
    expect(body).toEqual({ message: '404 Project Not Found' });
  });

  it('GET /projects/:id: an internal project needs a signed-in, non-external user', async () => {
    expect((await get('/projects/2')).res.status).toBe(404);
    expect((await get('/projects/2', 'carol-api')).res.status).toBe(404);
    expect((await get('/projects/2', 'frank-api')).res.status).toBe(200);
  });

  it('GET /projects/:id: an unknown project is the same 404', async () => {
    const { res, body } = await get('/projects/999', 'root-api');
    expect(res.status).toBe(404);
    expect(body).toEqual({ message: '404 Project Not Found' });
  });

  it('GET /projects/:id: a URL-encoded path finds the project; an unencoded one matches no route', async () => {
    expect((await get('/projects/acme%2Flabs%2Frocket', 'bob-api')).body.id).toBe(3);
    expect((await get('/projects/ACME%2FWebsite')).body.id).toBe(1);
    const { res, body } = await get('/projects/acme/website');
    expect(res.status).toBe(404);
    expect(body).toEqual({ error: '404 Not Found' });
  });
});

describe('GET /projects/:id: the entity', () => {
  it('GET /projects/:id: anonymous callers get BasicProjectDetails', async () => {
    const { body } = await get('/projects/1');
    expect(body).toEqual({
      id: 1,
      description: 'The public face of Acme',
      name: 'Website',
      name_with_namespace: 'Acme / Website',
      path: 'website',
      path_with_namespace: 'acme/website',
      created_at: '2020-01-01T00:00:00.000Z',
      default_branch: 'master',
      tag_list: ['Docs', 'api', 'web'],
      ssh_url_to_repo: 'git@localhost:acme/website.git',
      http_url_to_repo: 'http://localhost/acme/website.git',
      web_url: 'http://localhost/acme/website',
      readme_url: null,
      avatar_url: null,
      forks_count: 1,
      star_count: 2,
      last_activity_at: '2020-01-01T00:00:00.000Z',
      namespace: {
        id: 8,
        name: 'Acme',
        path: 'acme',
        kind: 'group',
        full_path: 'acme',
        parent_id: null,
        avatar_url: null,
        web_url: 'http://localhost/groups/acme',
      },
    });
  });

  it('GET /projects/:id: a member sees ProjectWithAccess in the platform order', async () => {
    const { body } = await get('/projects/1', 'dave-api');
    expect(Object.keys(body)).toEqual([...FULL_KEYS, 'permissions']);
    expect(body.permissions).toEqual({
      project_access: null,
      group_access: { access_level: 30, notification_level: 3 },
    });
    expect(body._links).toEqual({
      self: 'http://localhost/api/v4/projects/1',
      issues: 'http://localhost/api/v4/projects/1/issues',
      merge_requests: 'http://localhost/api/v4/projects/1/merge_requests',
      repo_branches: 'http://localhost/api/v4/projects/1/repository/branches',
      labels: 'http://localhost/api/v4/projects/1/labels',
      events: 'http://localhost/api/v4/projects/1/events',
      members: 'http://localhost/api/v4/projects/1/members',
    });
    expect(body.container_expiration_policy).toEqual({
      cadence: '1d',
      enabled: false,
      keep_n: 10,
      older_than: '90d',
      name_regex: '.*',
      name_regex_keep: null,
      next_run_at: '2020-01-02T00:00:00.000Z',
    });
    expect(body).toMatchObject({
      packages_enabled: true,
      empty_repo: false,
      archived: false,
      visibility: 'public',
      issues_enabled: true,
      can_create_merge_request_in: true,
      issues_access_level: 'enabled',
      emails_disabled: null,
      shared_runners_enabled: true,
      creator_id: 2,
      import_status: 'none',
      open_issues_count: 0,
      ci_default_git_depth: 50,
      public_jobs: true,
      build_timeout: 3600,
      auto_cancel_pending_pipelines: 'enabled',
      ci_config_path: null,
      merge_method: 'merge',
      auto_devops_enabled: true,
      auto_devops_deploy_strategy: 'continuous',
    });
  });

  it('GET /projects/:id: single-project permissions include memberships of ancestor groups', async () => {
    const { body } = await get('/projects/3', 'dave-api');
    expect(body.permissions).toEqual({
      project_access: null,
      group_access: { access_level: 30, notification_level: 3 },
    });
    const { body: bob } = await get('/projects/3', 'bob-api');
    expect(bob.permissions).toEqual({
      project_access: { access_level: 10, notification_level: 3 },
      group_access: null,
    });
  });

  it('GET /projects/:id: maintainers see import_error, runners_token and build_git_strategy', async () => {
    const { body } = await get('/projects/1', 'alice-api');
    const keys = withInserted(
      withInserted(withInserted(FULL_KEYS, 'import_status', ['import_error']), 'open_issues_count', [
        'runners_token',
      ]),
      'public_jobs',
      ['build_git_strategy'],
    );
    expect(Object.keys(body)).toEqual([...keys, 'permissions']);
    expect(body.runners_token).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(body.build_git_strategy).toBe('fetch');
  });

  it('GET /projects/:id: admins also see repository_storage', async () => {
    const { body } = await get('/projects/1', 'root-api');
    expect(Object.keys(body)).toContain('repository_storage');
    expect(Object.keys(body).indexOf('repository_storage')).toBe(
      Object.keys(body).indexOf('autoclose_referenced_issues') + 1,
    );
    expect(body.repository_storage).toBe('default');
    expect(body.permissions).toEqual({ project_access: null, group_access: null });
  });

  it('GET /projects/:id: runners tokens are deterministic per project', async () => {
    const again = projectsFx();
    const a = (await get('/projects/1', 'alice-api')).body.runners_token;
    const b = await json(await call(again, 'GET', '/api/v4/projects/1', { token: 'alice-api' }));
    const other = (await get('/projects/2', 'alice-api')).body.runners_token;
    expect(b.runners_token).toBe(a);
    expect(other).not.toBe(a);
  });

  it('GET /projects/:id: a personal project shows its owner and a user namespace', async () => {
    const { body } = await get('/projects/4', 'bob-api');
    expect(body.owner).toEqual({
      id: 3,
      name: 'Bob Builder',
      username: 'bob',
      state: 'active',
      avatar_url: expect.stringMatching(
        /^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}\?s=80&d=identicon$/,
      ),
      web_url: 'http://localhost/bob',
    });
    expect(Object.keys(body).indexOf('owner')).toBe(Object.keys(body).indexOf('visibility') + 1);
    expect(body.namespace).toMatchObject({
      name: 'Bob Builder',
      path: 'bob',
      kind: 'user',
      full_path: 'bob',
      parent_id: null,
      web_url: 'http://localhost/bob',
    });
    expect(body.name_with_namespace).toBe('Bob Builder / Notes');
    expect(body.permissions.project_access).toEqual({ access_level: 40, notification_level: 3 });
  });

  it('GET /projects/:id: a fork shows forked_from_project to those who may read the source', async () => {
    const { body } = await get('/projects/5', 'frank-api');
    expect(Object.keys(body).indexOf('forked_from_project')).toBe(
      Object.keys(body).indexOf('creator_id') + 1,
    );
    expect(body.forked_from_project).toMatchObject({
      id: 1,
      path_with_namespace: 'acme/website',
      forks_count: 1,
    });
    expect(Object.keys(body.forked_from_project)).not.toContain('_links');
    expect(body.archived).toBe(true);
    expect(body.can_create_merge_request_in).toBe(false);
  });

  it('GET /projects/:id: shared_with_groups lists the groups the project is shared with', async () => {
    const { body } = await get('/projects/3', 'alice-api');
    expect(body.shared_with_groups).toEqual([
      {
        group_id: 10,
        group_name: 'Partners',
        group_full_path: 'partners',
        group_access_level: 30,
        expires_at: null,
      },
    ]);
  });

  it('GET /projects/:id: a guest of a private project sees neither default_branch nor ci_config_path', async () => {
    const fx2 = createFauxlab({
      scenario: {
        ...projectsWorld,
        projects: [{ path: 'acme/labs/x', members: [{ username: 'frank', access_level: 'guest' }] }],
      },
    });
    const body = await json(await call(fx2, 'GET', '/api/v4/projects/1', { token: 'frank-api' }));
    expect(body.default_branch).toBeUndefined();
    expect(body.ci_config_path).toBeUndefined();
    const erin = await json(await call(fx2, 'GET', '/api/v4/projects/1', { token: 'erin-api' }));
    expect(erin.default_branch).toBe('master');
    expect(erin.ci_config_path).toBeNull();
  });

  it('GET /projects/:id: disabled and members-only features follow the viewer', async () => {
    const fx2 = createFauxlab({
      scenario: {
        ...projectsWorld,
        projects: [
          {
            path: 'acme/x',
            visibility: 'public',
            issues_access_level: 'disabled',
            merge_requests_access_level: 'private',
            wiki_access_level: 'private',
          },
        ],
      },
    });
    const frank = await json(await call(fx2, 'GET', '/api/v4/projects/1', { token: 'frank-api' }));
    expect(frank).toMatchObject({
      issues_enabled: false,
      merge_requests_enabled: false,
      wiki_enabled: false,
      jobs_enabled: true,
      can_create_merge_request_in: false,
    });
    expect(frank.open_issues_count).toBeUndefined();
    expect(Object.keys(frank._links)).toEqual(['self', 'repo_branches', 'labels', 'events', 'members']);
    const dave = await json(await call(fx2, 'GET', '/api/v4/projects/1', { token: 'dave-api' }));
    expect(dave).toMatchObject({
      merge_requests_enabled: true,
      wiki_enabled: true,
      can_create_merge_request_in: true,
    });
    expect(Object.keys(dave._links)).toContain('merge_requests');
  });

  it('GET /projects/:id: statistics, license and custom attributes on request', async () => {
    const { body } = await get(
      '/projects/1?statistics=true&license=true&with_custom_attributes=true',
      'root-api',
    );
    const keys = Object.keys(body);
    expect(keys.indexOf('license_url')).toBe(keys.indexOf('readme_url') + 1);
    expect(keys.indexOf('license')).toBe(keys.indexOf('readme_url') + 2);
    expect(body.license_url).toBeNull();
    expect(body.license).toBeNull();
    expect(body.custom_attributes).toEqual([]);
    expect(keys.indexOf('statistics')).toBe(keys.indexOf('suggestion_commit_message') + 1);
    const { body: guest } = await get('/projects/1?statistics=true', 'frank-api');
    expect(guest.statistics).toBeUndefined();
    const { body: plain } = await get('/projects/1?with_custom_attributes=true', 'alice-api');
    expect(plain.custom_attributes).toBeUndefined();
  });

  it('GET /projects/:id: paid tiers add the EE fields', async () => {
    const paid = createFauxlab({ scenario: projectsWorld, tier: 'ultimate' });
    const body = await json(await call(paid, 'GET', '/api/v4/projects/1', { token: 'dave-api' }));
    const keys = Object.keys(body);
    expect(keys.slice(keys.indexOf('autoclose_referenced_issues') + 1)).toEqual([
      'approvals_before_merge',
      'mirror',
      'external_authorization_classification_label',
      'marked_for_deletion_at',
      'marked_for_deletion_on',
      'permissions',
    ]);
    expect(body).toMatchObject({ approvals_before_merge: 0, mirror: false, marked_for_deletion_on: null });
    expect((await get('/projects/1', 'dave-api')).body.mirror).toBeUndefined();
  });

  it('GET /projects/:id: a configured external URL is used in every URL', async () => {
    const ext = projectsFx({ baseUrl: 'https://gitlab.example.com' });
    const body = await json(await call(ext, 'GET', '/api/v4/projects/1'));
    expect(body.web_url).toBe('https://gitlab.example.com/acme/website');
    expect(body.ssh_url_to_repo).toBe('git@gitlab.example.com:acme/website.git');
    expect(body.namespace.web_url).toBe('https://gitlab.example.com/groups/acme');
  });

  it('GET /projects/:id: the cached JSON follows a group rename', async () => {
    const fx2 = projectsFx();
    await call(fx2, 'GET', '/api/v4/projects/1');
    const g = tget(fx2.state.groups, 8)!;
    fx2.restore({
      state: { ...fx2.state, groups: replaceGroup(fx2.state.groups, { ...g, name: 'Acme Corp' }) },
      clock: fx2.clock.ms(),
    });
    const body = await json(await call(fx2, 'GET', '/api/v4/projects/1'));
    expect(body.name_with_namespace).toBe('Acme Corp / Website');
    expect(body.namespace.name).toBe('Acme Corp');
  });
});

describe('per-viewer renderings', () => {
  const auth = (token: string) => ({ token });

  it('GET /projects/:id: a repeated read follows a membership added in between (permissions)', async () => {
    const fx2 = projectsFx();
    const first = await json(await call(fx2, 'GET', '/api/v4/projects/1', auth('frank-api')));
    expect(first.permissions).toEqual({ project_access: null, group_access: null });
    const add = await call(fx2, 'POST', '/api/v4/projects/1/members', {
      ...auth('root-api'),
      body: { user_id: 7, access_level: 30 },
    });
    expect(add.status).toBe(201);
    const again = await json(await call(fx2, 'GET', '/api/v4/projects/1', auth('frank-api')));
    expect(again.permissions).toEqual({
      project_access: { access_level: 30, notification_level: 3 },
      group_access: null,
    });
  });

  it('GET /projects: the same page read by two viewers in turn is each one’s own', async () => {
    const fx2 = projectsFx();
    const page = async (token: string) =>
      (await json(await call(fx2, 'GET', '/api/v4/projects?order_by=id&sort=asc', auth(token)))) as {
        id: number;
        permissions: unknown;
      }[];
    for (let round = 0; round < 2; round++) {
      const asAlice = await page('alice-api');
      const asFrank = await page('frank-api');
      expect(asAlice.find((p) => p.id === 1)!.permissions).toEqual({
        project_access: null,
        group_access: { access_level: 50, notification_level: 3 },
      });
      expect(asFrank.find((p) => p.id === 1)!.permissions).toEqual({
        project_access: null,
        group_access: null,
      });
    }
  });

  it('GET /projects: a repeated page follows a rename of the owner of a personal namespace', async () => {
    const fx2 = projectsFx();
    const page = async () =>
      (await json(await call(fx2, 'GET', '/api/v4/projects?order_by=id&sort=asc', auth('root-api')))) as {
        path_with_namespace: string;
        namespace: { name: string };
        owner?: { name: string };
      }[];
    const notes = (list: Awaited<ReturnType<typeof page>>) =>
      list.find((p) => p.path_with_namespace === 'bob/notes')!;
    expect(notes(await page()).owner!.name).toBe('Bob Builder');
    const rename = await call(fx2, 'PUT', '/api/v4/users/3', {
      ...auth('root-api'),
      body: { name: 'Robert Builder' },
    });
    expect(rename.status).toBe(200);
    const again = notes(await page());
    expect(again.owner!.name).toBe('Robert Builder');
    expect(again.namespace.name).toBe('Robert Builder');
  });

  it('GET /projects/:id: a repeated read follows a share added in between (shared_with_groups)', async () => {
    const fx2 = projectsFx();
    expect(
      (await json(await call(fx2, 'GET', '/api/v4/projects/1', auth('root-api')))).shared_with_groups,
    ).toEqual([]);
    const share = await call(fx2, 'POST', '/api/v4/projects/1/share', {
      ...auth('root-api'),
      body: { group_id: 10, group_access: 20 },
    });
    expect(share.status).toBe(201);
    const again = await json(await call(fx2, 'GET', '/api/v4/projects/1', auth('root-api')));
    expect(again.shared_with_groups).toEqual([
      expect.objectContaining({ group_id: 10, group_full_path: 'partners', group_access_level: 20 }),
    ]);
  });

  it('GET /projects/:id: a repeated read follows a change to the viewer itself (made an admin)', async () => {
    const fx2 = projectsFx();
    const as = async () => json(await call(fx2, 'GET', '/api/v4/projects/1', auth('alice-api')));
    expect(await as()).not.toHaveProperty('repository_storage');
    const promote = await call(fx2, 'PUT', '/api/v4/users/2', { ...auth('root-api'), body: { admin: true } });
    expect(promote.status).toBe(200);
    expect((await as()).repository_storage).toBe('default');
  });
});

describe('projectEntity', () => {
  it('projectEntity: renders the shape asked for, for the request viewer', async () => {
    const fx2 = projectsFx({
      routes: (r) =>
        r.get('/test/entity/:id', (c) => {
          const p = tget(c.get('fx').store.state.projects, Number(c.req.param('id')))!;
          return c.json({
            basic: Object.keys(projectEntity(c, p, { shape: 'basic' })).length,
            full: projectEntity(c, p),
            stats: projectEntity(c, p, { statistics: true }).statistics,
          });
        }),
    });
    const body = await json(await call(fx2, 'GET', '/api/v4/test/entity/1', { token: 'alice-api' }));
    expect(body.basic).toBe(18);
    expect(Object.keys(body.full)).toEqual(FULL_KEYS);
    expect(body.stats).toBeDefined();
  });

  it('createProject: records carry the platform defaults', () => {
    const p = tget(fx.state.projects, 1)! as Record<string, unknown>;
    for (const [k, v] of Object.entries(PROJECT_DEFAULTS)) expect([k, p[k]]).toEqual([k, v]);
  });
});

/** A copy of `table` with `g` in its place, the table itself left as it is (it is frozen). */
function replaceGroup<T extends { id: number }>(table: Table<T>, g: T): Table<T> {
  return produce(table, (d) => tset(d as Table<T>, g.id, g));
}
