import { describe, expect, it } from 'vitest';
import { BEFORE_WORLD, call, send, world } from '../metadata/world.js';

const SITE = '/projects/acme%2Fsite/snippets';
const APP = '/projects/acme%2Fapp/snippets';

async function withSnippets() {
  const fx = world();
  const made = await send(fx, 'POST', SITE, 'dev', {
    title: 'Deploy',
    file_name: 'deploy.sh',
    content: 'echo deploy',
    visibility: 'public',
    description: 'How to deploy',
  });
  await send(fx, 'POST', SITE, 'dev', {
    title: 'Secret',
    file_name: 's.txt',
    content: 'x',
    visibility: 'private',
  });
  return { fx, id: made.body.id as number };
}

describe('GET /projects/:id/snippets', () => {
  it('GET /projects/:id/snippets: the snippets the caller may read, newest first; 401 without a user', async () => {
    const { fx } = await withSnippets();
    const dev = await send(fx, 'GET', SITE, 'dev');
    expect(dev.body.map((s: any) => s.title)).toEqual(['Secret', 'Deploy']);
    expect(dev.res.headers.get('X-Total')).toBe('2');
    expect((await send(fx, 'GET', SITE, 'outsider')).body.map((s: any) => s.title)).toEqual(['Deploy']);
    expect(await send(fx, 'GET', SITE)).toMatchObject({ status: 401 });
    expect(await send(fx, 'GET', APP, 'outsider')).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
  });

  it('GET /projects/:id/snippets/:snippet_id: the snippet shape; hidden ones are not found', async () => {
    const { fx, id } = await withSnippets();
    const r = await send(fx, 'GET', `${SITE}/${id}`);
    expect(r.body).toMatchObject({
      id,
      title: 'Deploy',
      file_name: 'deploy.sh',
      description: 'How to deploy',
      visibility: 'public',
      project_id: 2,
      web_url: `http://localhost/acme/site/-/snippets/${id}`,
      raw_url: `http://localhost/acme/site/-/snippets/${id}/raw`,
      author: expect.objectContaining({ username: 'dev' }),
    });
    expect(await send(fx, 'GET', `${SITE}/${id + 1}`, 'outsider')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect((await send(fx, 'GET', `${SITE}/x`)).body).toEqual({ error: 'snippet_id is invalid' });
  });

  it('GET /projects/:id/snippets/:snippet_id/raw and files/:ref/:file_path/raw: the content as text', async () => {
    const { fx, id } = await withSnippets();
    const raw = await call(fx, 'GET', `${SITE}/${id}/raw`);
    expect(raw.headers.get('content-type')).toContain('text/plain');
    expect(await raw.text()).toBe('echo deploy');
    expect(await (await call(fx, 'GET', `${SITE}/${id}/files/master/deploy.sh/raw`)).text()).toBe(
      'echo deploy',
    );
    expect((await send(fx, 'GET', `${SITE}/${id}/files/master/other.sh/raw`)).body).toEqual({
      message: '404 File Not Found',
    });
    expect((await send(fx, 'GET', `${SITE}/${id + 1}/raw`, 'outsider')).body).toEqual({
      message: '404 Snippet Not Found',
    });
  });
});

describe('POST /projects/:id/snippets', () => {
  it('POST /projects/:id/snippets: an empty body is 400 with every missing param, before create_snippet is checked', async () => {
    const fx = world();
    // 13.12: `requires :title`, `requires :visibility`, then `create_file_params`' `exactly_one_of`.
    const all = {
      error:
        'title is missing, visibility is missing, files, content are missing, exactly one parameter must be provided',
    };
    for (const who of ['dev', 'outsider']) {
      const before = fx.state;
      const r = await send(fx, 'POST', SITE, who, {});
      expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: all });
      expect(fx.state).toBe(before);
    }
  });
  it('POST /projects/:id/snippets: reporters and up; visibility is required; content or one file', async () => {
    const fx = world();
    const body = { title: 'T', file_name: 'a.txt', content: 'x', visibility: 'internal' };
    expect((await send(fx, 'POST', SITE, undefined, body)).status).toBe(401);
    expect((await send(fx, 'POST', SITE, 'outsider', body)).status).toBe(403);
    expect((await send(fx, 'POST', SITE, 'dev', { ...body, visibility: undefined })).body).toEqual({
      error: 'visibility is missing',
    });
    expect((await send(fx, 'POST', SITE, 'dev', { title: 'T', visibility: 'public' })).body).toEqual({
      error: 'files, content are missing, exactly one parameter must be provided',
    });
    expect(
      (await send(fx, 'POST', SITE, 'dev', { title: 'T', content: 'x', visibility: 'public' })).body,
    ).toEqual({
      error: 'file_name is missing',
    });
    const files = await send(fx, 'POST', SITE, 'dev', {
      title: 'Files',
      visibility: 'public',
      files: [{ file_path: 'b.rb', content: 'puts 1' }],
    });
    expect(files).toMatchObject({ status: 201, body: { file_name: 'b.rb', title: 'Files' } });
    expect((await send(fx, 'POST', SITE, 'dev', body)).status).toBe(201);
  });
});

describe('PUT /projects/:id/snippets/:snippet_id', () => {
  it('PUT /projects/:id/snippets/:snippet_id: the author and maintainers change it; others are refused', async () => {
    const { fx, id } = await withSnippets();
    expect((await send(fx, 'PUT', `${SITE}/${id}`, 'dev', {})).body).toEqual({
      error:
        'content, description, files, file_name, title, visibility are missing, at least one parameter must be provided',
    });
    expect((await send(fx, 'PUT', `${SITE}/${id}`, 'dev', { title: 'Deploy 2' })).body.title).toBe(
      'Deploy 2',
    );
    expect(
      (await send(fx, 'PUT', `${SITE}/${id}`, 'maint', { visibility: 'internal' })).body.visibility,
    ).toBe('internal');
    expect((await send(fx, 'PUT', `${SITE}/${id}`, 'outsider', { title: 'x' })).status).toBe(403);
    const moved = await send(fx, 'PUT', `${SITE}/${id}`, 'dev', {
      files: [{ action: 'move', previous_path: 'deploy.sh', file_path: 'ship.sh', content: 'echo ship' }],
    });
    expect(moved.body.file_name).toBe('ship.sh');
    expect(await (await call(fx, 'GET', `${SITE}/${id}/raw`, 'dev')).text()).toBe('echo ship');
    expect((await send(fx, 'PUT', `${SITE}/999`, 'dev', { title: 'x' })).body).toEqual({
      message: '404 Snippet Not Found',
    });
  });
});

describe('DELETE /projects/:id/snippets/:snippet_id', () => {
  it('DELETE /projects/:id/snippets/:snippet_id: 204 for the author; If-Unmodified-Since is honoured', async () => {
    const { fx, id } = await withSnippets();
    expect((await call(fx, 'DELETE', `${SITE}/${id}`, 'dev', undefined, BEFORE_WORLD)).status).toBe(412);
    expect((await send(fx, 'DELETE', `${SITE}/${id}`, 'outsider')).status).toBe(403);
    expect((await send(fx, 'DELETE', `${SITE}/${id}`, 'dev')).status).toBe(204);
    expect((await send(fx, 'GET', `${SITE}/${id}`)).status).toBe(404);
  });
});

describe('GET /projects/:id/snippets/:snippet_id/user_agent_detail', () => {
  it('GET /projects/:id/snippets/:snippet_id/user_agent_detail: admins see the creating request', async () => {
    const { fx, id } = await withSnippets();
    expect((await send(fx, 'GET', `${SITE}/${id}/user_agent_detail`, 'dev')).status).toBe(403);
    const r = await send(fx, 'GET', `${SITE}/${id}/user_agent_detail`, 'root');
    expect(r.body).toEqual({ user_agent: null, ip_address: '127.0.0.1', akismet_submitted: false });
    expect((await send(fx, 'GET', `/projects/1/snippets/${id}/user_agent_detail`, 'root')).status).toBe(404);
  });
});
