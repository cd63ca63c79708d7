/**
 * Protected tags (`lib/api/protected_tags.rb`): the rules' API for maintainers, and what the rules
 * guard (`Gitlab::Checks::TagCheck`): tag creation and deletion through the tags API, and `git push` of
 * tags, refused in the platform's words for who may not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../../src/index.js';
import { ientries, tvalues } from '../../../src/core/table.js';
import { exportScenario } from '../../../src/scenario/export.js';
import { localServers } from '../../helpers.js';
import { hasGit, runGit } from '../git_http/run-git.js';
import { APP, call, repoWorld, world } from '../repository/world.js';

const RULES = `${APP}/protected_tags`;
const TAGS = `${APP}/repository/tags`;

const level = (access_level: number, access_level_description: string) => [
  { access_level, access_level_description, user_id: null, group_id: null },
];

describe('protected tags API', () => {
  it('POST, GET one, GET the list and DELETE: Entities::ProtectedTag, defaults to maintainers', async () => {
    const fx = world();
    const made = await call(fx, 'POST', RULES, 'maint', { name: 'v*' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ name: 'v*', create_access_levels: level(40, 'Maintainers') });
    const dev = await call(fx, 'POST', RULES, 'maint', { name: 'release-1', create_access_level: 30 });
    expect(dev.body.create_access_levels).toEqual(level(30, 'Developers + Maintainers'));
    const none = await call(fx, 'POST', RULES, 'owner', { name: 'frozen', create_access_level: '0' });
    expect(none.body.create_access_levels).toEqual(level(0, 'No one'));

    const list = await call(fx, 'GET', RULES, 'maint');
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe('3');
    expect(list.body.map((r: { name: string }) => r.name)).toEqual(['v*', 'release-1', 'frozen']);
    // A wildcard is found by its own text, not by what it matches.
    expect((await call(fx, 'GET', `${RULES}/v*`, 'maint')).body.name).toBe('v*');
    expect((await call(fx, 'GET', `${RULES}/v1`, 'maint')).body).toEqual({ message: '404 Not found' });
    // `TAG_ENDPOINT_REQUIREMENTS`: a `.json` suffix is part of the name.
    await call(fx, 'POST', RULES, 'maint', { name: 'v2.json' });
    expect((await call(fx, 'GET', `${RULES}/v2.json`, 'maint')).body.name).toBe('v2.json');

    expect((await call(fx, 'DELETE', `${RULES}/release-1`, 'maint')).status).toBe(204);
    expect((await call(fx, 'DELETE', `${RULES}/release-1`, 'maint')).body).toEqual({
      message: '404 Not found',
    });
    expect((await call(fx, 'GET', RULES, 'maint')).body.map((r: { name: string }) => r.name)).toEqual([
      'v*',
      'frozen',
      'v2.json',
    ]);
  });

  it("the platform's refusals: 422 for a taken or blank name, 400 for an unknown level, 403 below maintainers", async () => {
    const fx = world();
    await call(fx, 'POST', RULES, 'maint', { name: 'v*' });
    expect(await call(fx, 'POST', RULES, 'maint', { name: 'v*' })).toMatchObject({
      status: 422,
      body: { message: ['Name has already been taken'] },
    });
    expect(await call(fx, 'POST', RULES, 'maint', { name: '' })).toMatchObject({
      status: 422,
      body: { message: ["Name can't be blank"] },
    });
    expect(await call(fx, 'POST', RULES, 'maint', { name: 'x', create_access_level: 20 })).toMatchObject({
      status: 400,
      body: { error: 'create_access_level does not have a valid value' },
    });
    expect(await call(fx, 'POST', RULES, 'maint', {})).toMatchObject({
      status: 400,
      body: { error: 'name is missing' },
    });
    for (const token of ['dev', 'rep', 'guest']) {
      expect((await call(fx, 'GET', RULES, token)).status).toBe(403);
      expect((await call(fx, 'GET', `${RULES}/v*`, token)).status).toBe(403);
      expect((await call(fx, 'POST', RULES, token, { name: 'w*' })).status).toBe(403);
      expect((await call(fx, 'DELETE', `${RULES}/v*`, token)).status).toBe(403);
    }
    // The project is private: an outsider does not see it.
    expect(await call(fx, 'GET', RULES, 'outsider')).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    expect((await call(fx, 'GET', RULES)).status).toBe(404);
    expect((await call(fx, 'GET', RULES, 'root')).status).toBe(200);
    // Refused requests changed nothing.
    expect((await call(fx, 'GET', RULES, 'maint')).body.map((r: { name: string }) => r.name)).toEqual(['v*']);
  });

  it('DELETE honours If-Unmodified-Since (destroy_conditionally!)', async () => {
    const fx = world();
    await call(fx, 'POST', RULES, 'maint', { name: 'v*' });
    const res = await fx.fetch(
      new Request(`http://localhost/api/v4${RULES}/v*`, {
        method: 'DELETE',
        headers: { 'PRIVATE-TOKEN': 'maint', 'If-Unmodified-Since': 'Mon, 01 Mar 2021 11:00:00 GMT' },
      }),
    );
    expect(res.status).toBe(412);
    expect((await call(fx, 'GET', `${RULES}/v*`, 'maint')).status).toBe(200);
  });

  it('the rules go with their project', async () => {
    const fx = world();
    await call(fx, 'POST', RULES, 'maint', { name: 'v*' });
    expect((await call(fx, 'DELETE', APP, 'owner')).status).toBe(202);
    expect(tvalues(fx.state.protected_tags.records)).toEqual([]);
    expect([...ientries(fx.state.protected_tags.idx.byProject)]).toEqual([]);
  });
});

describe('what a protected tag guards through the tags API', () => {
  it("Entities::Tag's `protected` follows the rules, wildcards included", async () => {
    const fx = world();
    await call(fx, 'POST', TAGS, 'dev', { tag_name: 'v1.0', ref: 'master' });
    await call(fx, 'POST', TAGS, 'dev', { tag_name: 'nightly', ref: 'master' });
    expect((await call(fx, 'GET', `${TAGS}/v1.0`, 'dev')).body.protected).toBe(false);
    await call(fx, 'POST', RULES, 'maint', { name: 'v*' });
    expect((await call(fx, 'GET', `${TAGS}/v1.0`, 'dev')).body.protected).toBe(true);
    const list = (await call(fx, 'GET', `${TAGS}?order_by=name&sort=asc`, 'dev')).body;
    expect(list.map((t: { name: string; protected: boolean }) => [t.name, t.protected])).toEqual([
      ['nightly', false],
      ['v1.0', true],
    ]);
  });

  it("POST /repository/tags of a protected name: 400 in TagCheck's words for who may not create it", async () => {
    const fx = world();
    await call(fx, 'POST', RULES, 'maint', { name: 'v*' });
    await call(fx, 'POST', RULES, 'maint', { name: 'dev-*', create_access_level: 30 });
    await call(fx, 'POST', RULES, 'maint', { name: 'frozen', create_access_level: 0 });
    const refused = await call(fx, 'POST', TAGS, 'dev', { tag_name: 'v1.0', ref: 'master' });
    expect(refused).toMatchObject({
      status: 400,
      body: { message: 'You are not allowed to create this tag as it is protected.' },
    });
    expect((await call(fx, 'GET', `${TAGS}/v1.0`, 'dev')).status).toBe(404);
    // Developers may create what a developers' rule guards, and anything unprotected.
    expect((await call(fx, 'POST', TAGS, 'dev', { tag_name: 'dev-1', ref: 'master' })).status).toBe(201);
    expect((await call(fx, 'POST', TAGS, 'dev', { tag_name: 'x1', ref: 'master' })).status).toBe(201);
    // Maintainers (and administrators) create the maintainers' tags.
    const made = await call(fx, 'POST', TAGS, 'maint', { tag_name: 'v1.0', ref: 'master' });
    expect(made.status).toBe(201);
    expect(made.body.protected).toBe(true);
    expect((await call(fx, 'POST', TAGS, 'root', { tag_name: 'v1.1', ref: 'master' })).status).toBe(201);
    // "No one": administrators included (`ProtectedTag::CreateAccessLevel#check_access`).
    for (const token of ['maint', 'owner', 'root'])
      expect((await call(fx, 'POST', TAGS, token, { tag_name: 'frozen', ref: 'master' })).body).toEqual({
        message: 'You are not allowed to create this tag as it is protected.',
      });
  });

  it('DELETE /repository/tags of a protected tag: 400 Protected tags cannot be deleted, for maintainers too', async () => {
    const fx = world();
    await call(fx, 'POST', TAGS, 'maint', { tag_name: 'v1.0', ref: 'master', release_description: 'One' });
    await call(fx, 'POST', RULES, 'maint', { name: 'v*' });
    for (const token of ['dev', 'maint', 'root'])
      expect(await call(fx, 'DELETE', `${TAGS}/v1.0`, token)).toMatchObject({
        status: 400,
        body: { message: 'Protected tags cannot be deleted.' },
      });
    expect((await call(fx, 'GET', `${TAGS}/v1.0`, 'dev')).body.release).toEqual({
      tag_name: 'v1.0',
      description: 'One',
    });
    // Unprotected, the tag goes.
    await call(fx, 'DELETE', `${RULES}/v*`, 'maint');
    expect((await call(fx, 'DELETE', `${TAGS}/v1.0`, 'dev')).status).toBe(204);
  });

  it('a scenario carries the rules, and an export loads into the same rules', async () => {
    const fx = createFauxlab({
      scenario: {
        ...repoWorld,
        projects: [
          {
            ...repoWorld.projects![0]!,
            protected_tags: [{ name: 'v*' }, { name: 'rc-*', create_access_level: 30 }],
          },
          ...repoWorld.projects!.slice(1),
        ],
      },
    });
    const rules = (await call(fx, 'GET', RULES, 'maint')).body;
    expect(rules).toEqual([
      { name: 'v*', create_access_levels: level(40, 'Maintainers') },
      { name: 'rc-*', create_access_levels: level(30, 'Developers + Maintainers') },
    ]);
    const again = createFauxlab({ scenario: exportScenario(fx.state, { now: fx.clock.iso() }) });
    expect((await call(again, 'GET', RULES, 'maint')).body).toEqual(rules);
    expect(() =>
      createFauxlab({
        scenario: {
          ...repoWorld,
          projects: [{ ...repoWorld.projects![0]!, protected_tags: [{ name: 'v*' }, { name: 'v*' }] }],
        },
      }),
    ).toThrow(/protected_tags\[1\]\.name: has already been taken/);
  });
});

describe.skipIf(!hasGit)('what a protected tag guards on git push', () => {
  let fx: Fauxlab;
  let base: string;
  let home: string;
  const listen = localServers();
  const git = (args: string[], cwd = home) => runGit(home, args, cwd);
  const remote = (user: string) => `${base.replace('http://', `http://${user}:${user}@`)}/acme/app.git`;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'fauxlab-protected-tags-'));
    fx = world();
    base = await listen(fx.fetch);
    await call(fx, 'POST', TAGS, 'maint', { tag_name: 'v1.0', ref: 'master' });
    await call(fx, 'POST', TAGS, 'maint', { tag_name: 'plain', ref: 'master' });
    await call(fx, 'POST', RULES, 'maint', { name: 'v*' });
    expect((await git(['clone', '-q', remote('dev'), 'work'])).code).toBe(0);
    const work = join(home, 'work');
    await git(['commit', '-q', '--allow-empty', '-m', 'Next'], work);
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("a developer's new protected tag is declined: You are not allowed to create this tag as it is protected.", async () => {
    const work = join(home, 'work');
    await git(['tag', 'v2.0'], work);
    const r = await git(['push', remote('dev'), 'v2.0'], work);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('remote: GitLab: You are not allowed to create this tag as it is protected.');
    expect(r.stderr).toContain('! [remote rejected] v2.0 -> v2.0 (pre-receive hook declined)');
    expect((await call(fx, 'GET', `${TAGS}/v2.0`, 'dev')).status).toBe(404);
    // A maintainer's is accepted.
    const ok = await git(['push', remote('maint'), 'v2.0'], work);
    expect(ok.code).toBe(0);
    expect((await call(fx, 'GET', `${TAGS}/v2.0`, 'dev')).body.protected).toBe(true);
  });

  it('moving or deleting a protected tag is declined for maintainers too', async () => {
    const work = join(home, 'work');
    await git(['tag', '-f', 'v1.0'], work);
    const moved = await git(['push', '--force', remote('maint'), 'v1.0'], work);
    expect(moved.code).not.toBe(0);
    expect(moved.stderr).toContain('remote: GitLab: Protected tags cannot be updated.');
    const gone = await git(['push', remote('maint'), ':refs/tags/v1.0'], work);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('remote: GitLab: Protected tags cannot be deleted.');
    expect((await call(fx, 'GET', `${TAGS}/v1.0`, 'dev')).status).toBe(200);
  });

  it('an unprotected tag is changed by developers (admin_tag is push_code)', async () => {
    const work = join(home, 'work');
    await git(['tag', '-f', 'plain'], work);
    const moved = await git(['push', '--force', remote('dev'), 'plain'], work);
    expect(moved.code).toBe(0);
    const head = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    expect((await call(fx, 'GET', `${TAGS}/plain`, 'dev')).body.commit.id).toBe(head);
    expect((await git(['push', remote('dev'), ':refs/tags/plain'], work)).code).toBe(0);
    expect((await call(fx, 'GET', `${TAGS}/plain`, 'dev')).status).toBe(404);
  });
});
