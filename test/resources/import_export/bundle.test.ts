import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { tarGz, untar } from './tar.js';

const tok = (token: string) => [{ token, scopes: ['api'] as ['api'] }];

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', name: 'Administrator', admin: true, tokens: tok('root') },
    { username: 'owner', name: 'Olive Owner', email: 'olive@example.com', tokens: tok('owner') },
  ],
  groups: [{ path: 'acme', visibility: 'public', members: [{ username: 'owner', access_level: 'owner' }] }],
  projects: [{ path: 'acme/app', visibility: 'private', creator: 'owner' }],
};

const APP = '/api/v4/projects/acme%2Fapp';
const GIT = existsSync('/usr/bin/git') ? '/usr/bin/git' : undefined;

async function call(fx: Fauxlab, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { 'PRIVATE-TOKEN': 'owner' };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  return fx.app.request(path, { method, headers, body: payload });
}

async function ok(fx: Fauxlab, method: string, path: string, body?: unknown): Promise<any> {
  const res = await call(fx, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Two branches, three commits with text and binary files, a lightweight and an annotated tag. */
async function history(fx: Fauxlab) {
  const binary = Buffer.from([0, 255, 1, 254, 0, 0, 7, 128, 10, 13]);
  const commit = (branch: string, actions: unknown[], extra: Record<string, unknown> = {}) =>
    ok(fx, 'POST', `${APP}/repository/commits`, {
      branch,
      commit_message: `Change ${branch}`,
      actions,
      ...extra,
    });
  await commit('master', [
    { action: 'create', file_path: 'src/main.c', content: 'int main() { return 0; }\n' },
    { action: 'create', file_path: 'img/logo.bin', content: binary.toString('base64'), encoding: 'base64' },
  ]);
  await commit('master', [
    { action: 'update', file_path: 'src/main.c', content: 'int main() { return 1; }\n' },
  ]);
  await commit('feature', [{ action: 'create', file_path: 'feature.txt', content: 'new\n' }], {
    start_branch: 'master',
  });
  await ok(fx, 'POST', `${APP}/repository/tags`, { tag_name: 'v1', ref: 'master' });
  await ok(fx, 'POST', `${APP}/repository/tags`, { tag_name: 'v2', ref: 'feature', message: 'Second\n' });
  return binary;
}

async function exported(fx: Fauxlab, project = APP): Promise<Buffer> {
  expect((await call(fx, 'POST', `${project}/export`)).status).toBe(202);
  fx.clock.advance(3000);
  const res = await call(fx, 'GET', `${project}/export/download`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Imports `bytes` as acme/<as> and runs the import's jobs; returns the API path of the new project. */
async function imported(fx: Fauxlab, bytes: Buffer, as = 'copy'): Promise<{ path: string; body: any }> {
  const form = new FormData();
  form.append('path', as);
  form.append('namespace', 'acme');
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/gzip' }), 'export.tar.gz');
  const created = await ok(fx, 'POST', '/api/v4/projects/import', form);
  fx.clock.advance(3000);
  const path = `/api/v4/projects/${created.id as number}`;
  return { path, body: await ok(fx, 'GET', `${path}/import`) };
}

/** What the API says of a repository: refs with their targets, every commit id, file contents. */
async function repositoryView(fx: Fauxlab, project: string) {
  const branches = (await ok(fx, 'GET', `${project}/repository/branches`)) as any[];
  const tags = (await ok(fx, 'GET', `${project}/repository/tags`)) as any[];
  const commits = (await ok(fx, 'GET', `${project}/repository/commits?all=true`)) as any[];
  const files: Record<string, string> = {};
  for (const ref of ['master', 'feature']) {
    const tree = (await ok(fx, 'GET', `${project}/repository/tree?ref=${ref}&recursive=true`)) as any[];
    for (const e of tree.filter((x) => x.type === 'blob')) {
      const raw = await call(fx, 'GET', `${project}/repository/blobs/${e.id as string}/raw`);
      files[`${ref}:${e.path as string}`] = Buffer.from(await raw.arrayBuffer()).toString('base64');
    }
  }
  return {
    branches: branches.map((b) => [b.name, b.commit.id]).sort(),
    tags: tags.map((t) => [t.name, t.target, t.commit.id, t.message]).sort(),
    commits: commits.map((c) => [c.id, c.parent_ids, c.title, c.authored_date]).sort(),
    files,
  };
}

function withGit<T>(run: (git: (args: string[]) => string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'fauxlab-bundle-'));
  try {
    const git = (args: string[]) =>
      execFileSync(GIT!, args, {
        cwd: dir,
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 20_000,
      }).toString();
    return run(git, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('export and import: the repository as a git bundle', () => {
  it('GET /projects/:id/export/download: project.bundle is a git v2 bundle of every ref and the objects they reach', async () => {
    const fx = createFauxlab({ scenario });
    await history(fx);
    const files = await untar(await exported(fx));
    const bundle = files.get('project.bundle')!;
    const head = bundle.toString('utf8', 0, bundle.indexOf('\n\n') + 2);
    const master = (await ok(fx, 'GET', `${APP}/repository/branches/master`)).commit.id as string;
    const feature = (await ok(fx, 'GET', `${APP}/repository/branches/feature`)).commit.id as string;
    const v2 = (await ok(fx, 'GET', `${APP}/repository/tags/v2`)).target as string;
    expect(v2).not.toBe(feature);
    expect(head).toBe(
      `# v2 git bundle\n${master} HEAD\n${feature} refs/heads/feature\n${master} refs/heads/master\n` +
        `${master} refs/tags/v1\n${v2} refs/tags/v2\n\n`,
    );
    expect(bundle.toString('latin1', head.length, head.length + 4)).toBe('PACK');
    // repository.json keeps the refs, peeled.
    expect(JSON.parse(files.get('repository.json')!.toString())).toEqual({
      branches: { master, feature },
      tags: { v1: master, v2: feature },
    });
  });

  it('POST /projects/import: a project.bundle recreates every object under its id on another instance', async () => {
    const source = createFauxlab({ scenario });
    const binary = await history(source);
    const bytes = await exported(source);
    const target = createFauxlab({ scenario });
    const { path, body } = await imported(target, bytes);
    expect(body.import_status).toBe('finished');
    const before = await repositoryView(source, APP);
    const after = await repositoryView(target, path);
    expect(after).toEqual(before);
    // The initial commit and three more.
    expect(before.commits).toHaveLength(4);
    expect(after.files['master:img/logo.bin']).toBe(binary.toString('base64'));
    const annotated = await ok(target, 'GET', `${path}/repository/tags/v2`);
    expect(annotated.message).toBe('Second\n');
  });

  it('POST /projects/import: a malformed project.bundle fails the import with its reason, and adds no ref', async () => {
    const source = createFauxlab({ scenario });
    await history(source);
    const files = await untar(await exported(source));
    const bundle = files.get('project.bundle')!;
    const broken = Buffer.from(bundle);
    broken.writeUInt8(broken.readUInt8(broken.length - 1) ^ 0xff, broken.length - 1);
    files.set('project.bundle', broken);
    const target = createFauxlab({ scenario });
    const { path, body } = await imported(target, await tarGz(files));
    expect(body).toMatchObject({
      import_status: 'failed',
      import_error: expect.stringContaining('project.bundle: pack checksum mismatch'),
    });
    expect((await call(target, 'GET', `${path}/repository/branches/feature`)).status).toBe(404);
    files.set('project.bundle', Buffer.from(`# v2 git bundle\n-${'a'.repeat(40)} base\n\nPACK`));
    const second = await imported(target, await tarGz(files), 'copy2');
    expect(second.body.import_error).toContain('prerequisite');
  });

  it('GET /projects/:id/export/download: an empty repository has no project.bundle (git makes no empty bundle); its import is empty too', async () => {
    const fx = createFauxlab({ scenario });
    const created = await ok(fx, 'POST', '/api/v4/projects', { name: 'empty' });
    expect(created.default_branch).toBeNull();
    const bytes = await exported(fx, `/api/v4/projects/${created.id as number}`);
    const files = await untar(bytes);
    expect(files.has('project.bundle')).toBe(false);
    expect(JSON.parse(files.get('repository.json')!.toString())).toEqual({ branches: {}, tags: {} });
    const { path, body } = await imported(fx, bytes);
    expect(body.import_status).toBe('finished');
    expect(await ok(fx, 'GET', `${path}/repository/branches`)).toEqual([]);
  });

  it('POST /projects/import: a bundle ref with a name git refuses fails the import', async () => {
    const source = createFauxlab({ scenario });
    await history(source);
    const files = await untar(await exported(source));
    const bundle = files.get('project.bundle')!;
    const text = bundle.toString('latin1').replace('refs/heads/feature', 'refs/heads/fe..ture');
    files.set('project.bundle', Buffer.from(text, 'latin1'));
    const target = createFauxlab({ scenario });
    const { body } = await imported(target, await tarGz(files));
    expect(body).toMatchObject({
      import_status: 'failed',
      import_error: expect.stringContaining('project.bundle names an invalid ref "refs/heads/fe..ture"'),
    });
  });

  it.skipIf(!GIT)(
    'project.bundle: git bundle verify and git clone read it; the clone has the same refs and contents',
    async () => {
      const fx = createFauxlab({ scenario });
      const binary = await history(fx);
      const bundle = (await untar(await exported(fx))).get('project.bundle')!;
      const view = await repositoryView(fx, APP);
      withGit((git, dir) => {
        writeFileSync(join(dir, 'project.bundle'), bundle);
        git(['init', '-q', '--bare', 'check.git']);
        execFileSync(GIT!, ['bundle', 'verify', join(dir, 'project.bundle')], {
          cwd: join(dir, 'check.git'),
          stdio: 'pipe',
          timeout: 20_000,
        });
        git(['clone', '-q', '--mirror', 'project.bundle', 'clone.git']);
        const refs = git(['-C', 'clone.git', 'for-each-ref', '--format=%(refname) %(objectname)'])
          .trim()
          .split('\n')
          .sort();
        expect(refs).toEqual(
          [
            ...view.branches.map(([n, id]) => `refs/heads/${n as string} ${id as string}`),
            ...view.tags.map(([n, target]) => `refs/tags/${n as string} ${target as string}`),
          ].sort(),
        );
        git(['-C', 'clone.git', 'fsck', '--strict', '--no-dangling']);
        const logo = execFileSync(GIT!, ['-C', 'clone.git', 'cat-file', 'blob', 'master:img/logo.bin'], {
          cwd: dir,
          timeout: 20_000,
        });
        expect(logo.equals(binary)).toBe(true);
        expect(git(['-C', 'clone.git', 'cat-file', 'tag', 'v2'])).toContain('\n\nSecond\n');
      });
    },
  );

  it.skipIf(!GIT)(
    "POST /projects/import: a bundle git made (deltas included) imports with git's ids",
    async () => {
      const fx = createFauxlab({ scenario });
      const files = await untar(await exported(fx));
      const expected = withGit((git, dir) => {
        const env = {
          GIT_AUTHOR_NAME: 'A',
          GIT_AUTHOR_EMAIL: 'a@example.com',
          GIT_COMMITTER_NAME: 'A',
          GIT_COMMITTER_EMAIL: 'a@example.com',
          GIT_AUTHOR_DATE: '1600000000 +0000',
          GIT_COMMITTER_DATE: '1600000000 +0000',
        };
        const run = (args: string[]) =>
          execFileSync(GIT!, ['-C', 'work', ...args], {
            cwd: dir,
            env: { ...process.env, ...env },
            timeout: 20_000,
          })
            .toString()
            .trim();
        git(['init', '-q', '-b', 'master', 'work']);
        // Similar large files over several commits: git packs them as deltas.
        let text = '';
        for (let i = 0; i < 400; i++) text += `line ${i} of a file that changes a little\n`;
        for (let n = 0; n < 3; n++) {
          writeFileSync(join(dir, 'work', 'big.txt'), text + `change ${n}\n`);
          run(['add', 'big.txt']);
          run(['commit', '-q', '-m', `commit ${n}`]);
        }
        run(['tag', '-a', 'v1', '-m', 'Tagged']);
        run(['bundle', 'create', '../git.bundle', '--all']);
        files.set('project.bundle', readFileSync(join(dir, 'git.bundle')));
        return {
          head: run(['rev-parse', 'HEAD']),
          tag: run(['rev-parse', 'v1']),
          blob: run(['rev-parse', 'HEAD:big.txt']),
          content: readFileSync(join(dir, 'work', 'big.txt')).toString(),
        };
      });
      const { path, body } = await imported(fx, await tarGz(files));
      expect(body.import_status).toBe('finished');
      expect((await ok(fx, 'GET', `${path}/repository/branches/master`)).commit.id).toBe(expected.head);
      const tag = await ok(fx, 'GET', `${path}/repository/tags/v1`);
      expect([tag.target, tag.commit.id, tag.message]).toEqual([expected.tag, expected.head, 'Tagged\n']);
      const raw = await call(fx, 'GET', `${path}/repository/blobs/${expected.blob}/raw`);
      expect(await raw.text()).toBe(expected.content);
      const commits = (await ok(fx, 'GET', `${path}/repository/commits?ref_name=master`)) as any[];
      expect(commits.map((c) => c.title)).toEqual(['commit 2', 'commit 1', 'commit 0']);
    },
  );
});
