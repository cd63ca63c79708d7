/**
 * `git push -o merge_request.*` and `ci.variable` as 13.12 runs them, and the merge request refs the
 * target project keeps (`refs/merge-requests/:iid/head`), fetched by name with the real git.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { deliveries } from '../../../src/resources/integrations/delivery.js';
import { json, localServers } from '../../helpers.js';
import { listen as receiverListen } from '../hooks/receivers.js';
import { hasGit, runGit } from './run-git.js';

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  settings: { allow_local_requests_from_web_hooks_and_services: true },
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
        branches: [{ name: 'stable', commit: 'one' }],
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
const api = (path: string, init: RequestInit = {}) =>
  fx.fetch(
    new Request(`${base}/api/v4${path}`, {
      ...init,
      headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
    }),
  );

async function commit(dir: string, file: string, message: string): Promise<string> {
  writeFileSync(join(dir, file), `${file}\n`);
  await git(['add', file], dir);
  await git(['commit', '-q', '-m', message], dir);
  return (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fauxlab-git-options-'));
  fx = createFauxlab({ scenario });
  base = await listen(fx.fetch);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!hasGit)('push options and merge request refs', () => {
  it('merge_request.create with target, title, labels makes the MR and says "View merge request"', async () => {
    const receiver = await receiverListen();
    const hook = await api('/projects/acme%2Fapp/hooks', {
      method: 'POST',
      body: JSON.stringify({ url: receiver.url, merge_requests_events: true, push_events: false }),
    });
    expect(hook.status).toBe(201);
    const dir = join(root, 'work');
    expect((await git(['clone', '-q', url(), dir])).code).toBe(0);
    await git(['checkout', '-q', '-b', 'feature'], dir);
    const head = await commit(dir, 'a.txt', 'Add a\n\nThe body of it.');
    const r = await git(
      [
        'push',
        '-o',
        'merge_request.create',
        '-o',
        'merge_request.target=stable',
        '-o',
        'mr.label=backend',
        '-o',
        'merge_request.label=needs review',
        '-o',
        'merge_request.remove_source_branch',
        'origin',
        'feature',
      ],
      dir,
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `remote: View merge request for feature:        \nremote:   ${base}/acme/app/-/merge_requests/1        \n`,
    );
    expect(r.stderr).not.toContain('To create a merge request');
    const mr = await json(await api('/projects/acme%2Fapp/merge_requests/1'));
    expect(mr).toMatchObject({
      title: 'Add a',
      description: 'The body of it.',
      source_branch: 'feature',
      target_branch: 'stable',
      labels: ['backend', 'needs review'],
      force_remove_source_branch: true,
      assignees: [expect.objectContaining({ username: 'bob' })],
      author: expect.objectContaining({ username: 'bob' }),
    });
    // The merge request made by the option fires its hook as one made through the API does.
    await deliveries(fx.clock).settled();
    const opened = receiver.received.find((x) => x.headers['x-gitlab-event'] === 'Merge Request Hook');
    expect(opened?.body).toMatchObject({
      object_attributes: { iid: 1, action: 'open', source_branch: 'feature' },
    });
    // The target keeps the source head as refs/merge-requests/1/head: advertised, fetchable by name.
    const ls = await git(['ls-remote', url(), 'refs/merge-requests/*']);
    expect(ls.stdout).toBe(`${head}\trefs/merge-requests/1/head\n`);
    const other = join(root, 'ci');
    await git(['init', '-q', other]);
    const f = await git(['fetch', '-q', url(), 'refs/merge-requests/1/head'], other);
    expect(f.code).toBe(0);
    expect((await git(['rev-parse', 'FETCH_HEAD'], other)).stdout.trim()).toBe(head);
  });

  it('a later push moves the MR head ref and updates the MR by option; unlabel and title apply', async () => {
    const dir = join(root, 'work');
    const next = await commit(dir, 'b.txt', 'Add b');
    const r = await git(
      ['push', '-o', 'merge_request.title=Renamed', '-o', 'mr.unlabel=backend', 'origin', 'feature'],
      dir,
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('remote: View merge request for feature:');
    expect((await git(['ls-remote', url(), 'refs/merge-requests/1/head'])).stdout).toBe(
      `${next}\trefs/merge-requests/1/head\n`,
    );
    const mr = await json(await api('/projects/acme%2Fapp/merge_requests/1'));
    expect(mr.title).toBe('Renamed');
    expect(mr.labels).toEqual(['needs review']);
    expect(mr.sha).toBe(next);
  });

  it('an MR opened through the API gets its head ref in the same write', async () => {
    const dir = join(root, 'work');
    await git(['checkout', '-q', '-b', 'other'], dir);
    const head = await commit(dir, 'c.txt', 'Add c');
    expect((await git(['push', '-q', 'origin', 'other'], dir)).code).toBe(0);
    const res = await api('/projects/acme%2Fapp/merge_requests', {
      method: 'POST',
      body: JSON.stringify({ source_branch: 'other', target_branch: 'master', title: 'Other' }),
    });
    expect(res.status).toBe(201);
    const { iid } = await json(res);
    expect((await git(['ls-remote', url(), `refs/merge-requests/${iid}/head`])).stdout).toBe(
      `${head}\trefs/merge-requests/${iid}/head\n`,
    );
  });

  it('GET merge_ref merges into refs/merge-requests/:iid/merge, which git fetches; a closed MR is refused', async () => {
    const res = await api('/projects/acme%2Fapp/merge_requests/1/merge_ref');
    expect(res.status).toBe(200);
    const { commit_id } = await json(res);
    expect(commit_id).toMatch(/^[0-9a-f]{40}$/);
    const other = join(root, 'merge-ref');
    await git(['init', '-q', other]);
    expect((await git(['fetch', '-q', url(), 'refs/merge-requests/1/merge'], other)).code).toBe(0);
    expect((await git(['rev-parse', 'FETCH_HEAD'], other)).stdout.trim()).toBe(commit_id);
    const mr = await json(await api('/projects/acme%2Fapp/merge_requests/1'));
    // The merge of the source head into the target's: both parents, the target branch unmoved.
    const parents = (await git(['log', '-1', '--format=%P', 'FETCH_HEAD'], other)).stdout.trim().split(' ');
    const stable = await json(await api('/projects/acme%2Fapp/repository/branches/stable'));
    expect(parents).toEqual([stable.commit.id, mr.sha]);
    expect((await git(['log', '-1', '--format=%an%n%s', 'FETCH_HEAD'], other)).stdout).toBe(
      "Bob Builder\nMerge branch 'feature' into 'stable'\n",
    );
    await api('/projects/acme%2Fapp/merge_requests/2', {
      method: 'PUT',
      body: JSON.stringify({ state_event: 'close' }),
    });
    const closed = await api('/projects/acme%2Fapp/merge_requests/2/merge_ref');
    expect(closed.status).toBe(400);
    expect(await json(closed)).toEqual({ message: 'Invalid argument' });
  });

  it("a bad target is reported in the platform's alert box, and no MR is made", async () => {
    const dir = join(root, 'work');
    await git(['checkout', '-q', '-b', 'third'], dir);
    await commit(dir, 'd.txt', 'Add d');
    const r = await git(
      ['push', '-o', 'merge_request.create', '-o', 'merge_request.target=nope', 'origin', 'third'],
      dir,
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'remote: ========================================================================',
    );
    // Gitaly's alert: the words centred on lines under 72 columns.
    expect(r.stderr).toContain(
      "remote:   WARNINGS: Error encountered with push options 'merge_request.create'        \n" +
        "remote:         'merge_request.target=nope': Branch nope does not exist        \n",
    );
    expect(r.stderr).toContain('remote: To create a merge request for third, visit:');
    const list = await json(await api('/projects/acme%2Fapp/merge_requests?source_branch=third'));
    expect(list).toEqual([]);
  });

  it('ci.variable reaches the push pipeline as a variable', async () => {
    const dir = join(root, 'work');
    await git(['checkout', '-q', 'master'], dir);
    writeFileSync(
      join(dir, '.gitlab-ci.yml'),
      'test:\n  script: echo $DEPLOY\n  rules:\n    - if: $DEPLOY == "yes"\n',
    );
    await git(['add', '.gitlab-ci.yml'], dir);
    await git(['commit', '-q', '-m', 'CI'], dir);
    expect((await git(['push', '-q', 'origin', 'master'], dir)).code).toBe(0);
    // Without the variable the rule selects no job: no pipeline.
    expect(await json(await api('/projects/acme%2Fapp/pipelines'))).toEqual([]);
    await git(['commit', '-q', '--allow-empty', '-m', 'again'], dir);
    expect((await git(['push', '-q', '-o', 'ci.variable=DEPLOY=yes', 'origin', 'master'], dir)).code).toBe(0);
    const pipelines = await json(await api('/projects/acme%2Fapp/pipelines'));
    expect(pipelines).toHaveLength(1);
    const vars = await json(await api(`/projects/acme%2Fapp/pipelines/${pipelines[0].id}/variables`));
    expect(vars).toEqual([{ key: 'DEPLOY', value: 'yes', variable_type: 'env_var' }]);
  });
});
