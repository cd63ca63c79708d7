import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import { tvalues } from '../../../src/core/table.js';
import { request } from '../helpers.js';
import { APP, body, call, world } from '../ci/world.js';

type Fx = ReturnType<typeof world>;
const WIKIS = `${APP}/wikis`;
const GROUP_WIKIS = '/api/v4/groups/acme/wikis';

async function page(fx: Fx, fields: Record<string, unknown>, token = 'dev', base = WIKIS) {
  const res = await call(fx, 'POST', base, token, fields);
  expect(res.status).toBe(201);
  return body(res);
}

describe('wikis', () => {
  it('POST /projects/:id/wikis: 201 with the WikiPage entity, the slug made from the title', async () => {
    const fx = world();
    const created = await page(fx, { title: 'Getting  Started ', content: '# Hi' });
    expect(created).toEqual({
      format: 'markdown',
      slug: 'Getting-Started',
      title: 'Getting Started',
      content: '# Hi',
      encoding: 'UTF-8',
    });
  });

  it('POST /projects/:id/wikis: a title with directories makes a nested slug; the title is the last part', async () => {
    const fx = world();
    const created = await page(fx, { title: ' docs / How to <deploy>', content: 'x', format: 'rdoc' });
    expect(created).toMatchObject({ slug: 'docs/How-to--deploy-', title: 'How to deploy ', format: 'rdoc' });
    const got = await call(fx, 'GET', `${WIKIS}/docs%2FHow-to--deploy-`, 'guest');
    expect([got.status, (await body(got)).content]).toEqual([200, 'x']);
  });

  it('POST /projects/:id/wikis: missing params, blank values and a bad format answer as the platform', async () => {
    const fx = world();
    const missing = await call(fx, 'POST', WIKIS, 'dev', { title: 'A' });
    expect([missing.status, await body(missing)]).toEqual([400, { error: 'content is missing' }]);
    const blank = await call(fx, 'POST', WIKIS, 'dev', { title: '  ', content: '' });
    expect([blank.status, await body(blank)]).toEqual([
      400,
      { message: { title: ["can't be blank"], content: ["can't be blank"] } },
    ]);
    const format = await call(fx, 'POST', WIKIS, 'dev', { title: 'A', content: 'x', format: 'html' });
    expect([format.status, await body(format)]).toEqual([
      400,
      { error: 'format does not have a valid value' },
    ]);
    const long = await call(fx, 'POST', WIKIS, 'dev', { title: `d/${'t'.repeat(246)}`, content: 'x' });
    expect(await body(long)).toEqual({ message: { title: ['exceeds the limit of 245 bytes'] } });
    expect(await body(await call(fx, 'GET', WIKIS, 'dev'))).toEqual([]);
  });

  it('POST /projects/:id/wikis: a page of the same name in any case is a duplicate', async () => {
    const fx = world();
    await page(fx, { title: 'Home', content: 'x' });
    const dup = await call(fx, 'POST', WIKIS, 'dev', { title: 'home', content: 'y', format: 'org' });
    expect([dup.status, await body(dup)]).toEqual([
      400,
      { message: { base: ['Duplicate page: Cannot write /home.org, found /Home.md.'] } },
    ]);
  });

  it('GET /projects/:id/wikis: basic entities in path order; with_content adds content and encoding', async () => {
    const fx = world();
    await page(fx, { title: 'zeta', content: 'z' });
    await page(fx, { title: 'Alpha', content: 'a' });
    const list = await body(await call(fx, 'GET', WIKIS, 'guest'));
    expect(list).toEqual([
      { format: 'markdown', slug: 'Alpha', title: 'Alpha' },
      { format: 'markdown', slug: 'zeta', title: 'zeta' },
    ]);
    const paged = await call(fx, 'GET', `${WIKIS}?per_page=1&page=2`, 'guest');
    const headers = [paged.headers.get('x-total'), paged.headers.get('x-page')];
    expect([headers, (await body(paged))[0].slug]).toEqual([['2', '2'], 'zeta']);
    const full = await body(await call(fx, 'GET', `${WIKIS}?with_content=true`, 'guest'));
    expect(full.map((x: { content: string; encoding: string }) => [x.content, x.encoding])).toEqual([
      ['a', 'UTF-8'],
      ['z', 'UTF-8'],
    ]);
  });

  it('GET /projects/:id/wikis/:slug: 404 Wiki Page Not Found; render_html renders Markdown', async () => {
    const fx = world();
    await page(fx, { title: 'Home', content: '**bold**' });
    const missing = await call(fx, 'GET', `${WIKIS}/nope`, 'guest');
    expect([missing.status, await body(missing)]).toEqual([404, { message: '404 Wiki Page Not Found' }]);
    const html = await body(await call(fx, 'GET', `${WIKIS}/home?render_html=true`, 'guest'));
    expect(html.content).toContain('<strong>bold</strong>');
    await page(fx, { title: 'Notes', content: `<b>&'`, format: 'rdoc' });
    const rdoc = await body(await call(fx, 'GET', `${WIKIS}/Notes?render_html=true`, 'guest'));
    expect(rdoc.content).toBe('<p>&lt;b&gt;&amp;&#39;</p>');
  });

  it('PUT /projects/:id/wikis/:slug: updates content, renames within the directory, keeps old versions', async () => {
    const fx = world();
    await page(fx, { title: 'docs/Start', content: 'v1', format: 'rdoc' });
    const res = await call(fx, 'PUT', `${WIKIS}/docs%2FStart`, 'dev', { content: 'v2', title: 'Begin' });
    expect([res.status, await body(res)]).toEqual([
      200,
      // Without `format` the platform's default applies: the page becomes Markdown.
      { format: 'markdown', slug: 'docs/Begin', title: 'Begin', content: 'v2', encoding: 'UTF-8' },
    ]);
    expect((await call(fx, 'GET', `${WIKIS}/docs%2FStart`, 'dev')).status).toBe(404);
    const versions = tvalues(fx.state.wikis.pages)[0]!.versions;
    expect(versions.map((v) => v.content)).toEqual(['v2', 'v1']);
    const old = await call(fx, 'GET', `${WIKIS}/docs%2FBegin?version=${versions[1]!.id}`, 'guest');
    expect(await body(old)).toMatchObject({ content: 'v1', format: 'rdoc' });
    const unknown = await call(fx, 'GET', `${WIKIS}/docs%2FBegin?version=${'0'.repeat(40)}`, 'guest');
    expect(unknown.status).toBe(404);
  });

  it('PUT /projects/:id/wikis/:slug: a title leading with / moves the page to the top; a taken name is refused', async () => {
    const fx = world();
    await page(fx, { title: 'a/b', content: 'x' });
    await page(fx, { title: 'c', content: 'y' });
    const taken = await call(fx, 'PUT', `${WIKIS}/a%2Fb`, 'dev', { title: '/c' });
    expect([taken.status, await body(taken)]).toEqual([
      400,
      { message: { base: ['There is already a page with the same title in that path.'] } },
    ]);
    const moved = await call(fx, 'PUT', `${WIKIS}/a%2Fb`, 'dev', { title: '/d' });
    expect((await body(moved)).slug).toBe('d');
  });

  it('DELETE /projects/:id/wikis/:slug: 204 for a maintainer, 403 for a developer', async () => {
    const fx = world();
    await page(fx, { title: 'Home', content: 'x' });
    expect((await call(fx, 'DELETE', `${WIKIS}/Home`, 'dev')).status).toBe(403);
    expect((await call(fx, 'DELETE', `${WIKIS}/Home`, 'maint')).status).toBe(204);
    expect((await call(fx, 'DELETE', `${WIKIS}/Home`, 'maint')).status).toBe(404);
  });

  it('wikis of a project: guests read, reporters may not write, a disabled wiki or archived project closes them', async () => {
    const fx = world();
    await page(fx, { title: 'Home', content: 'x' });
    expect((await call(fx, 'POST', WIKIS, 'rep', { title: 'B', content: 'x' })).status).toBe(403);
    expect((await call(fx, 'GET', WIKIS, 'outsider')).status).toBe(404);
    expect((await call(fx, 'GET', WIKIS)).status).toBe(404);
    await call(fx, 'PUT', APP, 'owner', { wiki_access_level: 'disabled' });
    expect((await call(fx, 'GET', WIKIS, 'owner')).status).toBe(403);
    await call(fx, 'PUT', APP, 'owner', { wiki_access_level: 'enabled' });
    await call(fx, 'POST', `${APP}/archive`, 'owner');
    expect((await call(fx, 'GET', WIKIS, 'guest')).status).toBe(200);
    expect((await call(fx, 'PUT', `${WIKIS}/Home`, 'owner', { content: 'y' })).status).toBe(403);
  });

  it('POST /projects/:id/wikis/attachments: 201 with the file path under uploads/ and its Markdown link', async () => {
    const fx = world();
    const form = new FormData();
    form.append('file', new File([new Uint8Array([1, 2, 3])], 'dk.png', { type: 'image/png' }));
    const res = await request(fx, 'POST', `${WIKIS}/attachments`, { token: 'dev', form });
    const out = await body(res);
    expect(res.status).toBe(201);
    expect(out).toEqual({
      file_name: 'dk.png',
      file_path: expect.stringMatching(/^uploads\/[0-9a-f]{32}\/dk\.png$/),
      branch: 'master',
      link: { url: out.file_path, markdown: `![dk](${out.file_path})` },
    });
    const none = await call(fx, 'POST', `${WIKIS}/attachments`, 'dev', {});
    expect([none.status, await body(none)]).toEqual([400, { error: 'file is missing' }]);
    expect(fx.state.wikis.attachmentBytes).toBe(3);
  });

  it('GET /groups/:id/wikis: absent on the free tier, a group wiki on premium', async () => {
    expect((await call(world(), 'GET', GROUP_WIKIS, 'dev')).status).toBe(404);
    const fx = world({ tier: 'premium' });
    await page(fx, { title: 'Team', content: 'hello' }, 'dev', GROUP_WIKIS);
    expect(await body(await call(fx, 'GET', GROUP_WIKIS, 'outsider'))).toEqual([
      { format: 'markdown', slug: 'Team', title: 'Team' },
    ]);
    expect((await call(fx, 'DELETE', `${GROUP_WIKIS}/Team`, 'dev')).status).toBe(403);
    expect((await call(fx, 'GET', WIKIS, 'dev')).status).toBe(200);
    expect(await body(await call(fx, 'GET', WIKIS, 'dev'))).toEqual([]);
  });

  it('wiki scenario: pages load, export writes them back, deleting the project removes them', async () => {
    const fx = world();
    await page(fx, { title: 'docs/Setup', content: 'one', format: 'asciidoc' });
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    const wiki = (out.projects as { wiki?: unknown[] }[])[0]!.wiki;
    expect(wiki).toEqual([
      { title: 'docs/Setup', content: 'one', format: 'asciidoc', created_at: expect.any(String) },
    ]);
    const again = createFauxlab({ scenario: out });
    expect(await body(await call(again, 'GET', `${WIKIS}/docs%2FSetup`, 'dev'))).toMatchObject({
      slug: 'docs/Setup',
      format: 'asciidoc',
      content: 'one',
    });
    const form = new FormData();
    form.append('file', new File(['abc'], 'notes.txt'));
    await request(fx, 'POST', `${WIKIS}/attachments`, { token: 'dev', form });
    expect((await call(fx, 'DELETE', APP, 'owner')).status).toBe(202);
    expect([tvalues(fx.state.wikis.pages).length, fx.state.wikis.attachmentBytes]).toEqual([0, 0]);
  });

  it('wiki scenario: two pages of one name are refused with their place in the file', () => {
    expect(() =>
      createFauxlab({
        scenario: {
          groups: [
            {
              path: 'g',
              wiki: [
                { title: 'A b', content: 'x' },
                { title: 'a-B', content: 'y' },
              ],
            },
          ],
        },
      }),
    ).toThrow(/groups\[0\]\.wiki\[1\]\.title: a page named "a-B" is listed twice/);
  });
});
