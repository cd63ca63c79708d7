import { describe, expect, it } from 'vitest';
import { body, call, world } from '../settings/world.js';

const snippetWorld = () =>
  world(
    {},
    {
      snippets: [
        {
          author: 'alice',
          title: 'Private one',
          file_name: 'p.rb',
          content: 'puts 1',
          visibility: 'private',
        },
        {
          author: 'alice',
          title: 'Internal one',
          file_name: 'i.rb',
          content: 'puts 2',
          visibility: 'internal',
        },
        { author: 'dev', title: 'Public one', file_name: 'pub.md', content: '# Hi', visibility: 'public' },
      ],
      projects: [
        {
          path: 'acme/app',
          creator: 'alice',
          visibility: 'private',
          snippets: [{ title: 'Project snippet', author: 'dev', content: 'x', visibility: 'internal' }],
        },
      ],
    },
  );

const ALICE = {
  id: 2,
  username: 'alice',
  name: 'Alice Owner',
  state: 'active',
  avatar_url: expect.any(String),
  web_url: 'http://localhost/alice',
};

describe('personal snippets', () => {
  it('POST /snippets: creates a personal snippet (201) in the spec’s shape', async () => {
    const fx = world();
    const res = await call(fx, 'POST', '/snippets', 'alice', {
      title: 'Hello',
      file_name: 'hello.rb',
      content: 'puts "hi"',
      description: 'A greeting',
      visibility: 'internal',
    });
    expect(res.status).toBe(201);
    const s = await body(res);
    expect(s).toEqual({
      id: 1,
      title: 'Hello',
      file_name: 'hello.rb',
      description: 'A greeting',
      visibility: 'internal',
      author: ALICE,
      expires_at: null,
      updated_at: '2021-03-01T12:00:00.000Z',
      created_at: '2021-03-01T12:00:00.000Z',
      project_id: null,
      web_url: 'http://localhost/-/snippets/1',
      raw_url: 'http://localhost/-/snippets/1/raw',
      files: [{ path: 'hello.rb', raw_url: 'http://localhost/-/snippets/1/raw/master/hello.rb' }],
    });
    expect(Object.keys(s)).toEqual([
      'id',
      'title',
      'file_name',
      'description',
      'visibility',
      'author',
      'expires_at',
      'updated_at',
      'created_at',
      'project_id',
      'web_url',
      'raw_url',
      'files',
    ]);
  });

  it('POST /snippets: 401 anonymous; title, and content with file_name or files, are required, title and content not empty', async () => {
    const fx = world();
    expect((await call(fx, 'POST', '/snippets', undefined, { title: 't' })).status).toBe(401);
    // 13.5+ (`create_file_params`): `files` or `content`, and `file_name` only with `content`.
    expect(await body(await call(fx, 'POST', '/snippets', 'alice', {}))).toEqual({
      error: 'title is missing, files, content are missing, exactly one parameter must be provided',
    });
    expect(await body(await call(fx, 'POST', '/snippets', 'alice', { title: 't', content: 'x' }))).toEqual({
      error: 'file_name is missing',
    });
    expect(
      await body(await call(fx, 'POST', '/snippets', 'alice', { title: '', file_name: 'a', content: '' })),
    ).toEqual({
      error: 'title is empty, content is empty',
    });
    expect(
      await body(
        await call(fx, 'POST', '/snippets', 'alice', {
          title: 't',
          file_name: 'a',
          content: 'x',
          visibility: 'open',
        }),
      ),
    ).toEqual({
      error: 'visibility does not have a valid value',
    });
  });

  it('POST /snippets: external users may not create personal snippets (403)', async () => {
    const fx = world();
    const res = await call(fx, 'POST', '/snippets', 'ext', { title: 't', file_name: 'a', content: 'x' });
    expect(res.status).toBe(403);
    expect(await body(res)).toEqual({ message: '403 Forbidden' });
  });

  it('GET /snippets: the caller’s own snippets, newest first, paginated; 401 anonymous', async () => {
    const fx = snippetWorld();
    expect((await call(fx, 'GET', '/snippets')).status).toBe(401);
    const res = await call(fx, 'GET', '/snippets', 'alice');
    expect(res.headers.get('X-Total')).toBe('2');
    expect((await body(res)).map((s: any) => s.title)).toEqual(['Internal one', 'Private one']);
    const dev = await body(await call(fx, 'GET', '/snippets', 'dev'));
    expect(dev.map((s: any) => s.title)).toEqual(['Public one', 'Project snippet']);
    const page = await call(fx, 'GET', '/snippets?per_page=1&page=2', 'alice');
    expect(page.headers.get('X-Page')).toBe('2');
    expect((await body(page)).map((s: any) => s.title)).toEqual(['Private one']);
  });

  it('GET /snippets/public: public personal snippets only', async () => {
    const fx = snippetWorld();
    expect((await call(fx, 'GET', '/snippets/public')).status).toBe(401);
    const list = await body(await call(fx, 'GET', '/snippets/public', 'outsider'));
    expect(list.map((s: any) => s.title)).toEqual(['Public one']);
  });

  it('GET /snippets/:id: private is for its author (and admins), internal for signed-in users, public for all', async () => {
    const fx = snippetWorld();
    expect((await call(fx, 'GET', '/snippets/2', 'alice')).status).toBe(200);
    expect(await body(await call(fx, 'GET', '/snippets/2', 'dev'))).toEqual({
      message: '404 Snippet Not Found',
    });
    expect((await call(fx, 'GET', '/snippets/2', 'root')).status).toBe(200);
    expect((await call(fx, 'GET', '/snippets/3', 'outsider')).status).toBe(200);
    expect((await call(fx, 'GET', '/snippets/3')).status).toBe(404);
    expect((await call(fx, 'GET', '/snippets/3', 'ext')).status).toBe(404);
    expect((await call(fx, 'GET', '/snippets/4')).status).toBe(200);
    expect(await body(await call(fx, 'GET', '/snippets/99', 'root'))).toEqual({
      message: '404 Snippet Not Found',
    });
    expect(await body(await call(fx, 'GET', '/snippets/abc', 'root'))).toEqual({ error: 'id is invalid' });
  });

  it('GET /snippets/:id: a project snippet follows its project’s access', async () => {
    const fx = snippetWorld();
    const id = 1;
    const s = await body(await call(fx, 'GET', `/snippets/${id}`, 'dev'));
    expect(s.project_id).toBe(1);
    expect(s.web_url).toBe(`http://localhost/acme/app/-/snippets/${id}`);
    expect((await call(fx, 'GET', `/snippets/${id}`, 'outsider')).status).toBe(404);
  });

  it('GET /snippets/:id/raw: the content as plain text', async () => {
    const fx = snippetWorld();
    const res = await call(fx, 'GET', '/snippets/4/raw');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe('# Hi');
    expect((await call(fx, 'GET', '/snippets/2/raw', 'dev')).status).toBe(404);
  });

  it('GET /snippets/:id/files/:ref/:file_path/raw: the file of the snippet’s repository', async () => {
    const fx = snippetWorld();
    const res = await call(fx, 'GET', '/snippets/4/files/master/pub.md/raw');
    expect(res.headers.get('Content-Type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe('# Hi');
    expect(await body(await call(fx, 'GET', '/snippets/4/files/master/other.md/raw'))).toEqual({
      message: '404 File Not Found',
    });
    expect((await call(fx, 'GET', '/snippets/4/files/nope/pub.md/raw')).status).toBe(404);
  });

  it('PUT /snippets/:id: the author updates; others (admins too) get 404', async () => {
    const fx = snippetWorld();
    const res = await call(fx, 'PUT', '/snippets/2', 'alice', { title: 'Renamed', content: 'puts 3' });
    expect(res.status).toBe(200);
    expect((await body(res)).title).toBe('Renamed');
    expect(await (await call(fx, 'GET', '/snippets/2/raw', 'alice')).text()).toBe('puts 3');
    expect((await call(fx, 'PUT', '/snippets/2', 'root', { title: 'x' })).status).toBe(404);
    expect((await call(fx, 'PUT', '/snippets/4', 'alice', { title: 'x' })).status).toBe(404);
  });

  it('PUT /snippets/:id: at least one of content, description, files, file_name, title, visibility', async () => {
    const fx = snippetWorld();
    expect(await body(await call(fx, 'PUT', '/snippets/2', 'alice', {}))).toEqual({
      error:
        'content, description, files, file_name, title, visibility are missing, at least one parameter must be provided',
    });
    // 13.12 counts a description alone as a change.
    const res = await call(fx, 'PUT', '/snippets/2', 'alice', { description: 'only' });
    expect(res.status).toBe(200);
    expect((await body(res)).description).toBe('only');
  });

  it('PUT /snippets/:id: making it public lists it among public snippets', async () => {
    const fx = snippetWorld();
    await call(fx, 'PUT', '/snippets/2', 'alice', { visibility: 'public' });
    const list = await body(await call(fx, 'GET', '/snippets/public', 'dev'));
    expect(list.map((s: any) => s.title)).toEqual(['Public one', 'Private one']);
  });

  it('DELETE /snippets/:id: 204 for the author, then 404; 404 for others', async () => {
    const fx = snippetWorld();
    expect((await call(fx, 'DELETE', '/snippets/2', 'dev')).status).toBe(404);
    const del = await call(fx, 'DELETE', '/snippets/2', 'alice');
    expect(del.status).toBe(204);
    expect(await del.text()).toBe('');
    expect(await body(await call(fx, 'DELETE', '/snippets/2', 'alice'))).toEqual({
      message: '404 Snippet Not Found',
    });
    expect((await call(fx, 'GET', '/snippets/2', 'alice')).status).toBe(404);
  });

  it('DELETE /snippets/:id: 412 when changed after If-Unmodified-Since', async () => {
    const fx = snippetWorld();
    const res = await fx.app.request('/api/v4/snippets/2', {
      method: 'DELETE',
      headers: { 'PRIVATE-TOKEN': 'alice', 'If-Unmodified-Since': 'Mon, 01 Mar 2021 11:00:00 GMT' },
    });
    expect(res.status).toBe(412);
  });

  it('GET /snippets/:id/user_agent_detail: admins only; the creating request’s user agent', async () => {
    const fx = world();
    await fx.app.request('/api/v4/snippets', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'alice', 'Content-Type': 'application/json', 'User-Agent': 'curl/7.68' },
      body: JSON.stringify({ title: 't', file_name: 'a', content: 'x' }),
    });
    expect(await body(await call(fx, 'GET', '/snippets/1/user_agent_detail', 'root'))).toEqual({
      user_agent: 'curl/7.68',
      ip_address: '127.0.0.1',
      akismet_submitted: false,
    });
    expect(await body(await call(fx, 'GET', '/snippets/1/user_agent_detail', 'alice'))).toEqual({
      message: '403 Forbidden',
    });
    expect(await body(await call(fx, 'GET', '/snippets/9/user_agent_detail', 'root'))).toEqual({
      message: '404 Not found',
    });
  });

  it('GET /snippets/:id/user_agent_detail: snippets from a scenario have none', async () => {
    const fx = snippetWorld();
    expect(await body(await call(fx, 'GET', '/snippets/2/user_agent_detail', 'root'))).toEqual({
      message: '404 UserAgentDetail Not Found',
    });
  });
});
