/**
 * The Debian `git` binary against fauxlab over loopback HTTP: clone (protocol v2 and v0), shallow
 * clone, fetch after an API commit, push of branches and tags, the platform's refusals, and the API's
 * view of what was pushed.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { jobTokenSecret } from '../../../src/resources/ci/job-tokens.js';
import { deliveries } from '../../../src/resources/integrations/delivery.js';
import { json, localServers } from '../../helpers.js';
import { listen as receiverListen } from '../hooks/receivers.js';
import { hasGit, runGit, type Run } from './run-git.js';

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
    {
      username: 'alice',
      name: 'Alice Liddell',
      tokens: [
        { token: 'alice-api', scopes: ['api'] },
        { token: 'alice-read-repo', scopes: ['read_repository'] },
      ],
    },
    { username: 'bob', name: 'Bob Builder', tokens: [{ token: 'bob-api', scopes: ['api'] }] },
  ],
  groups: [
    { path: 'acme', visibility: 'public', members: [{ username: 'alice', access_level: 'maintainer' }] },
  ],
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
            author: 'alice',
            files: { 'README.md': '# App\n', 'src/main.c': 'int main;\n' },
          },
          {
            id: 'two',
            branch: 'master',
            message: 'Second\n',
            author: 'alice',
            files: { 'src/main.c': 'int main() {}\n' },
          },
          {
            id: 'three',
            branch: 'master',
            message: 'Third\n',
            author: 'alice',
            files: { 'docs/a.txt': 'a\n' },
          },
        ],
        tags: [{ name: 'v1.0', commit: 'two', message: 'Release 1.0' }],
      },
    },
    { path: 'acme/vault', visibility: 'private' },
  ],
};

let root: string;
let fx: Fauxlab;
let base: string;
const listen = localServers();

/** Runs git with a clean environment and a timeout; never throws. */
const git = (args: string[], cwd = root, extraEnv: Record<string, string> = {}): Promise<Run> =>
  runGit(root, args, cwd, extraEnv);

const url = (path: string, user?: string, password?: string) =>
  `${base.replace('http://', `http://${user ? `${encodeURIComponent(user)}:${encodeURIComponent(password ?? '')}@` : ''}`)}/${path}.git`;

const api = (path: string, init: RequestInit = {}, token = 'root-api') =>
  fx.fetch(
    new Request(`${base}/api/v4${path}`, {
      ...init,
      headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json', ...(init.headers ?? {}) },
    }),
  );

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fauxlab-git-http-'));
  fx = createFauxlab({ scenario });
  base = await listen(fx.fetch);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!hasGit)('git over HTTP', () => {
  it('git clone of a public project (protocol v2) gives the commits and files the API reports', async () => {
    const r = await git(['clone', '-q', url('acme/app'), 'clone-v2']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const dir = join(root, 'clone-v2');
    const head = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    const branch = await json(await api('/projects/acme%2Fapp/repository/branches/master'));
    expect(head).toBe(branch.commit.id);
    expect(readFileSync(join(dir, 'src/main.c'), 'utf8')).toBe('int main() {}\n');
    expect((await git(['rev-list', '--count', 'HEAD'], dir)).stdout.trim()).toBe('3');
    expect((await git(['fsck', '--strict'], dir)).code).toBe(0);
    const tag = await json(await api('/projects/acme%2Fapp/repository/tags/v1.0'));
    expect((await git(['rev-parse', 'v1.0^{commit}'], dir)).stdout.trim()).toBe(tag.commit.id);
  });

  it('git clone with protocol v0 gives the same refs and objects', async () => {
    const r = await git(['-c', 'protocol.version=0', 'clone', '-q', url('acme/app'), 'clone-v0']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const dir = join(root, 'clone-v0');
    const v2 = await git(['rev-parse', 'HEAD', 'v1.0'], join(root, 'clone-v2'));
    expect((await git(['rev-parse', 'HEAD', 'v1.0'], dir)).stdout).toBe(v2.stdout);
    expect((await git(['fsck', '--strict'], dir)).code).toBe(0);
  });

  it('git ls-remote lists HEAD, the branches and the peeled tags', async () => {
    const r = await git(['ls-remote', '--symref', url('acme/app')]);
    expect(r.code).toBe(0);
    const branch = await json(await api('/projects/acme%2Fapp/repository/branches/master'));
    const tag = await json(await api('/projects/acme%2Fapp/repository/tags/v1.0'));
    expect(r.stdout).toContain('ref: refs/heads/master\tHEAD\n');
    expect(r.stdout).toContain(`${branch.commit.id}\tHEAD\n`);
    expect(r.stdout).toContain(`${branch.commit.id}\trefs/heads/master\n`);
    expect(r.stdout).toContain(`${tag.commit.id}\trefs/tags/v1.0^{}\n`);
    // Without `.git`, the handshake is redirected and git follows it.
    const bare = await git(['ls-remote', `${base}/acme/app`]);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toContain(`${branch.commit.id}\trefs/heads/master\n`);
  });

  for (const version of ['2', '0']) {
    it(`git clone --depth 1 (protocol v${version}) gives one commit, marked shallow`, async () => {
      const name = `shallow-v${version}`;
      const r = await git([
        '-c',
        `protocol.version=${version}`,
        'clone',
        '-q',
        '--depth',
        '1',
        url('acme/app'),
        name,
      ]);
      expect(r.code).toBe(0);
      const dir = join(root, name);
      expect((await git(['rev-list', '--count', 'HEAD'], dir)).stdout.trim()).toBe('1');
      const head = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
      expect(readFileSync(join(dir, '.git/shallow'), 'utf8')).toBe(`${head}\n`);
      expect(readFileSync(join(dir, 'docs/a.txt'), 'utf8')).toBe('a\n');
      // Deepening by one brings the parent and moves the boundary.
      const d = await git(['-c', `protocol.version=${version}`, 'fetch', '-q', '--deepen', '1'], dir);
      expect(d.code).toBe(0);
      expect((await git(['rev-list', '--count', 'HEAD'], dir)).stdout.trim()).toBe('2');
    });
  }

  for (const version of ['2', '0']) {
    it(`git fetch after an API commit (protocol v${version}) gets the commit with the API's id`, async () => {
      const dir = join(root, `clone-v${version === '2' ? '2' : '0'}`);
      const res = await api('/projects/acme%2Fapp/repository/commits', {
        method: 'POST',
        body: JSON.stringify({
          branch: 'master',
          commit_message: `From the API ${version}\n`,
          actions: [{ action: 'create', file_path: `api-${version}.txt`, content: 'made by the API\n' }],
        }),
      });
      expect(res.status).toBe(201);
      const commit = await json(res);
      const f = await git(['-c', `protocol.version=${version}`, 'pull', '-q', '--ff-only'], dir);
      expect(f.stderr).toBe('');
      expect(f.code).toBe(0);
      expect((await git(['rev-parse', 'HEAD'], dir)).stdout.trim()).toBe(commit.id);
      expect(readFileSync(join(dir, `api-${version}.txt`), 'utf8')).toBe('made by the API\n');
      expect((await git(['fsck', '--strict'], dir)).code).toBe(0);
    });
  }

  it('git push of a new branch makes the commit the API reports with the same id, a push event and an MR hint', async () => {
    const dir = join(root, 'push-work');
    expect((await git(['clone', '-q', url('acme/app', 'bob', 'bob-api'), dir])).code).toBe(0);
    await git(['checkout', '-q', '-b', 'feature'], dir);
    writeFileSync(join(dir, 'feature.txt'), 'a feature\n');
    await git(['add', 'feature.txt'], dir);
    await git(['commit', '-q', '-m', 'Add a feature'], dir);
    const sha = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    const r = await git(['push', 'origin', 'feature'], dir);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('remote: To create a merge request for feature, visit:');
    expect(r.stderr).toContain(' * [new branch]      feature -> feature');
    const branch = await json(await api('/projects/acme%2Fapp/repository/branches/feature'));
    expect(branch.commit.id).toBe(sha);
    const commit = await json(await api(`/projects/acme%2Fapp/repository/commits/${sha}`));
    expect(commit.id).toBe(sha);
    expect(commit.title).toBe('Add a feature');
    expect(commit.author_email).toBe('git@example.com');
    const file = await json(await api('/projects/acme%2Fapp/repository/files/feature.txt?ref=feature'));
    expect(Buffer.from(file.content, 'base64').toString()).toBe('a feature\n');
    const events = await json(await api('/projects/acme%2Fapp/events?action=pushed'));
    expect(events.some((e: any) => e.push_data?.ref === 'feature' && e.push_data?.action === 'created')).toBe(
      true,
    );
  });

  it('git push of a delta-compressed history, a tag and a branch deletion lands in the API state', async () => {
    const dir = join(root, 'push-work');
    const big = Array.from({ length: 300 }, (_, i) => `line ${i} of a long file\n`);
    for (let i = 0; i < 4; i++) {
      big[i * 10] = `changed ${i}\n`;
      writeFileSync(join(dir, 'big.txt'), big.join(''));
      await git(['add', 'big.txt'], dir);
      await git(['commit', '-q', '-m', `Big ${i}`], dir);
    }
    await git(['tag', '-a', '-m', 'Feature release', 'v2.0'], dir);
    const r = await git(['push', 'origin', 'feature', 'v2.0'], dir);
    expect(r.code).toBe(0);
    const sha = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    const tag = await json(await api('/projects/acme%2Fapp/repository/tags/v2.0'));
    expect(tag.commit.id).toBe(sha);
    expect(tag.message.trim()).toBe('Feature release');
    const raw = await api('/projects/acme%2Fapp/repository/files/big.txt/raw?ref=feature');
    expect(await raw.text()).toBe(big.join(''));
    const del = await git(['push', 'origin', '--delete', 'feature'], dir);
    expect(del.code).toBe(0);
    expect((await api('/projects/acme%2Fapp/repository/branches/feature')).status).toBe(404);
  });

  it('git push to a protected branch is declined with the platform message', async () => {
    const p = await api('/projects/acme%2Fapp/protected_branches', {
      method: 'POST',
      body: JSON.stringify({ name: 'master', push_access_level: 40, merge_access_level: 40 }),
    });
    expect(p.status).toBe(201);
    const dir = join(root, 'push-work');
    await git(['checkout', '-q', 'master'], dir);
    await git(['pull', '-q', '--ff-only'], dir);
    const before = (await json(await api('/projects/acme%2Fapp/repository/branches/master'))).commit.id;
    writeFileSync(join(dir, 'blocked.txt'), 'no\n');
    await git(['add', 'blocked.txt'], dir);
    await git(['commit', '-q', '-m', 'Blocked'], dir);
    const r = await git(['push', 'origin', 'master'], dir);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'remote: GitLab: You are not allowed to push code to protected branches on this project.',
    );
    expect(r.stderr).toContain('! [remote rejected] master -> master (pre-receive hook declined)');
    expect((await json(await api('/projects/acme%2Fapp/repository/branches/master'))).commit.id).toBe(before);
  });

  it('git push --force to a protected branch is refused as a force push, even for a maintainer', async () => {
    const dir = join(root, 'force-work');
    expect((await git(['clone', '-q', url('acme/app', 'alice', 'alice-api'), dir])).code).toBe(0);
    await git(['reset', '-q', '--hard', 'HEAD~1'], dir);
    writeFileSync(join(dir, 'rewrite.txt'), 'rewritten\n');
    await git(['add', 'rewrite.txt'], dir);
    await git(['commit', '-q', '-m', 'Rewrite'], dir);
    const plain = await git(['push', 'origin', 'master'], dir);
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toContain('! [rejected]        master -> master (non-fast-forward)');
    const forced = await git(['push', '--force', 'origin', 'master'], dir);
    expect(forced.code).not.toBe(0);
    expect(forced.stderr).toContain(
      'remote: GitLab: You are not allowed to force push code to a protected branch on this project.',
    );
  });

  it('git push deleting a protected tag as a developer is declined (TagCheck)', async () => {
    const dir = join(root, 'push-work');
    const rules = '/projects/acme%2Fapp/protected_tags';
    expect((await api(rules, { method: 'POST', body: JSON.stringify({ name: 'v*' }) })).status).toBe(201);
    const r = await git(['push', 'origin', ':refs/tags/v1.0'], dir);
    expect((await api(`${rules}/v*`, { method: 'DELETE' })).status).toBe(204);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('remote: GitLab: Protected tags cannot be deleted.');
    expect(r.stderr).toContain('! [remote rejected] v1.0 (pre-receive hook declined)');
    expect((await api('/projects/acme%2Fapp/repository/tags/v1.0')).status).toBe(200);
  });

  it('git push with a wrong token fails with 401 and the Basic challenge, and changes nothing', async () => {
    const dir = join(root, 'push-work');
    const r = await git(['push', url('acme/app', 'bob', 'not-a-token'), 'HEAD:refs/heads/intruder'], dir);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('remote: HTTP Basic: Access denied');
    expect(r.stderr).toContain('fatal: Authentication failed');
    expect((await api('/projects/acme%2Fapp/repository/branches/intruder')).status).toBe(404);
    const res = await fx.fetch(new Request(`${base}/acme/app.git/info/refs?service=git-receive-pack`));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="GitLab"');
    expect(await res.text()).toBe('HTTP Basic: Access denied\n');
  });

  it('git push with a read_repository token is refused: the token may not upload code', async () => {
    const dir = join(root, 'push-work');
    const r = await git(['push', url('acme/app', 'alice', 'alice-read-repo'), 'HEAD:refs/heads/other'], dir);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('remote: You are not allowed to upload code.');
  });

  it('anonymous clone of a private project asks for credentials; a non-member gets the 404 message', async () => {
    const anon = await git(['clone', '-q', url('acme/vault'), 'anon-vault']);
    expect(anon.code).not.toBe(0);
    expect(anon.stderr).toContain("could not read Username for 'http://127.0.0.1");
    const bob = await git(['clone', '-q', url('acme/vault', 'bob', 'bob-api'), 'bob-vault']);
    expect(bob.code).not.toBe(0);
    expect(bob.stderr).toContain('remote: The project you were looking for could not be found.');
    const root_ = await git(['clone', '-q', url('acme/vault', 'root', 'root-api'), 'root-vault']);
    expect(root_.code).toBe(0);
  });

  it('oauth2 and gitlab-ci-token logins read with their own tokens only', async () => {
    const wrong = await git(['ls-remote', url('acme/vault', 'oauth2', 'root-api')]);
    // A personal token is a personal token whatever the login.
    expect(wrong.code).toBe(0);
    const job = await git(['ls-remote', url('acme/vault', 'gitlab-ci-token', 'nope')]);
    expect(job.code).not.toBe(0);
    expect(job.stderr).toContain('HTTP Basic: Access denied');
  });

  it('a push with a .gitlab-ci.yml fires the push webhook and creates a pipeline for the new head', async () => {
    const receiver = await receiverListen();
    const hook = await api('/projects/acme%2Fapp/hooks', {
      method: 'POST',
      body: JSON.stringify({ url: receiver.url, push_events: true, token: 'secret' }),
    });
    expect(hook.status).toBe(201);
    const dir = join(root, 'push-work');
    await git(['checkout', '-q', '-b', 'ci', 'origin/master'], dir);
    writeFileSync(join(dir, '.gitlab-ci.yml'), 'test:\n  script: [make test]\n');
    await git(['add', '.gitlab-ci.yml'], dir);
    // Committed at 12:00 UTC from +01:00: the payload's timestamp is in the committer's offset.
    await git(['commit', '-q', '-m', 'Add CI'], dir, { GIT_COMMITTER_DATE: '1614600000 +0100' });
    const sha = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    const r = await git(['push', 'origin', 'ci'], dir);
    expect(r.code).toBe(0);
    await deliveries(fx.clock).settled();
    const push = receiver.received.find((x) => x.headers['x-gitlab-event'] === 'Push Hook');
    expect(push?.headers['x-gitlab-token']).toBe('secret');
    expect(push?.body).toMatchObject({
      object_kind: 'push',
      before: '0000000000000000000000000000000000000000',
      after: sha,
      ref: 'refs/heads/ci',
      user_username: 'bob',
      total_commits_count: 1,
    });
    expect(push?.body.commits).toEqual([
      {
        id: sha,
        message: 'Add CI\n',
        title: 'Add CI',
        timestamp: '2021-03-01T13:00:00+01:00',
        url: `${base}/acme/app/-/commit/${sha}`,
        author: { name: 'Git User', email: 'git@example.com' },
        added: ['.gitlab-ci.yml'],
        modified: [],
        removed: [],
      },
    ]);
    const pipelines = await json(await api('/projects/acme%2Fapp/pipelines?ref=ci'));
    expect(pipelines).toHaveLength(1);
    expect(pipelines[0]).toMatchObject({ ref: 'ci', sha });
    // `-o ci.skip` and a `[ci skip]` head skip it: `Chain::Skip` saves a skipped pipeline without jobs.
    writeFileSync(join(dir, 'skip.txt'), 'skip\n');
    await git(['add', 'skip.txt'], dir);
    await git(['commit', '-q', '-m', 'Skip CI'], dir);
    expect((await git(['push', '-o', 'ci.skip', 'origin', 'ci'], dir)).code).toBe(0);
    writeFileSync(join(dir, 'skip.txt'), 'again\n');
    await git(['commit', '-q', '-am', 'Again\n\nNothing to build [Skip-CI]'], dir);
    expect((await git(['push', 'origin', 'ci'], dir)).code).toBe(0);
    const skipped = await json(await api('/projects/acme%2Fapp/pipelines?ref=ci'));
    expect(skipped.map((p: { status: string }) => p.status)).toEqual([
      'skipped',
      'skipped',
      expect.any(String),
    ]);
    const jobs = await json(await api(`/projects/acme%2Fapp/pipelines/${skipped[0].id}/jobs`));
    expect(jobs).toEqual([]);
    // A push without a CI configuration creates none.
    const before = (await json(await api('/projects/acme%2Fapp/pipelines'))).length;
    await git(['checkout', '-q', '-b', 'no-ci', 'origin/master'], dir);
    expect((await git(['push', 'origin', 'no-ci'], dir)).code).toBe(0);
    expect((await json(await api('/projects/acme%2Fapp/pipelines'))).length).toBe(before);
  });

  it('a deploy token with read_repository clones its project and may not push', async () => {
    const res = await api('/projects/acme%2Fvault/deploy_tokens', {
      method: 'POST',
      body: JSON.stringify({ name: 'ci', scopes: ['read_repository'], username: 'deployer' }),
    });
    expect(res.status).toBe(201);
    const token = (await json(res)).token as string;
    const clone = await git(['clone', '-q', url('acme/vault', 'deployer', token), 'deploy-vault']);
    expect(clone.code).toBe(0);
    const wrongUser = await git(['ls-remote', url('acme/vault', 'someone', token)]);
    expect(wrongUser.stderr).toContain('HTTP Basic: Access denied');
    const push = await git(
      ['push', url('acme/vault', 'deployer', token), 'HEAD:refs/heads/x'],
      join(root, 'deploy-vault'),
    );
    expect(push.code).not.toBe(0);
    expect(push.stderr).toContain('remote: You are not allowed to upload code.');
  });

  it('git pull in a shallow clone after an API commit stays shallow and gets the new commit', async () => {
    const dir = join(root, 'shallow-v2');
    const res = await api('/projects/acme%2Fapp/repository/commits', {
      method: 'POST',
      body: JSON.stringify({
        branch: 'master',
        commit_message: 'Shallow follow-up\n',
        actions: [{ action: 'create', file_path: 'shallow.txt', content: 'later\n' }],
      }),
    });
    // master is protected by now: the admin's API commit goes through, as maintainers may push.
    expect(res.status).toBe(201);
    const commit = await json(res);
    const r = await git(['pull', '-q', '--ff-only'], dir);
    expect(r.code).toBe(0);
    expect((await git(['rev-parse', 'HEAD'], dir)).stdout.trim()).toBe(commit.id);
    expect(existsSync(join(dir, '.git/shallow'))).toBe(true);
    expect((await git(['fsck'], dir)).code).toBe(0);
  });

  it('git push to a project created empty through the API makes its default branch', async () => {
    const created = await api(
      '/projects',
      { method: 'POST', body: JSON.stringify({ name: 'fresh' }) },
      'alice-api',
    );
    expect(created.status).toBe(201);
    const project = await json(created);
    expect(project.default_branch).toBe(null);
    const dir = join(root, 'fresh');
    const clone = await git(['clone', '-q', url('alice/fresh', 'alice', 'alice-api'), dir]);
    expect(clone.code).toBe(0);
    expect(clone.stderr).toContain('You appear to have cloned an empty repository.');
    writeFileSync(join(dir, 'hello.txt'), 'hello\n');
    await git(['add', 'hello.txt'], dir);
    await git(['commit', '-q', '-m', 'Hello'], dir);
    await git(['branch', '-M', 'trunk'], dir);
    const r = await git(['push', '-u', 'origin', 'trunk'], dir);
    expect(r.code).toBe(0);
    const after = await json(await api(`/projects/${project.id}`, {}, 'alice-api'));
    expect(after.default_branch).toBe('trunk');
    expect(after.empty_repo).toBe(false);
    const sha = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();
    expect(
      (await json(await api(`/projects/${project.id}/repository/commits/${sha}`, {}, 'alice-api'))).id,
    ).toBe(sha);
  });

  it('gitlab-ci-token with the token of a running job reads; once the job has finished it is refused', async () => {
    const created = await api('/projects/acme%2Fvault/pipeline?ref=master', { method: 'POST' });
    expect(created.status).toBe(201);
    const pipeline = await json(created);
    // Past the pipeline's queue time (3 s by default), one second into the first job.
    fx.clock.advance(4000);
    const jobs = await json(await api(`/projects/acme%2Fvault/pipelines/${pipeline.id}/jobs`));
    const running = jobs.find((j: any) => j.status === 'running');
    expect(running).toBeDefined();
    const token = jobTokenSecret({ id: running.id, created_at: running.created_at });
    const ok = await git(['ls-remote', url('acme/vault', 'gitlab-ci-token', token)]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('refs/heads/master');
    fx.clock.advance(3_600_000);
    const late = await git(['ls-remote', url('acme/vault', 'gitlab-ci-token', token)]);
    expect(late.code).not.toBe(0);
    expect(late.stderr).toContain('HTTP Basic: Access denied');
  });

  it("git push of a pack larger than git's post buffer (a chunked request after its probe) lands whole", async () => {
    const dir = join(root, 'push-work');
    await git(['checkout', '-q', '-b', 'big', 'origin/master'], dir);
    // Incompressible, deterministic bytes: the pack passes git's 1 MiB http.postBuffer.
    let x = 12345;
    const data = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < data.length; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      data[i] = x >>> 24;
    }
    writeFileSync(join(dir, 'blob.bin'), data);
    await git(['add', 'blob.bin'], dir);
    await git(['commit', '-q', '-m', 'Big blob'], dir);
    const r = await git(['push', 'origin', 'big'], dir, { GIT_TRACE_CURL_NO_DATA: '1' });
    expect(r.code).toBe(0);
    const raw = await api('/projects/acme%2Fapp/repository/files/blob.bin/raw?ref=big');
    expect(Buffer.from(await raw.arrayBuffer()).equals(data)).toBe(true);
  });
});
