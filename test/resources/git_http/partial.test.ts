/**
 * Partial clone (`--filter`), lazy fetches of missing objects, protocol v2's ls-refs and fetch, and the
 * shallow forms (`--depth`, `--shallow-since`, `--shallow-exclude`, `--unshallow`), with the real git.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { localServers } from '../../helpers.js';
import { hasGit, runGit } from './run-git.js';

const big = 'x'.repeat(5000) + '\n';
const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [{ username: 'bob', name: 'Bob Builder', tokens: [{ token: 'bob-api', scopes: ['api'] }] }],
  groups: [{ path: 'acme', visibility: 'public' }],
  projects: [
    {
      path: 'acme/app',
      visibility: 'public',
      members: [{ username: 'bob', access_level: 'developer' }],
      repository: {
        commits: [
          {
            id: 'one',
            branch: 'master',
            message: 'First\n',
            author: 'bob',
            date: '2020-01-01T00:00:00Z',
            committed_date: '2020-01-01T00:00:00Z',
            files: { 'README.md': '# App\n', 'big.bin': big, 'src/lib/deep.c': 'deep\n' },
          },
          {
            id: 'two',
            branch: 'master',
            message: 'Second\n',
            author: 'bob',
            date: '2020-06-01T00:00:00Z',
            committed_date: '2020-06-01T00:00:00Z',
            files: { 'src/main.c': 'int main;\n' },
          },
          {
            id: 'three',
            branch: 'master',
            message: 'Third\n',
            author: 'bob',
            date: '2021-01-01T00:00:00Z',
            committed_date: '2021-01-01T00:00:00Z',
            files: { 'docs/a.txt': 'a\n' },
          },
        ],
        tags: [{ name: 'v1', commit: 'two' }],
      },
    },
  ],
};

let root: string;
let base: string;
const listen = localServers();
const git = (args: string[], cwd = root) => runGit(root, args, cwd);
const url = () => `${base}/acme/app.git`;

/** Objects of a clone that are missing (promised by the remote), as `rev-list --missing=print` lists them. */
async function missing(dir: string): Promise<string[]> {
  const r = await git(['rev-list', '--objects', '--all', '--missing=print'], dir);
  return r.stdout
    .split('\n')
    .filter((l) => l.startsWith('?'))
    .map((l) => l.slice(1));
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fauxlab-git-partial-'));
  base = await listen(createFauxlab({ scenario }).fetch);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!hasGit)('partial clone', () => {
  it('--filter=blob:none clones without blobs; checkout fetches the blobs it needs by want', async () => {
    const dir = join(root, 'blobless');
    const r = await git(['clone', '-q', '--no-checkout', '--filter=blob:none', url(), dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // Every blob of the history is promised, none is here.
    const before = await missing(dir);
    // README.md, big.bin, deep.c, main.c, a.txt.
    expect(before.length).toBe(5);
    expect((await git(['cat-file', '-t', 'HEAD^{tree}'], dir)).stdout.trim()).toBe('tree');
    const co = await git(['checkout', '-q', 'master'], dir);
    expect(co.code).toBe(0);
    expect(readFileSync(join(dir, 'big.bin'), 'utf8')).toBe(big);
    expect(readFileSync(join(dir, 'src/main.c'), 'utf8')).toBe('int main;\n');
    // The head's tree names all five: each came by a want of its id.
    expect(await missing(dir)).toEqual([]);
    expect((await git(['fsck'], dir)).code).toBe(0);
  });

  it('--filter=blob:limit leaves out the blobs of the limit or more only', async () => {
    const dir = join(root, 'limit');
    expect((await git(['clone', '-q', '--no-checkout', '--filter=blob:limit=1k', url(), dir])).code).toBe(0);
    const bigId = (await git(['rev-parse', 'master:big.bin'], dir)).stdout.trim();
    expect(await missing(dir)).toEqual([bigId]);
  });

  it('--filter=tree:0 sends commits alone; a log still works and a checkout fetches trees and blobs', async () => {
    const dir = join(root, 'treeless');
    expect((await git(['clone', '-q', '--no-checkout', '--filter=tree:0', url(), dir])).code).toBe(0);
    const log = await git(['log', '--format=%s', 'master'], dir);
    expect(log.stdout).toBe('Third\nSecond\nFirst\n');
    // The three root trees are promised (nothing under them is even named).
    const promised = await missing(dir);
    expect(promised).toHaveLength(3);
    expect(promised).toContain((await git(['rev-parse', 'master^{tree}'], dir)).stdout.trim());
    expect((await git(['checkout', '-q', 'master'], dir)).code).toBe(0);
    expect(readFileSync(join(dir, 'src/lib/deep.c'), 'utf8')).toBe('deep\n');
  });

  it('tree:1 keeps the root trees only; a bad spec is refused with upload-pack words', async () => {
    const dir = join(root, 'tree1');
    expect((await git(['clone', '-q', '--no-checkout', '--filter=tree:1', url(), dir])).code).toBe(0);
    const types = await git(['cat-file', '--batch-check', '--batch-all-objects'], dir);
    expect(types.stdout).not.toContain(' blob ');
    // The root trees are here; `src` is not.
    expect((await git(['cat-file', '-t', 'master^{tree}'], dir)).stdout.trim()).toBe('tree');
    const src = (await git(['rev-parse', 'master:src'], dir)).stdout.trim();
    expect(await missing(dir)).toContain(src);
    const bad = await git(['clone', '-q', '--filter=blob:limit=lots', url(), join(root, 'bad')]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("invalid filter-spec 'blob:limit=lots'");
  });
});

describe.skipIf(!hasGit)('protocol v2 and shallow fetches', () => {
  it('ls-remote over v2 lists a pushed notes ref by its prefix, and shows the HEAD symref', async () => {
    const dir = join(root, 'v2-notes');
    const auth = url().replace('http://', 'http://bob:bob-api@');
    expect((await git(['-c', 'protocol.version=2', 'clone', '-q', auth, dir])).code).toBe(0);
    await git(['notes', 'add', '-m', 'reviewed'], dir);
    expect((await git(['push', '-q', 'origin', 'refs/notes/commits'], dir)).code).toBe(0);
    const note = (await git(['rev-parse', 'refs/notes/commits'], dir)).stdout.trim();
    const r = await git(['-c', 'protocol.version=2', 'ls-remote', url(), 'refs/notes/*']);
    expect(r.stdout).toBe(`${note}\trefs/notes/commits\n`);
    const head = await git(['-c', 'protocol.version=2', 'ls-remote', '--symref', url(), 'HEAD']);
    expect(head.stdout).toMatch(/^ref: refs\/heads\/master\tHEAD\n[0-9a-f]{40}\tHEAD\n$/);
    // A v2 fetch of the notes by refspec.
    const other = join(root, 'v2-notes-2');
    await git(['init', '-q', other]);
    const f = await git(
      ['-c', 'protocol.version=2', 'fetch', '-q', url(), 'refs/notes/*:refs/notes/*'],
      other,
    );
    expect(f.code).toBe(0);
    expect((await git(['rev-parse', 'refs/notes/commits'], other)).stdout.trim()).toBe(note);
  });

  it("v2 as git 2.31's upload-pack advertises it: ls-refs=unborn (git's clone then asks for it), fetch with wait-for-done, object-info", async () => {
    const dir = join(root, 'v2-trace');
    const trace = join(root, 'v2-trace.log');
    const r = await runGit(root, ['-c', 'protocol.version=2', 'clone', '-q', url(), dir], root, {
      GIT_TRACE_PACKET: trace,
    });
    expect(r.code).toBe(0);
    const lines = readFileSync(trace, 'utf8')
      .split('\n')
      .map((l) => /packet: +\S+([<>]) (.*)$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => `${m[1]} ${m[2]}`);
    // git's trace shows the version line twice (read once to pick the protocol, once as the list).
    const advertised = lines
      .slice(0, lines.indexOf('< 0000'))
      .filter((l, i, all) => l !== '< version 2' || all.indexOf(l) === i);
    expect(advertised).toEqual([
      '< version 2',
      '< agent=git/2.31.1',
      '< ls-refs=unborn',
      '< fetch=shallow wait-for-done filter',
      '< server-option',
      '< object-format=sha1',
      '< object-info',
    ]);
    // git's clone sends `unborn` only to a server that advertises it.
    expect(lines).toContain('> unborn');
    expect(lines).toContain('> command=fetch');
  });

  for (const version of ['0', '2'])
    it(`--shallow-since, --shallow-exclude and --unshallow (protocol v${version})`, async () => {
      const dir = join(root, `since-v${version}`);
      const v = ['-c', `protocol.version=${version}`];
      const r = await git([...v, 'clone', '-q', '--shallow-since=2020-03-01', url(), dir]);
      expect(r.stderr).toBe('');
      expect((await git(['log', '--format=%s'], dir)).stdout).toBe('Third\nSecond\n');
      expect(readFileSync(join(dir, '.git/shallow'), 'utf8').trim().split('\n')).toHaveLength(1);
      const ex = join(root, `exclude-v${version}`);
      expect((await git([...v, 'clone', '-q', '--shallow-exclude=v1', url(), ex])).code).toBe(0);
      expect((await git(['log', '--format=%s'], ex)).stdout).toBe('Third\n');
      const un = await git([...v, 'fetch', '-q', '--unshallow'], ex);
      expect(un.code).toBe(0);
      expect((await git(['log', '--format=%s'], ex)).stdout).toBe('Third\nSecond\nFirst\n');
      expect((await git(['fsck'], ex)).code).toBe(0);
      const none = await git([
        ...v,
        'clone',
        '-q',
        '--shallow-since=2030-01-01',
        url(),
        join(root, `none-${version}`),
      ]);
      expect(none.code).not.toBe(0);
      expect(none.stderr).toContain('no commits selected for shallow requests');
    });
});
