/**
 * End to end with the Debian `git` binary: a pushed branch, a merge request opened through the API, its
 * merge request pipeline running on the instance clock, and merge when pipeline succeeds merging it;
 * the push and the fetch count as the user's activity.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, localServers } from '../../helpers.js';

const GIT = '/usr/bin/git';
const hasGit = existsSync(GIT);

const CI =
  'build:\n  script: make\ntest:\n  script: make test\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "merge_request_event"\n';

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', admin: true, tokens: [{ token: 'root-api', scopes: ['api'] }] },
    // Active yesterday: a push and a fetch today move the date.
    { username: 'alice', last_activity_on: '2021-02-28', tokens: [{ token: 'alice-api', scopes: ['api'] }] },
    { username: 'bob', last_activity_on: '2021-02-28', tokens: [{ token: 'bob-api', scopes: ['api'] }] },
    // Only fetches, over git.
    {
      username: 'carol',
      last_activity_on: '2021-02-28',
      tokens: [{ token: 'carol-git', scopes: ['read_repository'] }],
    },
  ],
  groups: [
    {
      path: 'acme',
      visibility: 'public',
      members: [
        { username: 'alice', access_level: 'maintainer' },
        { username: 'bob', access_level: 'developer' },
        { username: 'carol', access_level: 'reporter' },
      ],
    },
  ],
  projects: [
    {
      path: 'acme/app',
      // Private: git sends its credentials (for a public project it fetches anonymously).
      visibility: 'private',
      repository: {
        commits: [
          { id: 'one', branch: 'master', message: 'CI\n', author: 'alice', files: { '.gitlab-ci.yml': CI } },
        ],
      },
    },
  ],
};

let root: string;
let fx: Fauxlab;
let base: string;
const listen = localServers();

function git(args: string[], cwd = root): Promise<{ code: number; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      GIT,
      args,
      {
        cwd,
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: root,
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_TERMINAL_PROMPT: '0',
          GIT_ASKPASS: '',
          GIT_AUTHOR_NAME: 'Alice',
          GIT_AUTHOR_EMAIL: 'alice@example.com',
          GIT_COMMITTER_NAME: 'Alice',
          GIT_COMMITTER_EMAIL: 'alice@example.com',
        },
      },
      (err, stdout, stderr) =>
        resolve({
          code: err ? ((err as { code?: number }).code ?? 1) : 0,
          stdout: String(stdout),
          stderr: String(stderr),
        }),
    );
  });
}

const api = async (method: string, path: string, token = 'root-api', body?: unknown) => {
  const res = await fx.fetch(
    new Request(`${base}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    }),
  );
  return { status: res.status, body: await json(res) };
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fauxlab-mr-pipeline-'));
  fx = createFauxlab({ scenario });
  base = await listen(fx.fetch);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!hasGit)('git push, merge request pipeline, merge when pipeline succeeds', () => {
  it('a pushed branch and an API merge request: the MR pipeline runs on the clock and MWPS merges it', async () => {
    const remote = `${base.replace('http://', 'http://alice:alice-api@')}/acme/app.git`;
    const clone = await git(['clone', '-q', remote, 'app']);
    expect(clone.code).toBe(0);
    const dir = join(root, 'app');
    writeFileSync(join(dir, 'feature.txt'), 'feature\n');
    expect((await git(['checkout', '-q', '-b', 'feature'], dir)).code).toBe(0);
    expect((await git(['add', '.'], dir)).code).toBe(0);
    expect((await git(['commit', '-q', '-m', 'Feature'], dir)).code).toBe(0);
    const push = await git(['push', '-q', 'origin', 'feature'], dir);
    expect(push.code).toBe(0);
    const head = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();

    const opened = await api('POST', '/projects/acme%2Fapp/merge_requests', 'bob-api', {
      source_branch: 'feature',
      target_branch: 'master',
      title: 'Feature',
    });
    expect(opened.status).toBe(201);
    expect(opened.body.head_pipeline).toMatchObject({
      ref: 'refs/merge-requests/1/head',
      sha: head,
      status: 'pending',
    });
    const pipelines = (await api('GET', '/projects/acme%2Fapp/merge_requests/1/pipelines')).body;
    expect(pipelines.map((p: any) => [p.ref, p.sha])).toEqual([
      ['refs/merge-requests/1/head', head],
      ['feature', head],
    ]);

    const mwps = await api('PUT', '/projects/acme%2Fapp/merge_requests/1/merge', 'alice-api', {
      merge_when_pipeline_succeeds: true,
    });
    expect([mwps.status, mwps.body.merge_when_pipeline_succeeds, mwps.body.state]).toEqual([
      200,
      true,
      'opened',
    ]);
    fx.clock.advance(5_000);
    expect((await api('GET', `/projects/acme%2Fapp/pipelines/${pipelines[0].id}`)).body.status).toBe(
      'running',
    );
    fx.clock.advance(60_000);
    const merged = (await api('GET', '/projects/acme%2Fapp/merge_requests/1')).body;
    expect([merged.state, merged.merged_by.username, merged.head_pipeline.status]).toEqual([
      'merged',
      'alice',
      'success',
    ]);

    // The merge is on master, as `git` sees it.
    const fetch = await git(['fetch', '-q', 'origin'], dir);
    expect(fetch.code).toBe(0);
    const log = (await git(['log', '--format=%s', '-2', 'origin/master'], dir)).stdout;
    expect(log).toContain("Merge branch 'feature' into 'master'");

    // A fetch is the fetching user's activity (carol makes no API request).
    const carol = await git([
      'clone',
      '-q',
      `${base.replace('http://', 'http://carol:carol-git@')}/acme/app.git`,
      'carol',
    ]);
    expect(carol.code).toBe(0);
    const users = (await api('GET', '/users?order_by=id&sort=asc')).body;
    expect(users.map((u: any) => [u.username, u.last_activity_on])).toEqual([
      ['root', '2021-03-01'],
      ['alice', '2021-03-01'],
      ['bob', '2021-03-01'],
      ['carol', '2021-03-01'],
    ]);
  });
});
