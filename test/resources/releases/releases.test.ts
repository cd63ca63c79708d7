import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { tvalues } from '../../../src/core/table.js';
import { APP, body, call, ciWorld } from '../ci/world.js';

const RELEASES = `${APP}/releases`;

const scenario: ScenarioFile = {
  ...ciWorld,
  projects: [{ ...ciWorld.projects![0]!, milestones: [{ title: 'v1' }, { title: 'v2' }] }],
};
const world = () => createFauxlab({ scenario });
type Fx = ReturnType<typeof world>;

async function release(fx: Fx, fields: Record<string, unknown>, token = 'dev') {
  const res = await call(fx, 'POST', RELEASES, token, fields);
  expect(res.status).toBe(201);
  return body(res);
}

describe('releases', () => {
  it('POST /projects/:id/releases: 201 with the Release entity on an existing tag', async () => {
    const fx = world();
    const rel = await release(fx, {
      tag_name: 'v1.0',
      name: 'First',
      description: 'Notes',
      milestones: ['v1'],
      assets: {
        links: [
          { name: 'bin', url: 'https://dl.example.com/app', filepath: '/bin/app', link_type: 'package' },
        ],
      },
    });
    expect(Object.keys(rel)).toEqual([
      'name',
      'tag_name',
      'description',
      'created_at',
      'released_at',
      'author',
      'commit',
      'upcoming_release',
      'milestones',
      'commit_path',
      'tag_path',
      'assets',
      'evidences',
      '_links',
    ]);
    expect(rel).toMatchObject({
      name: 'First',
      tag_name: 'v1.0',
      description: 'Notes',
      author: { username: 'dev' },
      upcoming_release: false,
      milestones: [{ title: 'v1', issue_stats: { total: 0, closed: 0 } }],
      tag_path: '/acme/app/-/tags/v1.0',
      _links: {
        self: 'http://localhost/acme/app/-/releases/v1.0',
        edit_url: 'http://localhost/acme/app/-/releases/v1.0/edit',
      },
    });
    expect(rel.commit.id).toMatch(/^[0-9a-f]{40}$/);
    expect(rel.commit_path).toBe(`/acme/app/-/commit/${rel.commit.id}`);
    expect(rel.assets.count).toBe(5);
    expect(rel.assets.sources.map((s: { format: string }) => s.format)).toEqual([
      'zip',
      'tar.gz',
      'tar.bz2',
      'tar',
    ]);
    expect(rel.assets.sources[0].url).toBe('http://localhost/acme/app/-/archive/v1.0/app-v1.0.zip');
    expect(rel.assets.links).toEqual([
      {
        id: 1,
        name: 'bin',
        url: 'https://dl.example.com/app',
        direct_asset_url: 'http://localhost/acme/app/-/releases/v1.0/downloads/bin/app',
        external: true,
        link_type: 'package',
      },
    ]);
    expect(rel.evidences).toEqual([
      {
        sha: expect.stringMatching(/^[0-9a-f]{64}$/),
        filepath: 'http://localhost/acme/app/-/releases/v1.0/evidences/1.json',
        collected_at: rel.created_at,
      },
    ]);
  });

  it('GET /projects/:id/releases: milestones carry their issue counts, kept current after writes', async () => {
    const fx = world();
    const ms = await body(await call(fx, 'GET', `${APP}/milestones?title=v1`, 'dev'));
    for (const title of ['a', 'b'])
      await call(fx, 'POST', `${APP}/issues`, 'dev', { title, milestone_id: ms[0].id });
    await release(fx, { tag_name: 'v1.0', description: 'Notes', milestones: ['v1'] });
    const stats = async () =>
      (await body(await call(fx, 'GET', RELEASES, 'dev')))[0].milestones[0].issue_stats;
    expect(await stats()).toEqual({ total: 2, closed: 0 });
    await call(fx, 'PUT', `${APP}/issues/1`, 'dev', { state_event: 'close' });
    expect(await stats()).toEqual({ total: 2, closed: 1 });
  });

  it('POST /projects/:id/releases: a new tag from ref; without ref 422; a bad ref 400; twice 409', async () => {
    const fx = world();
    const noRef = await call(fx, 'POST', RELEASES, 'dev', { tag_name: 'v2.0', description: 'x' });
    expect([noRef.status, await body(noRef)]).toEqual([422, { message: 'Ref is not specified' }]);
    const badRef = await call(fx, 'POST', RELEASES, 'dev', {
      tag_name: 'v2.0',
      description: 'x',
      ref: 'nope',
    });
    expect([badRef.status, await body(badRef)]).toEqual([400, { message: 'Target nope is invalid' }]);
    const rel = await release(fx, { tag_name: 'v2.0', description: 'x', ref: 'master' });
    const tag = await body(await call(fx, 'GET', `${APP}/repository/tags/v2.0`, 'dev'));
    expect(tag.commit.id).toBe(rel.commit.id);
    const again = await call(fx, 'POST', RELEASES, 'dev', { tag_name: 'v2.0', description: 'y' });
    expect([again.status, await body(again)]).toEqual([409, { message: 'Release already exists' }]);
  });

  it('POST /projects/:id/releases: milestones, links and the description are checked; nothing is made', async () => {
    const fx = world();
    const ms = await call(fx, 'POST', RELEASES, 'dev', {
      tag_name: 'v1.0',
      description: 'x',
      milestones: 'v1,v9,v8',
    });
    expect([ms.status, await body(ms)]).toEqual([400, { message: 'Milestone(s) not found: v9, v8' }]);
    const blank = await call(fx, 'POST', RELEASES, 'dev', { tag_name: 'v1.0' });
    expect(await body(blank)).toEqual({ message: "Validation failed: Description can't be blank" });
    const link = await call(fx, 'POST', RELEASES, 'dev', {
      tag_name: 'v3.0',
      ref: 'master',
      description: 'x',
      assets: { links: [{ name: 'a', url: 'ssh://x' }] },
    });
    expect(await body(link)).toEqual({
      message: 'Validation failed: Links url is blocked: Only allowed schemes are http, https, ftp',
    });
    const missing = await call(fx, 'POST', RELEASES, 'dev', {
      tag_name: 'v1.0',
      description: 'x',
      assets: { links: [{ url: 'https://x' }] },
    });
    expect([missing.status, await body(missing)]).toEqual([
      400,
      { error: 'assets[links][0][name] is missing' },
    ]);
    expect(await body(await call(fx, 'GET', RELEASES, 'dev'))).toEqual([]);
    expect((await call(fx, 'GET', `${APP}/repository/tags/v3.0`, 'dev')).status).toBe(404);
  });

  it('GET /projects/:id/releases/:tag_name: 403 for a release that does not exist, and for a guest of a private project', async () => {
    const fx = world();
    await release(fx, { tag_name: 'v1.0', description: 'Notes' });
    const missing = await call(fx, 'GET', `${RELEASES}/v9`, 'dev');
    expect([missing.status, await body(missing)]).toEqual([403, { message: '403 Forbidden' }]);
    expect((await call(fx, 'GET', `${RELEASES}/v1.0`, 'guest')).status).toBe(403);
    expect((await call(fx, 'GET', `${RELEASES}/v1.0`, 'outsider')).status).toBe(404);
  });

  it('GET /projects/:id/releases: guests see no tag, commit, sources or evidence; reporters do', async () => {
    const fx = world();
    await release(fx, { tag_name: 'v1.0', description: 'Notes' });
    const [guest] = await body(await call(fx, 'GET', RELEASES, 'guest'));
    expect(guest.tag_name).toBeUndefined();
    expect(guest.commit).toBeUndefined();
    expect(guest.assets).toEqual({ count: 4, links: [] });
    expect(guest.evidences).toBeUndefined();
    expect(guest._links).toEqual({ self: 'http://localhost/acme/app/-/releases/v1.0' });
    const [rep] = await body(await call(fx, 'GET', RELEASES, 'rep'));
    expect(rep.tag_name).toBe('v1.0');
  });

  it('GET /projects/:id/releases: order_by and sort; upcoming releases; include_html_description', async () => {
    const fx = world();
    await release(fx, { tag_name: 'v1.0', description: '**a**', released_at: '2021-01-01T00:00:00Z' });
    await release(fx, {
      tag_name: 'v2.0',
      ref: 'master',
      description: 'b',
      released_at: '2031-01-01T00:00:00Z',
    });
    const names = async (q: string) =>
      (await body(await call(fx, 'GET', `${RELEASES}${q}`, 'dev'))).map(
        (r: { tag_name: string }) => r.tag_name,
      );
    expect(await names('')).toEqual(['v2.0', 'v1.0']);
    expect(await names('?sort=asc')).toEqual(['v1.0', 'v2.0']);
    expect(await names('?order_by=created_at&sort=asc')).toEqual(['v1.0', 'v2.0']);
    const list = await body(await call(fx, 'GET', `${RELEASES}?include_html_description=true`, 'dev'));
    expect(list.map((r: { upcoming_release: boolean }) => r.upcoming_release)).toEqual([true, false]);
    // A historical release (released before it was made) and an upcoming one have no evidence yet.
    expect(list.map((r: { evidences: unknown[] }) => r.evidences.length)).toEqual([0, 0]);
    expect(list[1].description_html).toContain('<strong>a</strong>');
    expect((await body(await call(fx, 'GET', RELEASES, 'dev')))[0].description_html).toBeUndefined();
  });

  it('PUT /projects/:id/releases/:tag_name: edits; params is empty 400; missing release 403', async () => {
    const fx = world();
    await release(fx, { tag_name: 'v1.0', description: 'Notes' });
    const res = await call(fx, 'PUT', `${RELEASES}/v1.0`, 'dev', { name: 'Renamed', milestones: ['v2'] });
    expect([res.status, (await body(res)).name]).toEqual([200, 'Renamed']);
    const empty = await call(fx, 'PUT', `${RELEASES}/v1.0`, 'dev', {});
    expect([empty.status, await body(empty)]).toEqual([400, { message: 'params is empty' }]);
    expect((await call(fx, 'PUT', `${RELEASES}/v9`, 'dev', { name: 'x' })).status).toBe(403);
    expect((await call(fx, 'PUT', `${RELEASES}/v1.0`, 'rep', { name: 'x' })).status).toBe(403);
  });

  it('DELETE /projects/:id/releases/:tag_name: 200 with the release; the tag stays', async () => {
    const fx = world();
    await release(fx, { tag_name: 'v1.0', description: 'Notes' });
    const res = await call(fx, 'DELETE', `${RELEASES}/v1.0`, 'dev');
    expect([res.status, (await body(res)).tag_name]).toEqual([200, 'v1.0']);
    expect(await body(await call(fx, 'GET', RELEASES, 'dev'))).toEqual([]);
    expect((await call(fx, 'GET', `${APP}/repository/tags/v1.0`, 'dev')).status).toBe(200);
  });

  it('tags and releases: a tag shows its release; deleting the tag deletes the release; release_description makes one', async () => {
    const fx = world();
    await release(fx, { tag_name: 'v1.0', description: 'Notes' });
    const tag = await body(await call(fx, 'GET', `${APP}/repository/tags/v1.0`, 'dev'));
    expect(tag.release).toEqual({ tag_name: 'v1.0', description: 'Notes' });
    expect((await call(fx, 'DELETE', `${APP}/repository/tags/v1.0`, 'dev')).status).toBe(204);
    expect(await body(await call(fx, 'GET', RELEASES, 'dev'))).toEqual([]);
    const made = await call(fx, 'POST', `${APP}/repository/tags`, 'dev', {
      tag_name: 'v5.0',
      ref: 'master',
      release_description: 'From the tags API',
    });
    expect((await body(made)).release).toEqual({ tag_name: 'v5.0', description: 'From the tags API' });
    const [rel] = await body(await call(fx, 'GET', RELEASES, 'dev'));
    expect([rel.name, rel.tag_name, rel.author.username]).toEqual(['v5.0', 'v5.0', 'dev']);
  });

  it('release links: create, list newest first, get, update, delete, with the model errors', async () => {
    const fx = world();
    await release(fx, { tag_name: 'v1.0', description: 'Notes' });
    const LINKS = `${RELEASES}/v1.0/assets/links`;
    const a = await body(await call(fx, 'POST', LINKS, 'dev', { name: 'a', url: 'https://x.example.com/a' }));
    fx.clock.advance(60_000);
    const b = await body(
      await call(fx, 'POST', LINKS, 'dev', { name: 'b', url: `http://localhost/acme/app/-/b` }),
    );
    expect([a.link_type, b.external]).toEqual(['other', false]);
    expect((await body(await call(fx, 'GET', LINKS, 'guest'))).map((l: { name: string }) => l.name)).toEqual([
      'b',
      'a',
    ]);
    const dup = await call(fx, 'POST', LINKS, 'dev', {
      name: 'a',
      url: 'https://x.example.com/a',
      filepath: 'bad path',
    });
    expect([dup.status, await body(dup)]).toEqual([
      400,
      {
        message: {
          url: ['has already been taken'],
          name: ['has already been taken'],
          filepath: ['is invalid'],
        },
      },
    ]);
    const none = await call(fx, 'PUT', `${LINKS}/${a.id}`, 'dev', {});
    expect(await body(none)).toEqual({
      error: 'name, url are missing, at least one parameter must be provided',
    });
    const upd = await call(fx, 'PUT', `${LINKS}/${a.id}`, 'dev', { name: 'renamed' });
    expect((await body(upd)).name).toBe('renamed');
    expect((await call(fx, 'GET', `${LINKS}/999`, 'dev')).status).toBe(404);
    expect((await call(fx, 'GET', `${RELEASES}/v9/assets/links`, 'dev')).status).toBe(404);
    const del = await call(fx, 'DELETE', `${LINKS}/${a.id}`, 'dev');
    expect([del.status, (await body(del)).name]).toEqual([200, 'renamed']);
    expect((await call(fx, 'POST', LINKS, 'rep', { name: 'c', url: 'https://c.example.com' })).status).toBe(
      403,
    );
  });

  it('releases scenario: export writes releases back; a load makes the same releases; project delete removes them', async () => {
    const fx = world();
    await release(fx, {
      tag_name: 'v1.0',
      description: 'Notes',
      milestones: ['v1'],
      assets: { links: [{ name: 'bin', url: 'https://dl.example.com/app' }] },
    });
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    const exported = (out.projects as { releases?: unknown[] }[])[0]!.releases!;
    expect(exported).toEqual([
      {
        tag_name: 'v1.0',
        description: 'Notes',
        author: 'dev',
        created_at: expect.any(String),
        released_at: expect.any(String),
        milestones: ['v1'],
        links: [{ name: 'bin', url: 'https://dl.example.com/app' }],
      },
    ]);
    const again = createFauxlab({ scenario: out });
    const [rel] = await body(await call(again, 'GET', RELEASES, 'dev'));
    expect([rel.tag_name, rel.assets.links[0].name, rel.milestones[0].title]).toEqual(['v1.0', 'bin', 'v1']);
    expect(() =>
      createFauxlab({
        scenario: {
          ...scenario,
          projects: [{ ...scenario.projects![0]!, releases: [{ tag_name: 'v7', description: 'x' }] }],
        },
      }),
    ).toThrow(/releases\[0\]: no tag v7/);
    await call(fx, 'DELETE', APP, 'owner');
    expect(tvalues(fx.state.releases.records)).toEqual([]);
  });
});
