/**
 * `git push -o merge_request.merge_when_pipeline_succeeds` end to end with the real git: the merge
 * request the option makes gets its merge request pipeline, merges by itself when that pipeline
 * succeeds on the instance clock, and the merge moves the target branch as a push does (push hook,
 * `git ls-remote`); a later push to the source aborts an automatic merge (`RefreshService`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../../src/index.js';
import { deliveries } from '../../../src/resources/integrations/delivery.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, localServers } from '../../helpers.js';
import { listen as receiverListen } from '../hooks/receivers.js';
import { hasGit, runGit } from './run-git.js';

const CI = 'test:\n  script: make test\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "merge_request_event"\n';

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  settings: { allow_local_requests_from_web_hooks_and_services: true },
  users: [
    { username: 'root', admin: true, tokens: [{ token: 'root-api', scopes: ['api'] }] },
    { username: 'bob', name: 'Bob Builder', tokens: [{ token: 'bob-api', scopes: ['api'] }] },
  ],
  groups: [{ path: 'acme', visibility: 'public' }],
  projects: [
    {
      path: 'acme/app',
      visibility: 'public',
      default_branch: 'main',
      members: [{ username: 'bob', access_level: 'maintainer' }],
      repository: {
        commits: [
          { id: 'one', branch: 'main', message: 'CI\n', author: 'bob', files: { '.gitlab-ci.yml': CI } },
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

async function commit(dir: string, file: string, message: string): Promise<string> {
  writeFileSync(join(dir, file), `${file} ${message}\n`);
  await git(['add', file], dir);
  await git(['commit', '-q', '-m', message], dir);
  return (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fauxlab-git-mwps-'));
  fx = createFauxlab({ scenario });
  base = await listen(fx.fetch);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!hasGit)('push option merge_request.merge_when_pipeline_succeeds', () => {
  it('creates the MR with MWPS set, its MR pipeline runs, MWPS merges it: main moves as a push, hooks delivered', async () => {
    const receiver = await receiverListen();
    const hook = await api('POST', '/hooks', {
      url: receiver.url,
      push_events: true,
      merge_requests_events: true,
    });
    expect(hook.status).toBe(201);
    const dir = join(root, 'work');
    expect((await git(['clone', '-q', url(), dir])).code).toBe(0);
    await git(['checkout', '-q', '-b', 'feature'], dir);
    const head = await commit(dir, 'a.txt', 'Add a');
    const push = await git(
      [
        'push',
        '-o',
        'merge_request.create',
        '-o',
        'merge_request.target=main',
        '-o',
        'merge_request.merge_when_pipeline_succeeds',
        'origin',
        'feature',
      ],
      dir,
    );
    expect(push.code).toBe(0);
    expect(push.stderr).toContain('View merge request for feature:');
    const mr = (await api('GET', '/merge_requests/1')).body;
    expect([mr.state, mr.merge_when_pipeline_succeeds, mr.source_branch, mr.target_branch]).toEqual([
      'opened',
      true,
      'feature',
      'main',
    ]);
    // The branch pipeline's rules select no job: the merge request pipeline is the only one.
    const pipelines = (await api('GET', '/merge_requests/1/pipelines')).body;
    expect(pipelines.map((p: any) => [p.ref, p.sha, p.status])).toEqual([
      ['refs/merge-requests/1/head', head, 'pending'],
    ]);
    expect((await api('GET', '/pipelines')).body).toHaveLength(1);

    // The job runs on the instance clock and succeeds; the merge follows at the pipeline's finish.
    fx.clock.advance(5_000);
    expect((await api('GET', `/pipelines/${pipelines[0].id}`)).body.status).toBe('running');
    expect((await api('GET', '/merge_requests/1')).body.state).toBe('opened');
    fx.clock.advance(60_000);
    const merged = (await api('GET', '/merge_requests/1')).body;
    expect([merged.state, merged.merged_by.username, merged.merge_when_pipeline_succeeds]).toEqual([
      'merged',
      'bob',
      false,
    ]);
    const ls = await git(['ls-remote', url(), 'refs/heads/main']);
    expect(ls.stdout).toBe(`${merged.merge_commit_sha}\trefs/heads/main\n`);
    await git(['fetch', '-q', 'origin'], dir);
    expect((await git(['log', '--format=%P', '-1', 'origin/main'], dir)).stdout.trim().split(' ')[1]).toBe(
      head,
    );

    await deliveries(fx.clock).settled();
    const got = receiver.received.map((x) => [
      x.headers['x-gitlab-event'],
      x.body.ref ?? x.body.object_attributes?.action,
    ]);
    // The options' merge request is heard before the push that made it (as the option's hooks were).
    expect(got).toEqual([
      ['Merge Request Hook', 'open'],
      ['Push Hook', 'refs/heads/feature'],
      ['Push Hook', 'refs/heads/main'],
      ['Merge Request Hook', 'merge'],
    ]);
    expect(receiver.received[2]!.body).toMatchObject({
      after: merged.merge_commit_sha,
      user_username: 'bob',
    });
  });

  it('a push option on an existing MR sets MWPS and fires its update hook; a later plain push aborts it', async () => {
    const receiver = await receiverListen();
    await api('POST', '/hooks', { url: receiver.url, push_events: false, merge_requests_events: true });
    const dir = join(root, 'work');
    await git(['checkout', '-q', '-b', 'second', 'origin/main'], dir);
    await commit(dir, 'b.txt', 'Add b');
    expect((await git(['push', '-q', '-o', 'merge_request.create', 'origin', 'second'], dir)).code).toBe(0);
    const iid = (await api('GET', '/merge_requests?source_branch=second')).body[0].iid as number;
    expect((await api('GET', `/merge_requests/${iid}`)).body.merge_when_pipeline_succeeds).toBe(false);
    await commit(dir, 'b.txt', 'Change b');
    const opt = await git(['push', '-q', '-o', 'mr.merge_when_pipeline_succeeds', 'origin', 'second'], dir);
    expect(opt.code).toBe(0);
    expect((await api('GET', `/merge_requests/${iid}`)).body.merge_when_pipeline_succeeds).toBe(true);
    // A push without the option, before the pipeline finishes: the source moved, the merge is off.
    fx.clock.advance(5_000);
    await commit(dir, 'b.txt', 'Change b again');
    expect((await git(['push', '-q', 'origin', 'second'], dir)).code).toBe(0);
    const after = (await api('GET', `/merge_requests/${iid}`)).body;
    expect([after.state, after.merge_when_pipeline_succeeds]).toEqual(['opened', false]);
    const notes = (await api('GET', `/merge_requests/${iid}/notes?sort=asc`)).body;
    expect(notes.map((n: any) => n.body)).toContain(
      'aborted the automatic merge because source branch was updated',
    );
    fx.clock.advance(120_000);
    expect((await api('GET', `/merge_requests/${iid}`)).body.state).toBe('opened');
    await deliveries(fx.clock).settled();
    expect(
      receiver.received.map((x) => [x.body.object_attributes.iid, x.body.object_attributes.action]),
    ).toEqual([
      [iid, 'open'],
      [iid, 'update'],
    ]);
    expect(receiver.received[1]!.body.changes.merge_when_pipeline_succeeds).toEqual({
      previous: false,
      current: true,
    });
  });
});
