/**
 * The refs the platform writes for its records, with the real git: a deployment's
 * `refs/environments/<slug>/deployments/<iid>` (`Deployment#create_ref`), advertised and fetchable by
 * name, refused on push as receive-pack's hidden refs; a pipeline's commit kept around
 * (`refs/keep-around/<sha>`), hidden from both services, which keeps the commit in the repository
 * after a force push takes it off its branch.
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
    { username: 'root', admin: true, tokens: [{ token: 'root-api', scopes: ['api'] }] },
    { username: 'bob', name: 'Bob Builder', tokens: [{ token: 'bob-api', scopes: ['api'] }] },
  ],
  groups: [{ path: 'acme', visibility: 'public' }],
  projects: [
    {
      path: 'acme/app',
      visibility: 'public',
      members: [{ username: 'bob', access_level: 'maintainer' }],
      repository: {
        commits: [
          {
            id: 'one',
            branch: 'master',
            message: 'CI\n',
            author: 'bob',
            files: { '.gitlab-ci.yml': 'test:\n  script: make\n' },
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
const url = () => `${base.replace('http://', 'http://bob:bob-api@')}/acme/app.git`;
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fx.fetch(
    new Request(`${base}/api/v4/projects/acme%2Fapp${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    }),
  );
  return { status: res.status, body: await json(res) };
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fauxlab-git-platform-refs-'));
  fx = createFauxlab({ scenario });
  base = await listen(fx.fetch);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!hasGit)("the platform's own refs", () => {
  it('a deployment makes refs/environments/<slug>/deployments/<iid>: listed, fetched by name, refused on push', async () => {
    const dir = join(root, 'work');
    expect((await git(['clone', '-q', url(), dir])).code).toBe(0);
    const head = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    const made = await api('POST', '/deployments', {
      environment: 'review/app',
      sha: head,
      ref: 'master',
      tag: false,
      status: 'success',
    });
    expect(made.status).toBe(201);
    const env = (await api('GET', '/environments')).body.find((e: any) => e.name === 'review/app');
    const ref = `refs/environments/${env.slug}/deployments/${made.body.iid}`;
    const ls = await git(['ls-remote', url(), 'refs/environments/*']);
    expect(ls.stdout).toBe(`${head}\t${ref}\n`);
    const other = join(root, 'fetch-env');
    await git(['init', '-q', other]);
    expect((await git(['fetch', '-q', url(), ref], other)).code).toBe(0);
    expect((await git(['rev-parse', 'FETCH_HEAD'], other)).stdout.trim()).toBe(head);
    // receive.hideRefs: git refuses the hidden ref before the platform sees it.
    const push = await git(['push', 'origin', `HEAD:${ref}`], dir);
    expect(push.code).not.toBe(0);
    expect(push.stderr).toContain('deny updating a hidden ref');
  });

  it("a pipeline's commit is kept around: hidden from ls-remote, yet there after a force push removes it", async () => {
    const dir = join(root, 'work');
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    await git(['add', 'a.txt'], dir);
    await git(['commit', '-q', '-m', 'Add a'], dir);
    const kept = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    expect((await git(['push', '-q', 'origin', 'master'], dir)).code).toBe(0);
    const pipelines = (await api('GET', '/pipelines')).body;
    expect(pipelines.map((p: any) => p.sha)).toContain(kept);
    await git(['reset', '-q', '--hard', 'HEAD~1'], dir);
    expect((await git(['push', '-q', '-f', 'origin', 'master'], dir)).code).toBe(0);
    const ls = (await git(['ls-remote', url()])).stdout;
    expect(ls).not.toContain('refs/keep-around/');
    expect(ls).not.toContain(kept);
    // The commit is still the repository's: the API shows it, git fetches it by its id.
    expect((await api('GET', `/repository/commits/${kept}`)).body.id).toBe(kept);
    const other = join(root, 'fetch-kept');
    await git(['init', '-q', other]);
    expect((await git(['fetch', '-q', url(), kept], other)).code).toBe(0);
    expect((await git(['cat-file', '-t', kept], other)).stdout.trim()).toBe('commit');
    // By name it is hidden (uploadpack.hideRefs): git cannot fetch it.
    const byName = await git(['fetch', '-q', url(), `refs/keep-around/${kept}`], other);
    expect(byName.code).not.toBe(0);
  });

  it("a pipeline's persistent ref (Ci::PersistentRef): refs/pipelines/<id> once a job runs, fetched by name after its branch is gone, removed when the pipeline completes, refused on push", async () => {
    const dir = join(root, 'work');
    await git(['checkout', '-q', '-b', 'pipe'], dir);
    writeFileSync(join(dir, 'p.txt'), 'p\n');
    await git(['add', 'p.txt'], dir);
    await git(['commit', '-q', '-m', 'Pipe'], dir);
    const sha = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    expect((await git(['push', '-q', 'origin', 'pipe'], dir)).code).toBe(0);
    const pipeline = (await api('GET', '/pipelines?ref=pipe')).body[0];
    expect(pipeline.sha).toBe(sha);
    const ref = `refs/pipelines/${pipeline.id}`;
    const listed = async (v: number) =>
      (await git(['-c', `protocol.version=${v}`, 'ls-remote', url(), ref])).stdout;
    // Pending: no job has started yet.
    expect((await api('GET', `/pipelines/${pipeline.id}`)).body.status).toBe('pending');
    expect(await listed(2)).toBe('');
    // The queue time (3 s by default) passes: the job runs.
    fx.clock.advance(4000);
    expect((await api('GET', `/pipelines/${pipeline.id}`)).body.status).toBe('running');
    for (const v of [0, 2]) expect(await listed(v)).toBe(`${sha}\t${ref}\n`);
    // The earlier tests' pipelines run at the same time, each with its own.
    const all = (await git(['ls-remote', url(), 'refs/pipelines/*'])).stdout.trim().split('\n');
    expect(all.map((l) => l.split('\t')[1])).toEqual(['refs/pipelines/1', 'refs/pipelines/2', ref]);
    // The branch goes; the job can still fetch its commit by the pipeline's ref.
    expect((await git(['push', '-q', 'origin', '--delete', 'pipe'], dir)).code).toBe(0);
    const other = join(root, 'fetch-pipeline');
    await git(['init', '-q', other]);
    expect((await git(['fetch', '-q', url(), ref], other)).code).toBe(0);
    expect((await git(['rev-parse', 'FETCH_HEAD'], other)).stdout.trim()).toBe(sha);
    // receive.hideRefs: a push may not write it.
    const push = await git(['push', 'origin', `HEAD:${ref}`], dir);
    expect(push.code).not.toBe(0);
    expect(push.stderr).toContain('deny updating a hidden ref');
    // Completed: the ref is deleted.
    fx.clock.advance(10 * 60_000);
    expect((await api('GET', `/pipelines/${pipeline.id}`)).body.status).toBe('success');
    expect(await listed(2)).toBe('');
    const gone = await git(['fetch', '-q', url(), ref], other);
    expect(gone.code).not.toBe(0);
    await git(['checkout', '-q', 'master'], dir);
  });
});
