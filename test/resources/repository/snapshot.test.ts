/**
 * `GET /projects/:id/snapshot` (`lib/api/project_snapshots.rb`): the bare repository as a tar, for
 * administrators: unpacked, it is a repository `git` reads (fsck, log, clone) with the refs the API has.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiPath, request } from '../helpers.js';
import { hasGit } from '../git_http/run-git.js';
import { APP, call, commitFiles, world, type World } from './world.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function snapshot(fx: World, query = '', token = 'root') {
  const res = await request(fx, 'GET', apiPath(`${APP}/snapshot${query}`), { token });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Unpacks a tar into a new directory; git run there with a clean environment. */
function unpack(tar: Buffer) {
  const dir = mkdtempSync(join(tmpdir(), 'fauxlab-snapshot-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'snapshot.tar'), tar);
  execFileSync('tar', ['-xf', 'snapshot.tar', '-C', dir, '--one-top-level=repo'], { cwd: dir });
  const repo = join(dir, 'repo');
  const git = (...args: string[]) =>
    execFileSync('/usr/bin/git', ['--git-dir', repo, ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
    }).toString();
  return { dir, repo, git };
}

describe('GET /projects/:id/snapshot', () => {
  it("administrators only: 401 anonymous, 403 below (the owner too), 404 for a project that isn't", async () => {
    const fx = world();
    const status = async (token?: string, path = `${APP}/snapshot`) =>
      (await request(fx, 'GET', apiPath(path), { token })).status;
    expect(await status()).toBe(401);
    for (const token of ['owner', 'maint', 'dev', 'outsider']) expect(await status(token)).toBe(403);
    expect(await status('root')).toBe(200);
    expect(await status('root', '/projects/acme%2Fnope/snapshot')).toBe(404);
    const body = await (await request(fx, 'GET', apiPath(`${APP}/snapshot`), { token: 'owner' })).json();
    expect(body).toEqual({ message: '403 Forbidden' });
  });

  it.skipIf(!hasGit)(
    "Workhorse's headers; the tar is the bare repository: HEAD, every ref, the objects in one indexed pack",
    async () => {
      const fx = world();
      const one = await commitFiles(fx, { 'src/a.c': 'int a;\n' });
      await commitFiles(fx, { 'docs/b.md': '# B\n' }, { branch: 'feature', start_branch: 'master' });
      await call(fx, 'POST', `${APP}/repository/tags`, 'owner', {
        tag_name: 'v1',
        ref: one.id,
        message: 'One\n',
      });
      const { res, bytes } = await snapshot(fx);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/x-tar');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="snapshot.tar"');
      expect(res.headers.get('content-transfer-encoding')).toBe('binary');
      expect(res.headers.get('cache-control')).toBe('private');

      const { dir, repo, git } = unpack(bytes);
      expect(readFileSync(join(repo, 'HEAD'), 'utf8')).toBe('ref: refs/heads/master\n');
      // Gitaly leaves out what `git fetch` does not replicate.
      expect(readdirSync(repo).sort()).toEqual(['HEAD', 'objects', 'refs']);
      expect(
        readdirSync(join(repo, 'objects/pack'))
          .map((f) => f.replace(/[0-9a-f]{40}/, 'X'))
          .sort(),
      ).toEqual(['pack-X.idx', 'pack-X.pack']);
      git('fsck', '--strict', '--no-dangling');
      const branches = (await call(fx, 'GET', `${APP}/repository/branches`, 'root')).body as {
        name: string;
        commit: { id: string };
      }[];
      const refs = git('for-each-ref', '--format=%(refname) %(objectname) %(*objectname)');
      for (const b of branches) expect(refs).toContain(`refs/heads/${b.name} ${b.commit.id}`);
      const tag = (await call(fx, 'GET', `${APP}/repository/tags/v1`, 'root')).body;
      expect(refs).toContain(`refs/tags/v1 ${tag.target} ${one.id}`);
      expect(git('show', 'feature:docs/b.md')).toBe('# B\n');
      expect(git('rev-list', '--count', 'master')).toBe('2\n');
      // The pack's own index is what `git index-pack` would make of it.
      const pack = readdirSync(join(repo, 'objects/pack')).find((f) => f.endsWith('.pack'))!;
      const mine = readFileSync(join(repo, 'objects/pack', pack.replace('.pack', '.idx')));
      execFileSync(
        '/usr/bin/git',
        ['index-pack', '-o', join(dir, 'again.idx'), join(repo, 'objects/pack', pack)],
        {
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
        },
      );
      expect(mine.equals(readFileSync(join(dir, 'again.idx')))).toBe(true);
      // And it clones.
      execFileSync('/usr/bin/git', ['clone', '-q', repo, join(dir, 'work')], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
      });
      expect(readFileSync(join(dir, 'work/src/a.c'), 'utf8')).toBe('int a;\n');
    },
  );

  it.skipIf(!hasGit)('a repository never written: its initial commit on the default branch', async () => {
    const fx = world();
    const { git } = unpack((await snapshot(fx)).bytes);
    const master = (await call(fx, 'GET', `${APP}/repository/branches/master`, 'root')).body.commit.id;
    expect(git('rev-parse', 'master')).toBe(`${master}\n`);
    git('fsck', '--strict');
  });

  it.skipIf(!hasGit)("wiki=true: the wiki's repository, its pages as files on master", async () => {
    const fx = world();
    await call(fx, 'POST', `${APP}/wikis`, 'owner', { title: 'Home', content: 'Welcome' });
    await call(fx, 'POST', `${APP}/wikis`, 'owner', {
      title: 'docs/Setup',
      content: 'Run it',
      format: 'rdoc',
    });
    const { git } = unpack((await snapshot(fx, '?wiki=true')).bytes);
    expect(git('ls-tree', '-r', '--name-only', 'master')).toBe('Home.md\ndocs/Setup.rdoc\n');
    expect(git('show', 'master:docs/Setup.rdoc')).toBe('Run it');
    git('fsck', '--strict');
    // Without pages the wiki has no commits: HEAD names an unborn master.
    const empty = unpack((await snapshot(world(), '?wiki=true')).bytes);
    expect(empty.git('for-each-ref')).toBe('');
    expect((await snapshot(fx, '?wiki=maybe')).res.status).toBe(400);
  });
});
