import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { Minor } from '../../../src/core/versions.js';
import { APP, SITE, call, repoWorld, world } from './world.js';

describe('branches', () => {
  it('GET /projects/:id/repository/branches: the default branch of a never written project, with its initial commit', async () => {
    const fx = world();
    const res = await call(fx, 'GET', `${APP}/repository/branches`, 'rep');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('1');
    const [b] = res.body;
    expect(Object.keys(b)).toEqual([
      'name',
      'commit',
      'merged',
      'protected',
      'developers_can_push',
      'developers_can_merge',
      'can_push',
      'default',
      'web_url',
    ]);
    expect(b).toMatchObject({
      name: 'master',
      merged: false,
      protected: false,
      can_push: false,
      default: true,
    });
    expect(b.commit.id).toMatch(/^[0-9a-f]{40}$/);
    expect(b.commit).toMatchObject({
      title: 'Initial commit',
      parent_ids: [],
      committed_date: '2021-01-01T00:00:00.000+00:00',
    });
    expect(b.web_url).toBe('http://localhost/acme/app/-/tree/master');
    // The same id on every read and in a second instance built from the same scenario.
    const again = await call(world(), 'GET', `${APP}/repository/branches/master`, 'rep');
    expect(again.body.commit.id).toBe(b.commit.id);
  });

  it('POST /projects/:id/repository/branches: 201 from a branch, a sha or a tag; can_push for a developer', async () => {
    const fx = world();
    const master = (await call(fx, 'GET', `${APP}/repository/branches/master`, 'dev')).body.commit.id;
    const a = await call(fx, 'POST', `${APP}/repository/branches`, 'dev', {
      branch: 'feature',
      ref: 'master',
    });
    expect([a.status, a.body.name, a.body.commit.id, a.body.can_push, a.body.default]).toEqual([
      201,
      'feature',
      master,
      true,
      false,
    ]);
    const b = await call(fx, 'POST', `${APP}/repository/branches`, 'dev', {
      branch: 'from-sha',
      ref: master.slice(0, 8),
    });
    expect([b.status, b.body.commit.id]).toEqual([201, master]);
    const list = await call(fx, 'GET', `${APP}/repository/branches?search=fe`, 'dev');
    expect(list.body.map((x: { name: string }) => x.name)).toEqual(['feature']);
  });

  it("POST /projects/:id/repository/branches: the platform's errors", async () => {
    const fx = world();
    const post = (branch: string, ref: string, token = 'dev') =>
      call(fx, 'POST', `${APP}/repository/branches`, token, { branch, ref });
    expect((await post('master', 'master')).body).toEqual({ message: 'Branch already exists' });
    expect(await post('bad..name', 'master')).toMatchObject({
      status: 400,
      body: { message: 'Branch name is invalid' },
    });
    expect(await post('x', 'nope')).toMatchObject({
      status: 400,
      body: { message: 'Invalid reference name: nope' },
    });
    expect((await post('x', 'master', 'rep')).status).toBe(403);
    expect((await call(fx, 'POST', `${APP}/repository/branches`, 'dev', { branch: 'x' })).body).toEqual({
      error: 'ref is missing',
    });
  });

  it('GET /projects/:id/repository/branches/:branch: 404 Branch Not Found; names with a slash URL-encoded', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${APP}/repository/branches/nope`, 'rep')).body).toEqual({
      message: '404 Branch Not Found',
    });
    await call(fx, 'POST', `${APP}/repository/branches`, 'dev', { branch: 'feat/login', ref: 'master' });
    expect((await call(fx, 'GET', `${APP}/repository/branches/feat%2Flogin`, 'rep')).body.name).toBe(
      'feat/login',
    );
  });

  it('GET /projects/:id/repository/branches: guests of a private project 403, non-members 404, a disabled repository 404', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${APP}/repository/branches`, 'guest')).status).toBe(403);
    expect((await call(fx, 'GET', `${APP}/repository/branches`, 'outsider')).body).toEqual({
      message: '404 Project Not Found',
    });
    expect((await call(fx, 'GET', `${SITE}/repository/branches`)).status).toBe(200);
    expect((await call(fx, 'GET', `/projects/acme%2Fclosed/repository/branches`, 'outsider')).body).toEqual({
      message: '404 Repository Not Found',
    });
  });

  it('DELETE /projects/:id/repository/branches/:branch: 204; the default branch and a protected one refused', async () => {
    const fx = world();
    await call(fx, 'POST', `${APP}/repository/branches`, 'dev', { branch: 'feature', ref: 'master' });
    expect((await call(fx, 'DELETE', `${APP}/repository/branches/master`, 'owner')).body).toEqual({
      message: 'The default branch of a project cannot be deleted.',
    });
    await call(fx, 'POST', `${APP}/protected_branches`, 'maint', { name: 'feat*' });
    const refused = await call(fx, 'DELETE', `${APP}/repository/branches/feature`, 'dev');
    expect([refused.status, refused.body.message]).toEqual([
      400,
      'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
    ]);
    expect((await call(fx, 'DELETE', `${APP}/repository/branches/feature`, 'maint')).status).toBe(204);
    expect((await call(fx, 'GET', `${APP}/repository/branches/feature`, 'maint')).status).toBe(404);
    // The default branch stays after the first write.
    expect(
      (await call(fx, 'GET', `${APP}/repository/branches`, 'maint')).body.map(
        (b: { name: string }) => b.name,
      ),
    ).toEqual(['master']);
  });

  it('DELETE /projects/:id/repository/merged_branches: 202; merged, unprotected branches go', async () => {
    const fx = world();
    const { commitFiles } = await import('./world.js');
    await call(fx, 'POST', `${APP}/repository/branches`, 'dev', { branch: 'old', ref: 'master' });
    await commitFiles(fx, { 'a.txt': 'a\n' });
    await call(fx, 'POST', `${APP}/repository/branches`, 'dev', { branch: 'same', ref: 'master' });
    const res = await call(fx, 'DELETE', `${APP}/repository/merged_branches`, 'dev');
    expect([res.status, res.body]).toEqual([202, { message: '202 Accepted' }]);
    const names = (await call(fx, 'GET', `${APP}/repository/branches`, 'dev')).body.map(
      (b: { name: string }) => b.name,
    );
    expect(names).toEqual(['master', 'same']);
  });
});

describe('protected branches', () => {
  it('POST /projects/:id/protected_branches: 201 with access levels; 409 when protected already; maintainers only', async () => {
    const fx = world();
    const res = await call(fx, 'POST', `${APP}/protected_branches`, 'maint', {
      name: 'master',
      push_access_level: 0,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'master',
      push_access_levels: [{ access_level: 0, access_level_description: 'No one' }],
      merge_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }],
      allow_force_push: false,
    });
    expect(await call(fx, 'POST', `${APP}/protected_branches`, 'maint', { name: 'master' })).toMatchObject({
      status: 409,
      body: { message: "Protected branch 'master' already exists" },
    });
    expect((await call(fx, 'POST', `${APP}/protected_branches`, 'dev', { name: 'x' })).status).toBe(403);
    expect(
      (await call(fx, 'POST', `${APP}/protected_branches`, 'maint', { name: 'x', push_access_level: 10 }))
        .body,
    ).toEqual({
      error: 'push_access_level does not have a valid value',
    });
    const b = await call(fx, 'GET', `${APP}/repository/branches/master`, 'maint');
    expect(b.body).toMatchObject({ protected: true, developers_can_push: false, can_push: false });
    const admin = await call(fx, 'GET', `${APP}/repository/branches/master`, 'root');
    expect(admin.body.can_push).toBe(true);
  });

  it('GET/DELETE /projects/:id/protected_branches/:name: list, get, unprotect; 404 Not found', async () => {
    const fx = world();
    await call(fx, 'POST', `${APP}/protected_branches`, 'maint', {
      name: 'release/*',
      push_access_level: 30,
    });
    expect(
      (await call(fx, 'GET', `${APP}/protected_branches`, 'maint')).body.map((x: { name: string }) => x.name),
    ).toEqual(['release/*']);
    expect((await call(fx, 'GET', `${APP}/protected_branches/release%2F*`, 'maint')).body.name).toBe(
      'release/*',
    );
    expect((await call(fx, 'GET', `${APP}/protected_branches/nope`, 'maint')).body).toEqual({
      message: '404 Not found',
    });
    expect((await call(fx, 'DELETE', `${APP}/protected_branches/release%2F*`, 'maint')).status).toBe(204);
    expect((await call(fx, 'GET', `${APP}/protected_branches`, 'maint')).body).toEqual([]);
  });

  it('PUT /projects/:id/repository/branches/:branch/protect and /unprotect: developers_can_push and _merge', async () => {
    const fx = world();
    const res = await call(fx, 'PUT', `${APP}/repository/branches/master/protect`, 'maint', {
      developers_can_push: true,
    });
    expect(res.body).toMatchObject({
      protected: true,
      developers_can_push: true,
      developers_can_merge: false,
    });
    expect((await call(fx, 'GET', `${APP}/repository/branches/master`, 'dev')).body.can_push).toBe(true);
    const un = await call(fx, 'PUT', `${APP}/repository/branches/master/unprotect`, 'maint');
    expect(un.body).toMatchObject({ protected: false, developers_can_push: false });
    expect((await call(fx, 'PUT', `${APP}/repository/branches/master/protect`, 'dev')).status).toBe(403);
  });
});

describe('repository state', () => {
  it('a state file carries the objects: another instance restored from its JSON serves the same files and ids', async () => {
    const { commitFiles } = await import('./world.js');
    const fx = world();
    const c = await commitFiles(fx, { 'kept.txt': 'kept\n' });
    const text = JSON.stringify(fx.snapshot());
    const other = world();
    other.restore(JSON.parse(text));
    const file = await call(other, 'GET', `${APP}/repository/files/kept.txt?ref=master`, 'rep');
    expect([file.status, file.body.commit_id, Buffer.from(file.body.content, 'base64').toString()]).toEqual([
      200,
      c.id,
      'kept\n',
    ]);
    // A write after the restore is carried by the next save too.
    const d = await commitFiles(other, { 'more.txt': 'more\n' });
    const third = world();
    third.restore(JSON.parse(JSON.stringify(other.snapshot())));
    expect((await call(third, 'GET', `${APP}/repository/commits/${d.id}`, 'rep')).body.parent_ids).toEqual([
      c.id,
    ]);
  });

  it('reset: the branches go back to the loaded world', async () => {
    const { commitFiles } = await import('./world.js');
    const fx = world();
    const before = (await call(fx, 'GET', `${APP}/repository/branches/master`, 'rep')).body.commit.id;
    await commitFiles(fx, { 'gone.txt': 'x' });
    fx.reset();
    expect((await call(fx, 'GET', `${APP}/repository/branches/master`, 'rep')).body.commit.id).toBe(before);
    expect((await call(fx, 'GET', `${APP}/repository/files/gone.txt?ref=master`, 'rep')).status).toBe(404);
  });
});

describe('forks', () => {
  it("POST /projects/:id/fork: the fork has the source's branches and tags at the same commits", async () => {
    const { commitFiles } = await import('./world.js');
    const fx = world();
    await commitFiles(fx, { 'site.txt': 'site\n' }, { project: SITE });
    await call(fx, 'POST', `${SITE}/repository/tags`, 'owner', { tag_name: 'v1', ref: 'master' });
    const fork = await call(fx, 'POST', `${SITE}/fork`, 'outsider');
    expect(fork.status).toBe(201);
    const heads = async (path: string) =>
      (await call(fx, 'GET', `${path}/repository/branches`, 'outsider')).body.map(
        (b: { name: string; commit: { id: string } }) => `${b.name} ${b.commit.id}`,
      );
    expect(await heads(`/projects/${fork.body.id}`)).toEqual(await heads(SITE));
    const tags = await call(fx, 'GET', `/projects/${fork.body.id}/repository/tags`, 'outsider');
    expect(tags.body.map((t: { name: string }) => t.name)).toEqual(['v1']);
    // The fork moves on its own.
    await commitFiles(fx, { 'mine.txt': 'x' }, { project: `/projects/${fork.body.id}`, token: 'outsider' });
    expect(await heads(`/projects/${fork.body.id}`)).not.toEqual(await heads(SITE));
  });
});

describe('a branch created in an empty repository (Branches::CreateService#create_default_branch)', () => {
  const at = (version: Minor) => createFauxlab({ scenario: repoWorld, version });

  for (const [version, main] of [
    ['13.12', 'master'],
    ['15.4', 'main'],
  ] as const)
    it(`at ${version}: an empty README.md ("Add README.md", by the user) on ${main} first, then the branch from it`, async () => {
      const fx = at(version);
      const created = await call(fx, 'POST', '/projects', 'dev', { name: 'empty' });
      const id = created.body.id as number;
      expect(created.body.empty_repo).toBe(true);
      // The ref names the default branch the README is about to make (python-gitlab's functional tests).
      const res = await call(fx, 'POST', `/projects/${id}/repository/branches`, 'dev', {
        branch: 'rc1.0',
        ref: main,
      });
      expect([res.status, res.body.name, res.body.default]).toEqual([201, 'rc1.0', false]);
      const head = (await call(fx, 'GET', `/projects/${id}/repository/branches/${main}`, 'dev')).body;
      expect(head.default).toBe(true);
      expect(head.commit).toMatchObject({
        id: res.body.commit.id,
        title: 'Add README.md',
        message: 'Add README.md',
        parent_ids: [],
        author_name: 'Dev User',
        committer_name: 'Dev User',
      });
      const tree = await call(fx, 'GET', `/projects/${id}/repository/tree`, 'dev');
      expect(tree.body.map((e: { path: string }) => e.path)).toEqual(['README.md']);
      const raw = await fx.app.request(`/api/v4/projects/${id}/repository/files/README.md/raw?ref=${main}`, {
        headers: { 'PRIVATE-TOKEN': 'dev' },
      });
      expect([raw.status, await raw.text()]).toEqual([200, '']);
      const project = await call(fx, 'GET', `/projects/${id}`, 'dev');
      expect([project.body.default_branch, project.body.empty_repo]).toEqual([main, false]);
    });

  it('the README commit stays when the branch is then refused (its own UserCommitFiles)', async () => {
    const fx = at('13.12');
    const id = (await call(fx, 'POST', '/projects', 'dev', { name: 'empty' })).body.id as number;
    const res = await call(fx, 'POST', `/projects/${id}/repository/branches`, 'dev', {
      branch: 'x',
      ref: 'nope',
    });
    expect([res.status, res.body]).toEqual([400, { message: 'Invalid reference name: nope' }]);
    const branches = await call(fx, 'GET', `/projects/${id}/repository/branches`, 'dev');
    expect(branches.body.map((b: { name: string }) => b.name)).toEqual(['master']);
    // One who may not push is refused before anything is written.
    const other = (await call(fx, 'POST', '/projects', 'owner', { name: 'other', visibility: 'public' })).body
      .id as number;
    const refused = await call(fx, 'POST', `/projects/${other}/repository/branches`, 'rep', {
      branch: 'y',
      ref: 'master',
    });
    expect(refused.status).toBe(403);
    expect((await call(fx, 'GET', `/projects/${other}`, 'owner')).body.empty_repo).toBe(true);
  });
});
