import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP, call, commitFiles, world } from './world.js';

const commit = (fx: ReturnType<typeof world>, body: Record<string, unknown>, token = 'dev') =>
  call(fx, 'POST', `${APP}/repository/commits`, token, {
    branch: 'master',
    commit_message: 'Change',
    ...body,
  });

describe('commits', () => {
  it('POST /projects/:id/repository/commits: 201 with the commit detail; ids and author as git computes them', async () => {
    const fx = world();
    const res = await commit(fx, {
      commit_message: 'Add docs\n\nTwo files.',
      actions: [
        { action: 'create', file_path: 'docs/intro.md', content: 'Hello\nworld\n' },
        {
          action: 'create',
          file_path: 'bin/run',
          content: Buffer.from([0, 1, 2]).toString('base64'),
          encoding: 'base64',
        },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Add docs',
      message: 'Add docs\n\nTwo files.',
      author_name: 'Dev User',
      author_email: 'dev@example.com',
      committer_name: 'Dev User',
      committed_date: '2021-03-01T12:00:00.000+00:00',
      stats: { additions: 2, deletions: 0, total: 2 },
      status: null,
      project_id: 1,
      last_pipeline: null,
    });
    // The same content committed by the git binary gives the same ids.
    const dir = mkdtempSync(join(tmpdir(), 'fauxlab-git-'));
    try {
      const git = (args: string[], input?: string | Buffer, env: Record<string, string> = {}) =>
        execFileSync('git', args, { cwd: dir, input, env: { ...process.env, ...env } })
          .toString()
          .trim();
      git(['init', '-q', '--bare', '.']);
      const intro = git(['hash-object', '-w', '--stdin'], 'Hello\nworld\n');
      const run = git(['hash-object', '-w', '--stdin'], Buffer.from([0, 1, 2]));
      const readme = git(['hash-object', '-w', '--stdin'], await rawReadme(fx, res.body.parent_ids[0]));
      const first = git(['mktree'], `100644 blob ${readme}\tREADME.md\n`);
      const at = (t: string, who: [string, string], by = who) => ({
        GIT_AUTHOR_NAME: who[0],
        GIT_AUTHOR_EMAIL: who[1],
        GIT_AUTHOR_DATE: `${Date.parse(t) / 1000} +0000`,
        GIT_COMMITTER_NAME: by[0],
        GIT_COMMITTER_EMAIL: by[1],
        GIT_COMMITTER_DATE: `${Date.parse(t) / 1000} +0000`,
      });
      // The initial commit of a never written project: the instance's identity at the project's creation.
      const initial = git(
        ['commit-tree', first],
        'Initial commit\n',
        at('2021-01-01T00:00:00Z', ['Administrator', 'admin@example.com']),
      );
      expect(initial).toBe(res.body.parent_ids[0]);
      const docs = git(['mktree'], `100644 blob ${intro}\tintro.md\n`);
      const bin = git(['mktree'], `100644 blob ${run}\trun\n`);
      const tree = git(
        ['mktree'],
        `100644 blob ${readme}\tREADME.md\n040000 tree ${bin}\tbin\n040000 tree ${docs}\tdocs\n`,
      );
      const id = git(
        ['commit-tree', tree, '-p', initial],
        'Add docs\n\nTwo files.',
        at('2021-03-01T12:00:00Z', ['Dev User', 'dev@example.com']),
      );
      expect(id).toBe(res.body.id);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const file = await call(fx, 'GET', `${APP}/repository/files/bin%2Frun?ref=master`, 'dev');
    expect(file.body.content).toBe(Buffer.from([0, 1, 2]).toString('base64'));
  });

  it("POST /projects/:id/repository/commits: the platform's errors, and nothing moves", async () => {
    const fx = world();
    await commitFiles(fx, { 'a.txt': 'a\n' });
    const head = (await call(fx, 'GET', `${APP}/repository/branches/master`, 'dev')).body.commit.id;
    const cases: [Record<string, unknown>, string][] = [
      [
        { actions: [{ action: 'create', file_path: 'a.txt', content: 'x' }] },
        'A file with this name already exists',
      ],
      [
        { actions: [{ action: 'update', file_path: 'nope.txt', content: 'x' }] },
        "A file with this name doesn't exist",
      ],
      [{ actions: [{ action: 'delete', file_path: 'nope.txt' }] }, "A file with this name doesn't exist"],
      [
        { actions: [{ action: 'move', file_path: 'README.md', previous_path: 'a.txt' }] },
        'A file with this name already exists',
      ],
      [
        { actions: [{ action: 'update', file_path: 'a.txt', content: 'b', last_commit_id: 'f'.repeat(40) }] },
        'The file has changed since you started editing it: a.txt',
      ],
      [
        { branch: 'new', actions: [{ action: 'create', file_path: 'b.txt', content: 'b' }] },
        'You can only create or edit files when you are on a branch',
      ],
      [
        { actions: [{ action: 'create', file_path: '../x', content: 'b' }] },
        'Path cannot include directory traversal',
      ],
    ];
    for (const [body, message] of cases) {
      const res = await commit(fx, body);
      expect([res.status, res.body]).toEqual([400, { message }]);
    }
    expect((await call(fx, 'GET', `${APP}/repository/branches/master`, 'dev')).body.commit.id).toBe(head);
    expect((await commit(fx, { actions: [{ action: 'remove', file_path: 'a' }] })).body).toEqual({
      error: 'actions[0][action] does not have a valid value',
    });
    expect((await commit(fx, { start_branch: 'master', start_sha: head, actions: [] })).body).toEqual({
      error: 'start_branch, start_sha are mutually exclusive',
    });
    expect((await commit(fx, { actions: [] }, 'rep')).status).toBe(403);
  });

  it('POST /projects/:id/repository/commits: update, move, chmod and delete; a new branch from start_branch', async () => {
    const fx = world();
    await commitFiles(fx, { 'a.txt': 'one\ntwo\n', 'dir/b.txt': 'b\n' });
    const res = await commit(fx, {
      branch: 'topic',
      start_branch: 'master',
      actions: [
        { action: 'update', file_path: 'a.txt', content: 'one\nTWO\n' },
        { action: 'move', file_path: 'c.txt', previous_path: 'dir/b.txt' },
        { action: 'chmod', file_path: 'c.txt', execute_filemode: true },
        { action: 'delete', file_path: 'README.md' },
      ],
    });
    expect(res.status).toBe(201);
    // The move is an exact rename: it counts no lines.
    expect(res.body.stats).toEqual({ additions: 1, deletions: 4, total: 5 });
    const tree = await call(fx, 'GET', `${APP}/repository/tree?ref=topic`, 'dev');
    expect(tree.body.map((e: { path: string; mode: string }) => `${e.mode} ${e.path}`)).toEqual([
      '100644 a.txt',
      '100755 c.txt',
    ]);
    const master = await call(fx, 'GET', `${APP}/repository/tree?ref=master`, 'dev');
    expect(master.body.map((e: { path: string }) => e.path)).toEqual(['README.md', 'a.txt', 'dir']);
    const diff = await call(fx, 'GET', `${APP}/repository/commits/topic/diff`, 'dev');
    expect(diff.body.find((d: { new_path: string }) => d.new_path === 'a.txt').diff).toBe(
      '@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n',
    );
  });

  it('GET /projects/:id/repository/commits: newest first, path, since/until, first page; 404 Commit Not Found', async () => {
    const fx = world();
    await commitFiles(fx, { 'a.txt': 'a\n' }, { message: 'First' });
    fx.clock.advance(60_000);
    await commitFiles(fx, { 'b.txt': 'b\n' }, { message: 'Second' });
    const list = await call(fx, 'GET', `${APP}/repository/commits`, 'rep');
    expect(list.body.map((x: { title: string }) => x.title)).toEqual(['Second', 'First', 'Initial commit']);
    expect(list.headers.get('x-total')).toBe('3');
    const byPath = await call(fx, 'GET', `${APP}/repository/commits?path=a.txt`, 'rep');
    expect(byPath.body.map((x: { title: string }) => x.title)).toEqual(['First']);
    const since = await call(fx, 'GET', `${APP}/repository/commits?since=2021-03-01T12:00:30Z`, 'rep');
    expect(since.body.map((x: { title: string }) => x.title)).toEqual(['Second']);
    const stats = await call(fx, 'GET', `${APP}/repository/commits?with_stats=true&per_page=1`, 'rep');
    expect(stats.body[0].stats).toEqual({ additions: 1, deletions: 0, total: 1 });
    expect((await call(fx, 'GET', `${APP}/repository/commits?ref_name=nope`, 'rep')).body).toEqual([]);
    expect((await call(fx, 'GET', `${APP}/repository/commits/${'e'.repeat(40)}`, 'rep')).body).toEqual({
      message: '404 Commit Not Found',
    });
    const one = await call(fx, 'GET', `${APP}/repository/commits/master`, 'rep');
    expect(one.body.title).toBe('Second');
    const refs = await call(fx, 'GET', `${APP}/repository/commits/${list.body[1].id}/refs`, 'rep');
    expect(refs.body).toEqual([{ type: 'branch', name: 'master' }]);
  });

  it('POST /projects/:id/repository/commits: the first commit of an empty project makes its default branch', async () => {
    const fx = world();
    const created = await call(fx, 'POST', '/projects', 'owner', { name: 'fresh' });
    expect(created.body.empty_repo).toBe(true);
    const id = created.body.id;
    expect((await call(fx, 'GET', `/projects/${id}/repository/branches`, 'owner')).body).toEqual([]);
    const res = await call(fx, 'POST', `/projects/${id}/repository/commits`, 'owner', {
      branch: 'main',
      commit_message: 'First',
      actions: [{ action: 'create', file_path: 'x', content: 'x' }],
    });
    expect([res.status, res.body.parent_ids]).toEqual([201, []]);
    const project = await call(fx, 'GET', `/projects/${id}`, 'owner');
    expect([project.body.default_branch, project.body.empty_repo]).toEqual(['main', false]);
  });
});

async function rawReadme(fx: ReturnType<typeof world>, ref: string): Promise<Buffer> {
  const res = await fx.app.request(`/api/v4${APP}/repository/files/README.md/raw?ref=${ref}`, {
    headers: { 'PRIVATE-TOKEN': 'dev' },
  });
  return Buffer.from(await res.arrayBuffer());
}
