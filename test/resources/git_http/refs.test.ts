/**
 * Every ref under `refs/` as git keeps it: notes (semantic-release's), custom namespaces, force updates
 * and deletes, `git check-ref-format`'s rules, and the platform's hidden refs refused on push.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, localServers } from '../../helpers.js';
import { hasGit, runGit } from './run-git.js';

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    {
      username: 'root',
      name: 'Administrator',
      admin: true,
      tokens: [{ token: 'root-api', scopes: ['api'] }],
    },
    { username: 'bob', name: 'Bob Builder', tokens: [{ token: 'bob-api', scopes: ['api'] }] },
  ],
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
            files: { 'README.md': '# App\n' },
          },
        ],
      },
    },
  ],
};

let root: string;
let fx: Fauxlab;
let base: string;
const listen = localServers();
const git = (args: string[], cwd = root) => runGit(root, args, cwd);
const url = (user = 'bob', token = 'bob-api') =>
  `${base.replace('http://', `http://${user}:${token}@`)}/acme/app.git`;
const api = (path: string) =>
  fx.fetch(new Request(`${base}/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': 'root-api' } }));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fauxlab-git-refs-'));
  fx = createFauxlab({ scenario });
  base = await listen(fx.fetch);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!hasGit)('refs beyond branches and tags', () => {
  it("semantic-release's notes push is kept, listed by ls-remote and fetched back with +refs/notes/*", async () => {
    const dir = join(root, 'notes');
    expect((await git(['clone', '-q', url(), dir])).code).toBe(0);
    await git(['tag', 'v1.0.0'], dir);
    await git(
      ['notes', '--ref', 'semantic-release-v1.0.0', 'add', '-m', '{"channels":[null]}', 'v1.0.0'],
      dir,
    );
    expect((await git(['push', '-q', 'origin', 'v1.0.0'], dir)).code).toBe(0);
    const r = await git(
      ['push', 'origin', 'refs/notes/semantic-release-v1.0.0:refs/notes/semantic-release-v1.0.0'],
      dir,
    );
    expect(r.stderr).toContain(
      '* [new reference]   refs/notes/semantic-release-v1.0.0 -> refs/notes/semantic-release-v1.0.0',
    );
    expect(r.code).toBe(0);
    const note = (await git(['rev-parse', 'refs/notes/semantic-release-v1.0.0'], dir)).stdout.trim();
    const ls = (await git(['ls-remote', url()])).stdout;
    expect(ls).toContain(`${note}\trefs/notes/semantic-release-v1.0.0\n`);
    // A second clone fetches the notes as semantic-release does.
    const other = join(root, 'notes-2');
    expect((await git(['clone', '-q', url(), other])).code).toBe(0);
    const f = await git(['fetch', 'origin', '+refs/notes/*:refs/notes/*'], other);
    expect(f.code).toBe(0);
    expect((await git(['notes', '--ref', 'semantic-release-v1.0.0', 'show', 'v1.0.0'], other)).stdout).toBe(
      '{"channels":[null]}\n',
    );
    expect((await git(['fsck', '--strict'], other)).code).toBe(0);
    // No push event for a notes ref: only the tag's.
    const events = await json(await api('/projects/acme%2Fapp/events?action=pushed'));
    expect(events.map((e: { push_data?: { ref: string } }) => e.push_data?.ref)).toEqual(['v1.0.0']);
  });

  it('a custom namespace takes a non-commit, a force update and a delete, as git does them', async () => {
    const dir = join(root, 'notes');
    writeFileSync(join(dir, 'blob.txt'), 'kept by a ref\n');
    const blob = (await git(['hash-object', '-w', 'blob.txt'], dir)).stdout.trim();
    expect((await git(['push', 'origin', `${blob}:refs/custom/blob`], dir)).code).toBe(0);
    expect((await git(['ls-remote', url(), 'refs/custom/*'])).stdout).toBe(`${blob}\trefs/custom/blob\n`);
    await git(['commit', '-q', '--allow-empty', '-m', 'side'], dir);
    const side = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    // Not a fast-forward of a blob: git asks for the force.
    const plain = await git(['push', 'origin', `HEAD:refs/custom/blob`], dir);
    expect(plain.code).not.toBe(0);
    const forced = await git(['push', '--force', 'origin', `HEAD:refs/custom/blob`], dir);
    expect(forced.code).toBe(0);
    expect((await git(['ls-remote', url(), 'refs/custom/*'])).stdout).toBe(`${side}\trefs/custom/blob\n`);
    // The commit only a custom ref reaches is the project's: the API reads it.
    expect((await api(`/projects/acme%2Fapp/repository/commits/${side}`)).status).toBe(200);
    expect((await git(['push', 'origin', ':refs/custom/blob'], dir)).code).toBe(0);
    expect((await git(['ls-remote', url(), 'refs/custom/*'])).stdout).toBe('');
  });

  it("the platform's hidden refs are refused on push with git's words; funny names too", async () => {
    const dir = join(root, 'notes');
    for (const ref of [
      'refs/merge-requests/1/head',
      'refs/keep-around/x',
      'refs/pipelines/1',
      'refs/tmp/a',
    ]) {
      const r = await git(['push', 'origin', `HEAD:${ref}`], dir);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`! [remote rejected] HEAD -> ${ref} (deny updating a hidden ref)`);
    }
    // One level under refs/ is not a name receive-pack takes.
    const r = await git(['push', 'origin', 'HEAD:refs/onelevel'], dir);
    expect(r.stderr).toContain('(funny refname)');
    expect((await git(['ls-remote', url()])).stdout).not.toMatch(/merge-requests|keep-around|onelevel/);
  });
});
