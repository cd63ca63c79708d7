import { describe, expect, it } from 'vitest';
import { tvalues } from '../../../src/core/table.js';
import { createFauxlab, type FauxlabOptions } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { body, call, send, setupWorld, sshKey, type Fx } from './world.js';

/** The set-up world with more of everything a client's suite leaves behind, and generated records. */
const busyWorld: ScenarioFile = {
  ...setupWorld,
  groups: [...setupWorld.groups!, { path: 'acme/sub', visibility: 'internal' }],
  projects: [
    {
      ...setupWorld.projects![0]!,
      members: [{ username: 'outsider', access_level: 'reporter' }],
      starred_by: ['dev'],
      labels: [{ name: 'bug' }],
      milestones: [{ title: 'v1' }],
      issues: [
        {
          title: 'Broken',
          author: 'dev',
          labels: ['bug'],
          milestone: 'v1',
          notes: [{ body: 'Confirmed', author: 'maint' }],
          award_emoji: [{ name: 'thumbsup', user: 'outsider' }],
        },
      ],
      merge_requests: [{ title: 'Fix', source_branch: 'fix', author: 'dev' }],
      snippets: [{ title: 'Project snippet', author: 'dev', content: 'x' }],
      branches: ['fix'],
      variables: [{ key: 'APP_VAR', value: 'v' }],
      pipelines: [{ ref: 'master', status: 'success', user: 'dev' }],
    },
    ...setupWorld.projects!.slice(1),
    {
      path: 'acme/sub/lib',
      visibility: 'public',
      shared_with: [{ group: 'acme', group_access: 'developer' }],
    },
  ],
  snippets: [{ author: 'dev', title: 'Personal', content: 'hello', visibility: 'public' }],
  generate: { users: 6, groups: 3, projects: 8, issues_per_project: 2, merge_requests_per_project: 1 },
};

const fresh = (o: FauxlabOptions = {}) => createFauxlab({ scenario: busyWorld, ...o });

/** Every item of a list, following the Link header's `rel="next"` as clients do. */
async function listAll(fx: Fx, path: string, token = 'root'): Promise<any[]> {
  const out: any[] = [];
  let url: string | null = `/api/v4${path}${path.includes('?') ? '&' : '?'}per_page=100`;
  while (url) {
    const res = await call(fx, 'GET', url, token);
    expect(res.status, url).toBe(200);
    out.push(...(await body(res)));
    const next = /<([^>]+)>; rel="next"/.exec(res.headers.get('Link') ?? '')?.[1];
    url = next ? new URL(next).pathname + new URL(next).search : null;
  }
  return out;
}

describe('tear-down through the API', () => {
  it('tear-down: delete every project, group, topic, instance variable and non-admin user; each list is then empty', async () => {
    // At 14.9, the first release with the whole Topics API (listing 14.5, deleting 14.9).
    const fx = fresh({ version: '14.9' });
    await send(fx, 'POST', '/user/emails', 'dev', { email: 'dev2@example.com' });
    await send(fx, 'POST', '/user/keys', 'dev', { title: 'k', key: sshKey(1) });
    await send(fx, 'POST', '/groups/acme/milestones', 'owner', { title: 'group ms' });

    const projects = await listAll(fx, '/projects');
    expect(projects.length).toBeGreaterThan(8);
    for (const p of projects)
      expect((await call(fx, 'DELETE', `/projects/${p.id}`, 'root')).status).toBe(202);
    expect(await listAll(fx, '/projects')).toEqual([]);

    const groups = await listAll(fx, '/groups');
    expect(groups.length).toBeGreaterThan(2);
    // A parent takes its subgroups along: those are then unknown.
    for (const g of groups)
      expect([202, 404]).toContain((await call(fx, 'DELETE', `/groups/${g.id}`, 'root')).status);
    expect(await listAll(fx, '/groups')).toEqual([]);

    const topics = await listAll(fx, '/topics');
    expect(topics.length).toBe(4);
    for (const t of topics) expect((await call(fx, 'DELETE', `/topics/${t.id}`, 'root')).status).toBe(204);
    expect(await listAll(fx, '/topics')).toEqual([]);

    const vars = await listAll(fx, '/admin/ci/variables');
    expect(vars.length).toBe(3);
    for (const v of vars)
      expect((await call(fx, 'DELETE', `/admin/ci/variables/${v.key}`, 'root')).status).toBe(204);
    expect(await listAll(fx, '/admin/ci/variables')).toEqual([]);

    const users = await listAll(fx, '/users');
    expect(users.length).toBeGreaterThan(6);
    for (const u of users.filter((x) => !x.is_admin))
      expect((await call(fx, 'DELETE', `/users/${u.id}?hard_delete=true`, 'root')).status).toBe(204);
    expect((await listAll(fx, '/users')).map((u) => u.username)).toEqual(['root']);

    expect(await listAll(fx, '/deploy_tokens')).toEqual([]);
    expect(await listAll(fx, '/snippets/public')).toEqual([]);
    expect(await listAll(fx, '/user/emails')).toEqual([]);

    // Nothing of what was deleted is left behind in the state.
    const st = fx.state;
    const sizes = {
      projects: st.projects.size,
      groups: st.groups.size,
      members: st.members.size,
      stars: st.stars.size,
      shares: st.shares.size,
      variables: st.variables.size,
      pipelines: st.pipelines.size,
      issues: st.issuables.issues.size,
      mergeRequests: st.issuables.mergeRequests.size,
      notes: st.issuables.notes.size,
      milestones: st.issuables.milestones.size,
      labels: st.issuables.labels.size,
      awards: st.issuables.awards.size,
      snippets: st.issuables.snippets.size,
      deployTokens: st.deployTokens.records.size,
      groupVariables: st.ciVariables.group.size,
      emails: st.profile.emails.size,
      keys: st.profile.keys.size,
    };
    expect(Object.entries(sizes).filter(([, n]) => n !== 0)).toEqual([]);
    expect(st.users.size).toBe(1);
  });
});

describe('deleting is real', () => {
  it('DELETE /projects/:id (free tier): 404 at once, gone from the lists, with what belonged to it', async () => {
    const fx = fresh();
    expect((await call(fx, 'DELETE', '/projects/acme%2Fapp', 'owner')).status).toBe(202);
    expect((await send(fx, 'GET', '/projects/acme%2Fapp', 'root')).status).toBe(404);
    expect((await listAll(fx, '/projects')).map((p) => p.path_with_namespace)).not.toContain('acme/app');
    expect((await listAll(fx, '/groups/acme/projects')).map((p) => p.path)).not.toContain('app');
    expect((await send(fx, 'GET', '/projects/1/issues/1', 'root')).status).toBe(404);
    expect((await send(fx, 'GET', '/projects/1/pipelines/1', 'root')).status).toBe(404);
    expect((await send(fx, 'GET', '/projects/1/deploy_tokens', 'root')).status).toBe(404);
    expect((await listAll(fx, '/issues?scope=all')).filter((i) => i.project_id === 1)).toEqual([]);
    expect((await listAll(fx, '/projects?starred=true', 'dev')).map((p) => p.id)).not.toContain(1);
  });

  it('DELETE /groups/:id (free tier): 404 at once, gone from the lists, with its subgroups, projects, milestones and variables', async () => {
    const fx = fresh();
    expect((await send(fx, 'POST', '/groups/acme/milestones', 'owner', { title: 'group ms' })).status).toBe(
      201,
    );
    const groupOwned = () =>
      [...tvalues(fx.state.issuables.milestones), ...tvalues(fx.state.issuables.labels)].filter(
        (r) => r.group_id !== null,
      );
    expect(groupOwned()).toHaveLength(1);
    expect((await call(fx, 'DELETE', '/groups/acme', 'owner')).status).toBe(202);
    expect((await send(fx, 'GET', '/groups/acme', 'root')).status).toBe(404);
    expect((await send(fx, 'GET', '/groups/acme%2Fsub', 'root')).status).toBe(404);
    expect((await send(fx, 'GET', '/projects/acme%2Fsub%2Flib', 'root')).status).toBe(404);
    expect(
      (await listAll(fx, '/groups')).map((g) => g.full_path).filter((p) => p.startsWith('acme')),
    ).toEqual([]);
    expect(
      (await listAll(fx, '/projects')).map((p) => p.path_with_namespace).filter((p) => p.startsWith('acme')),
    ).toEqual([]);
    expect(groupOwned()).toEqual([]);
    expect(fx.state.ciVariables.group.size).toBe(0);
  });

  it('DELETE /groups/:id (paid tiers, no adjourned deletion): its epics go with it', async () => {
    const fx = fresh({ tier: 'premium' });
    fx.load({
      ...busyWorld,
      tier: 'premium',
      settings: { deletion_adjourned_period: 0 },
      epics: [{ group: 'acme', title: 'Epic', author: 'owner', notes: [{ body: 'note', author: 'dev' }] }],
    });
    const epicNotes = () => tvalues(fx.state.issuables.notes).filter((n) => n.noteable_type === 'Epic');
    expect(fx.state.issuables.epics.size).toBe(1);
    expect(epicNotes()).toHaveLength(1);
    expect((await call(fx, 'DELETE', '/groups/acme', 'owner')).status).toBe(202);
    expect((await send(fx, 'GET', '/groups/acme', 'root')).status).toBe(404);
    expect(fx.state.issuables.epics.size).toBe(0);
    expect(epicNotes()).toEqual([]);
  });

  it('DELETE /users/:id without hard_delete: 404 at once, gone from the list, their personal projects too', async () => {
    const fx = fresh();
    expect((await call(fx, 'DELETE', '/users/4', 'root')).status).toBe(204);
    expect((await send(fx, 'GET', '/users/4', 'root')).status).toBe(404);
    expect((await listAll(fx, '/users')).map((u) => u.username)).not.toContain('dev');
    expect((await send(fx, 'GET', '/projects/dev%2Fnotes', 'root')).status).toBe(404);
    expect((await send(fx, 'GET', '/users/4/keys')).status).toBe(404);
  });

  it('DELETE /users/:id with hard_delete: the groups they solely own go too', async () => {
    const fx = fresh();
    expect((await call(fx, 'DELETE', '/users/2?hard_delete=true', 'root')).status).toBe(204);
    expect((await send(fx, 'GET', '/users/2', 'root')).status).toBe(404);
    expect((await send(fx, 'GET', '/groups/acme', 'root')).status).toBe(404);
  });

  it('DELETE /snippets/:id: 404 at once and gone from the lists', async () => {
    const fx = fresh();
    const [snippet] = await listAll(fx, '/snippets/public');
    expect(snippet.title).toBe('Personal');
    expect((await call(fx, 'DELETE', `/snippets/${snippet.id}`, 'dev')).status).toBe(204);
    expect((await send(fx, 'GET', `/snippets/${snippet.id}`, 'dev')).status).toBe(404);
    expect(await listAll(fx, '/snippets/public')).toEqual([]);
    // Their own list keeps only the project snippet they wrote.
    expect((await listAll(fx, '/snippets', 'dev')).map((x) => x.title)).toEqual(['Project snippet']);
  });

  it('DELETE of variables: project, group and instance variables are 404 at once and gone from their lists', async () => {
    const fx = fresh();
    expect((await call(fx, 'DELETE', '/projects/acme%2Fapp/variables/APP_VAR', 'owner')).status).toBe(204);
    expect((await send(fx, 'GET', '/projects/acme%2Fapp/variables/APP_VAR', 'owner')).status).toBe(404);
    expect(await listAll(fx, '/projects/acme%2Fapp/variables', 'owner')).toEqual([]);
    expect((await call(fx, 'DELETE', '/groups/acme/variables/GROUP_TOKEN', 'owner')).status).toBe(204);
    expect((await send(fx, 'GET', '/groups/acme/variables/GROUP_TOKEN', 'owner')).status).toBe(404);
    expect((await call(fx, 'DELETE', '/admin/ci/variables/INSTANCE_URL', 'root')).status).toBe(204);
    expect((await send(fx, 'GET', '/admin/ci/variables/INSTANCE_URL', 'root')).status).toBe(404);
  });
});
