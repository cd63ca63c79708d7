import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import { body, call, world } from '../settings/world.js';

const SITE = '/projects/acme%2Fsite/snippets';

const two = [
  { file_path: 'z.rb', content: 'puts :z' },
  { file_path: 'lib/a.rb', content: 'puts :a' },
];

async function made(fx: ReturnType<typeof world>, path = '/snippets', extra: Record<string, unknown> = {}) {
  const res = await call(fx, 'POST', path, 'alice', {
    title: 'Two',
    visibility: 'public',
    files: two,
    ...extra,
  });
  expect(res.status).toBe(201);
  return body(res);
}

const text = async (fx: ReturnType<typeof world>, path: string, token?: string) => {
  const res = await call(fx, 'GET', path, token);
  return { status: res.status, text: await res.text(), res };
};

describe('snippet files', () => {
  it('POST /snippets: files[] makes a snippet of several files, listed in path order with raw URLs', async () => {
    const fx = world();
    const s = await made(fx);
    expect(s.file_name).toBe('lib/a.rb');
    expect(s.files).toEqual([
      { path: 'lib/a.rb', raw_url: `http://localhost/-/snippets/${s.id}/raw/master/lib/a.rb` },
      { path: 'z.rb', raw_url: `http://localhost/-/snippets/${s.id}/raw/master/z.rb` },
    ]);
    const raw = await text(fx, `/snippets/${s.id}/raw`, 'dev');
    expect(raw.text).toBe('puts :a');
    expect(raw.res.headers.get('content-disposition')).toContain('filename="a.rb"');
  });

  it('GET /snippets/:id/files/:ref/:file_path/raw: each file by its URL-encoded path; 404 Reference for an unknown ref', async () => {
    const fx = world();
    const s = await made(fx);
    expect((await text(fx, `/snippets/${s.id}/files/master/lib%2Fa.rb/raw`, 'dev')).text).toBe('puts :a');
    expect((await text(fx, `/snippets/${s.id}/files/HEAD/z.rb/raw`, 'dev')).text).toBe('puts :z');
    expect(await body(await call(fx, 'GET', `/snippets/${s.id}/files/main/z.rb/raw`, 'dev'))).toEqual({
      message: '404 Reference Not Found',
    });
    expect(await body(await call(fx, 'GET', `/snippets/${s.id}/files/master/a.rb/raw`, 'dev'))).toEqual({
      message: '404 File Not Found',
    });
    const bad = await call(fx, 'GET', `/snippets/${s.id}/files/master/lib%2F..%2F..%2Fz.rb/raw`, 'dev');
    expect(bad.status).toBe(400);
    expect(await body(bad)).toEqual({ error: 'file_path should be a valid file path' });
  });

  it('POST /snippets: files with content or file_name are refused as Grape words it; each file entry checked', async () => {
    const fx = world();
    const both = await call(fx, 'POST', '/snippets', 'alice', {
      title: 't',
      files: two,
      content: 'x',
      file_name: 'x',
    });
    expect(both.status).toBe(400);
    expect(await body(both)).toEqual({ error: 'files, content are mutually exclusive' });
    const entries = await call(fx, 'POST', '/snippets', 'alice', {
      title: 't',
      files: [{ content: 'x' }, { file_path: '', content: '' }, { file_path: '/etc/passwd', content: 'x' }],
    });
    expect(await body(entries)).toEqual({
      error:
        'files[0][file_path] is missing, files[1][file_path] is empty, files[1][content] is empty, ' +
        'files[2][file_path] should be a valid file path',
    });
    expect(await body(await call(fx, 'POST', '/snippets', 'alice', { title: 't', files: 'a' }))).toEqual({
      error: 'files is invalid',
    });
    expect(await body(await call(fx, 'GET', '/snippets', 'alice'))).toEqual([]);
  });

  it('POST /snippets: the same path twice fails the commit (400) and creates nothing; more than ten files too', async () => {
    const fx = world();
    const dup = await call(fx, 'POST', '/snippets', 'alice', {
      title: 't',
      files: [
        { file_path: 'a.rb', content: '1' },
        { file_path: 'a.rb', content: '2' },
      ],
    });
    expect(dup.status).toBe(400);
    expect(await body(dup)).toEqual({ message: { error: 'Repository Error creating the snippet' } });
    const many = await call(fx, 'POST', '/snippets', 'alice', {
      title: 't',
      files: Array.from({ length: 11 }, (_, i) => ({ file_path: `f${i}.txt`, content: 'x' })),
    });
    expect(many.status).toBe(400);
    expect(await body(many)).toEqual({
      message: { error: 'Repository Error creating the snippet - Snippets can have at most 10 files' },
    });
    const git = await call(fx, 'POST', '/snippets', 'alice', {
      title: 't',
      files: [{ file_path: 'a//b.rb', content: '1' }],
    });
    expect(await body(git)).toEqual({
      message: { error: 'Repository Error creating the snippet - Invalid file name' },
    });
    expect(await body(await call(fx, 'GET', '/snippets', 'alice'))).toEqual([]);
  });

  it('PUT /snippets/:id: files[] actions create, update, delete and move, in one commit', async () => {
    const fx = world();
    const s = await made(fx);
    const res = await call(fx, 'PUT', `/snippets/${s.id}`, 'alice', {
      files: [
        { action: 'create', file_path: 'new.md', content: '# new' },
        { action: 'update', file_path: 'z.rb', content: 'puts :zz' },
        { action: 'delete', file_path: 'lib/a.rb' },
        { action: 'move', previous_path: 'new.md', file_path: 'docs/new.md' },
      ],
    });
    expect(res.status).toBe(200);
    const out = await body(res);
    expect(out.files.map((f: { path: string }) => f.path)).toEqual(['docs/new.md', 'z.rb']);
    expect(out.file_name).toBe('docs/new.md');
    expect((await text(fx, `/snippets/${s.id}/files/master/docs%2Fnew.md/raw`, 'dev')).text).toBe('# new');
    expect((await text(fx, `/snippets/${s.id}/files/master/z.rb/raw`, 'dev')).text).toBe('puts :zz');
  });

  it('PUT /snippets/:id: a create without file_path takes a generated snippetfileN.txt name', async () => {
    const fx = world();
    const s = await made(fx);
    await call(fx, 'PUT', `/snippets/${s.id}`, 'alice', { files: [{ action: 'create', content: 'one' }] });
    const res = await call(fx, 'PUT', `/snippets/${s.id}`, 'alice', {
      files: [{ action: 'create', file_path: '', content: 'two' }],
    });
    expect((await body(res)).files.map((f: { path: string }) => f.path)).toEqual([
      'lib/a.rb',
      'snippetfile1.txt',
      'snippetfile2.txt',
      'z.rb',
    ]);
  });

  it('PUT /snippets/:id: invalid actions are 403 Snippet files have invalid data, a bad action value 400; nothing changes', async () => {
    const fx = world();
    const s = await made(fx);
    for (const files of [
      [{ action: 'update', file_path: 'z.rb' }],
      [{ action: 'move', file_path: 'y.rb' }],
      [{ action: 'delete' }],
      [{ action: 'update', previous_path: 'z.rb', file_path: 'y.rb', content: 'x' }],
      [{ action: 'move', previous_path: 'z.rb', file_path: 'z.rb' }],
    ]) {
      const res = await call(fx, 'PUT', `/snippets/${s.id}`, 'alice', { title: 'Changed', files });
      expect(res.status).toBe(403);
      expect(await body(res)).toEqual({ message: { error: 'Snippet files have invalid data' } });
    }
    const bad = await call(fx, 'PUT', `/snippets/${s.id}`, 'alice', { files: [{ action: 'chmod' }, {}] });
    expect(await body(bad)).toEqual({
      error: 'files[0][action] does not have a valid value, files[1][action] is missing',
    });
    expect(await body(await call(fx, 'GET', `/snippets/${s.id}`, 'alice'))).toEqual(s);
  });

  it('PUT /snippets/:id: an action on a missing file or onto a taken path fails the commit (400); nothing changes', async () => {
    const fx = world();
    const s = await made(fx);
    for (const files of [
      [{ action: 'update', file_path: 'nope.rb', content: 'x' }],
      [{ action: 'delete', file_path: 'nope.rb' }],
      [{ action: 'create', file_path: 'z.rb', content: 'x' }],
      [{ action: 'move', previous_path: 'lib/a.rb', file_path: 'z.rb' }],
    ]) {
      const res = await call(fx, 'PUT', `/snippets/${s.id}`, 'alice', { title: 'Changed', files });
      expect(res.status).toBe(400);
      expect(await body(res)).toEqual({ message: { error: 'Repository Error updating the snippet' } });
    }
    expect(await body(await call(fx, 'GET', `/snippets/${s.id}`, 'alice'))).toEqual(s);
  });

  it('PUT /snippets/:id: content or file_name on a snippet of several files is refused; files with either is a Grape error', async () => {
    const fx = world();
    const s = await made(fx);
    const res = await call(fx, 'PUT', `/snippets/${s.id}`, 'alice', { content: 'x' });
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({
      message: { error: 'To update Snippets with multiple files, you must use the `files` parameter' },
    });
    const both = await call(fx, 'PUT', `/snippets/${s.id}`, 'alice', {
      file_name: 'a',
      files: [{ action: 'delete', file_path: 'z.rb' }],
    });
    expect(await body(both)).toEqual({ error: 'files, file_name are mutually exclusive' });
  });

  it('PUT /snippets/:id: file_name and content on a one-file snippet rename and rewrite its file', async () => {
    const fx = world();
    const s = await body(
      await call(fx, 'POST', '/snippets', 'alice', { title: 't', file_name: 'a.rb', content: 'puts 1' }),
    );
    const moved = await body(await call(fx, 'PUT', `/snippets/${s.id}`, 'alice', { file_name: 'b.rb' }));
    expect(moved.files.map((f: { path: string }) => f.path)).toEqual(['b.rb']);
    expect((await text(fx, `/snippets/${s.id}/files/master/b.rb/raw`, 'alice')).text).toBe('puts 1');
    await call(fx, 'PUT', `/snippets/${s.id}`, 'alice', { content: 'puts 2' });
    expect((await text(fx, `/snippets/${s.id}/raw`, 'alice')).text).toBe('puts 2');
  });
});

describe('project snippet files', () => {
  it('POST /projects/:id/snippets: files[] as on personal snippets, raw URLs under the project', async () => {
    const fx = world();
    const s = await made(fx, SITE);
    expect(s.files).toEqual([
      { path: 'lib/a.rb', raw_url: `http://localhost/acme/site/-/snippets/${s.id}/raw/master/lib/a.rb` },
      { path: 'z.rb', raw_url: `http://localhost/acme/site/-/snippets/${s.id}/raw/master/z.rb` },
    ]);
    expect((await text(fx, `${SITE}/${s.id}/files/master/z.rb/raw`)).text).toBe('puts :z');
    expect(await body(await call(fx, 'GET', `${SITE}/${s.id}/files/v1/z.rb/raw`))).toEqual({
      message: '404 Reference Not Found',
    });
  });

  it('PUT /projects/:id/snippets/:snippet_id: a move without content keeps the content', async () => {
    const fx = world();
    const s = await made(fx, SITE);
    const res = await call(fx, 'PUT', `${SITE}/${s.id}`, 'alice', {
      files: [{ action: 'move', previous_path: 'z.rb', file_path: 'bin/z.rb' }],
    });
    expect((await body(res)).files.map((f: { path: string }) => f.path)).toEqual(['bin/z.rb', 'lib/a.rb']);
    expect((await text(fx, `${SITE}/${s.id}/files/master/bin%2Fz.rb/raw`)).text).toBe('puts :z');
  });
});

describe('snippet files in scenarios', () => {
  it('scenario snippets[].files: served as the files, exported and loaded back the same', async () => {
    const fx = world(
      {},
      {
        snippets: [
          {
            author: 'alice',
            title: 'Pair',
            visibility: 'public',
            files: [
              { path: 'b.txt', content: 'B' },
              { path: 'a.txt', content: 'A' },
            ],
          },
        ],
      },
    );
    const s = await body(await call(fx, 'GET', '/snippets/1', 'dev'));
    expect(s.files.map((f: { path: string }) => f.path)).toEqual(['a.txt', 'b.txt']);
    expect((await text(fx, '/snippets/1/raw', 'dev')).text).toBe('A');
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    expect(out.snippets).toEqual([
      {
        id: 1,
        author: 'alice',
        title: 'Pair',
        content: 'B',
        files: [
          { path: 'a.txt', content: 'A' },
          { path: 'b.txt', content: 'B' },
        ],
        visibility: 'public',
        created_at: fx.clock.iso(),
      },
    ]);
    const again = createFauxlab({ scenario: out });
    expect(exportScenario(again.state, { now: again.clock.iso() })).toEqual(out);
  });
});
