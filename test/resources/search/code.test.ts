import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { APP, call, commitFiles, repoWorld, SITE, world } from '../repository/world.js';

const search = (fx: ReturnType<typeof world>, base: string, q: string, token = 'dev') =>
  call(fx, 'GET', `${base}/search?${q}`, token);

async function withCode() {
  const fx = world();
  const first = await commitFiles(
    fx,
    {
      'INSTALL.md': '# App\n\nInstall it.\nThen run the Widget.\nDone.\n',
      'lib/widget.rb': 'class Widget\n  def run\n  end\nend\n',
      'docs/widget-guide.txt': 'nothing to see\n',
    },
    { message: 'Add the widget\n\nWith docs.' },
  );
  const second = await commitFiles(
    fx,
    { 'lib/gadget.rb': 'class Gadget\nend\n' },
    { message: 'Add a gadget', branch: 'feature', start_branch: 'master' },
  );
  return { fx, first, second };
}

describe('GET /projects/:id/search (repository scopes)', () => {
  it('GET /projects/:id/search?scope=blobs: content matches with two lines of context, then path matches, by path', async () => {
    const { fx } = await withCode();
    const r = await search(fx, APP, 'scope=blobs&search=widget');
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      {
        basename: 'INSTALL',
        data: '\nInstall it.\nThen run the Widget.\nDone.\n',
        path: 'INSTALL.md',
        filename: 'INSTALL.md',
        id: null,
        ref: 'master',
        startline: 2,
        project_id: 1,
      },
      {
        basename: 'docs/widget-guide',
        data: 'nothing to see\n',
        path: 'docs/widget-guide.txt',
        filename: 'docs/widget-guide.txt',
        id: expect.stringMatching(/^[0-9a-f]{40}$/),
        ref: 'master',
        startline: 1,
        project_id: 1,
      },
      {
        basename: 'lib/widget',
        data: 'class Widget\n  def run\n  end\n',
        path: 'lib/widget.rb',
        filename: 'lib/widget.rb',
        id: null,
        ref: 'master',
        startline: 1,
        project_id: 1,
      },
    ]);
    expect(r.headers.get('x-total')).toBe('3');
  });

  it('GET /projects/:id/search?scope=blobs: filename:, path: and extension: filters; ref picks the branch', async () => {
    const { fx } = await withCode();
    const paths = async (q: string) =>
      ((await search(fx, APP, `scope=blobs&search=${encodeURIComponent(q)}`)).body as { path: string }[]).map(
        (b) => b.path,
      );
    expect(await paths('widget extension:rb')).toEqual(['lib/widget.rb']);
    expect(await paths('widget filename:*.md')).toEqual(['INSTALL.md']);
    expect(await paths('widget path:docs')).toEqual(['docs/widget-guide.txt']);
    expect(await paths('gadget')).toEqual([]);
    const onFeature = await search(fx, APP, 'scope=blobs&search=gadget&ref=feature');
    expect(onFeature.body.map((b: { path: string; ref: string }) => [b.path, b.ref])).toEqual([
      ['lib/gadget.rb', 'feature'],
    ]);
    expect((await search(fx, APP, 'scope=blobs&search=widget&ref=nope')).body).toEqual([]);
  });

  it('GET /projects/:id/search?scope=commits: by message (any case), newest first, or by sha; the commit detail shape', async () => {
    const { fx, first, second } = await withCode();
    const r = await search(fx, APP, 'scope=commits&search=WIDGET');
    expect(r.body).toHaveLength(1);
    expect(r.body[0]).toMatchObject({
      id: first.id,
      short_id: first.id.slice(0, 8),
      title: 'Add the widget',
      message: 'Add the widget\n\nWith docs.',
      status: null,
      project_id: 1,
      last_pipeline: null,
    });
    expect(r.body[0]).not.toHaveProperty('stats');
    expect(
      (await search(fx, APP, 'scope=commits&search=add&ref=feature')).body.map((x: any) => x.id),
    ).toEqual([second.id, first.id]);
    const bySha = await search(fx, APP, `scope=commits&search=${second.id.slice(0, 10)}`);
    expect(bySha.body.map((x: any) => x.id)).toEqual([second.id]);
  });

  it('GET /projects/:id/search: blobs and commits are empty for a viewer without download_code', async () => {
    const fx = createFauxlab({
      scenario: {
        ...repoWorld,
        projects: [
          { path: 'acme/site', visibility: 'public', creator: 'owner', repository_access_level: 'private' },
        ],
      },
    });
    await commitFiles(fx, { 'a.txt': 'secret sauce\n' }, { project: SITE, message: 'sauce' });
    expect((await search(fx, SITE, 'scope=blobs&search=sauce', 'dev')).body).toHaveLength(1);
    expect((await search(fx, SITE, 'scope=blobs&search=sauce', 'outsider')).body).toEqual([]);
    expect((await search(fx, SITE, 'scope=commits&search=sauce', 'outsider')).body).toEqual([]);
  });

  it('GET /projects/:id/search?scope=wiki_blobs: the wiki’s pages as files (slug.md), by content and by name', async () => {
    const fx = world();
    for (const [title, content] of [
      ['Home', 'Welcome to the app.\nSee the setup guide.\n'],
      ['Setup Guide', 'Run make.\n'],
    ])
      expect((await call(fx, 'POST', `${SITE}/wikis`, 'dev', { title, content })).status).toBe(201);
    const r = await search(fx, SITE, 'scope=wiki_blobs&search=setup guide', 'outsider');
    expect(r.body).toEqual([
      {
        basename: 'Home',
        data: 'Welcome to the app.\nSee the setup guide.\n',
        path: 'Home.md',
        filename: 'Home.md',
        id: null,
        ref: 'master',
        startline: 1,
        project_id: 2,
      },
      {
        basename: 'Setup-Guide',
        data: 'Run make.\n',
        path: 'Setup-Guide.md',
        filename: 'Setup-Guide.md',
        id: null,
        ref: 'master',
        startline: 1,
        project_id: 2,
      },
    ]);
  });
});

describe('GET /search and /groups/:id/search (repository scopes)', () => {
  it('GET /search and GET /groups/:id/search: blobs, commits and wiki_blobs are not scopes of the free tier', async () => {
    const fx = world();
    for (const scope of ['blobs', 'commits', 'wiki_blobs']) {
      expect(await call(fx, 'GET', `/search?scope=${scope}&search=x`, 'dev')).toMatchObject({
        status: 400,
        body: { error: 'scope does not have a valid value' },
      });
      expect(await call(fx, 'GET', `/groups/acme/search?scope=${scope}&search=x`, 'dev')).toMatchObject({
        status: 400,
        body: { error: 'scope does not have a valid value' },
      });
    }
  });

  it('GET /groups/:id/search: paid tiers refuse the repository scopes without Elasticsearch', async () => {
    const fx = createFauxlab({ scenario: { ...repoWorld, tier: 'premium' } });
    expect(await call(fx, 'GET', '/groups/acme/search?scope=blobs&search=x', 'dev')).toMatchObject({
      status: 400,
      body: { message: { error: 'Scope not supported without Elasticsearch!' } },
    });
  });
});
