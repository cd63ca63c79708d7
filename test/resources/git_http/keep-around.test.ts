/**
 * `Repository#keep_around` for the records that call it besides pipelines, with the real git: a note
 * on a commit (`Note#keep_around_commit`), a diff note's position (`DiffNote#keep_around_commits`) and
 * a merge request's diff versions (`MergeRequestDiff#keep_around_commits`). The refs are hidden from
 * ls-remote (`uploadpack.hideRefs`), yet the commits stay fetchable by id once no branch has them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tget } from '../../../src/core/table.js';
import { createFauxlab, type Fauxlab } from '../../../src/index.js';
import { otherRefs } from '../../../src/resources/repository/refs.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, localServers } from '../../helpers.js';
import { hasGit, runGit } from './run-git.js';

// No CI file: no pipeline keeps anything around here.
const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [{ username: 'bob', name: 'Bob Builder', tokens: [{ token: 'bob-api', scopes: ['api'] }] }],
  projects: [
    {
      path: 'bob/app',
      visibility: 'public',
      repository: {
        commits: [
          { id: 'one', branch: 'master', message: 'One\n', author: 'bob', files: { 'x.txt': 'x\n' } },
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
const url = () => `${base.replace('http://', 'http://bob:bob-api@')}/bob/app.git`;
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fx.fetch(
    new Request(`${base}/api/v4/projects/bob%2Fapp${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': 'bob-api', 'Content-Type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    }),
  );
  return { status: res.status, body: await json(res) };
};
/** A commit on its own new branch, pushed; returns its id. */
const pushed = async (dir: string, branch: string, file: string) => {
  await git(['checkout', '-q', '-b', branch, 'origin/master'], dir);
  writeFileSync(join(dir, file), `${file}\n`);
  await git(['add', file], dir);
  await git(['commit', '-q', '-m', `Add ${file}`], dir);
  expect((await git(['push', '-q', 'origin', branch], dir)).code).toBe(0);
  return (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
};
/** Whether a fresh repository can fetch the commit by its id. */
const fetchable = async (sha: string) => {
  const other = mkdtempSync(join(root, 'fetch-'));
  await git(['init', '-q', other]);
  return (await git(['fetch', '-q', url(), sha], other)).code === 0;
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fauxlab-git-keep-around-'));
  fx = createFauxlab({ scenario });
  base = await listen(fx.fetch);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!hasGit)('keep-around refs of notes and merge request diffs', () => {
  it('a commit without a keeping record goes with its branch; one with a comment, a diff note or a merge request version stays', async () => {
    const dir = join(root, 'work');
    expect((await git(['clone', '-q', url(), dir])).code).toBe(0);
    const plain = await pushed(dir, 'plain', 'p.txt');
    const commented = await pushed(dir, 'commented', 'c.txt');
    const noted = await pushed(dir, 'noted', 'n.txt');
    const reviewed = await pushed(dir, 'reviewed', 'r.txt');
    expect((await api('POST', `/repository/commits/${commented}/comments`, { note: 'Nice' })).status).toBe(
      201,
    );
    const master = (await api('GET', '/repository/branches/master')).body.commit.id as string;
    const position = {
      position_type: 'text',
      base_sha: master,
      start_sha: master,
      head_sha: noted,
      new_path: 'n.txt',
      old_path: 'n.txt',
      new_line: 1,
    };
    const note = await api('POST', `/repository/commits/${noted}/discussions`, { body: 'Here', position });
    expect(note.status).toBe(201);
    const mr = await api('POST', '/merge_requests', {
      source_branch: 'reviewed',
      target_branch: 'master',
      title: 'R',
    });
    expect(mr.status).toBe(201);
    for (const b of ['plain', 'commented', 'noted', 'reviewed'])
      expect((await git(['push', '-q', 'origin', '--delete', b], dir)).code).toBe(0);
    const ls = (await git(['ls-remote', url()])).stdout;
    expect(ls).not.toContain('refs/keep-around/');
    expect(await fetchable(plain)).toBe(false);
    expect(await fetchable(commented)).toBe(true);
    expect(await fetchable(noted)).toBe(true);
    expect(await fetchable(reviewed)).toBe(true);
    // The refs are the platform's: every kept commit under its own name.
    const id = (await api('GET', '')).body.id as number;
    const others = otherRefs(fx.state, tget(fx.state.projects, id)!).map(([name]) => name);
    expect(others.filter((r) => r.startsWith('refs/keep-around/')).sort()).toEqual(
      [commented, noted, reviewed, master].map((s) => `refs/keep-around/${s}`).sort(),
    );
  });
});
