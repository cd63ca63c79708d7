/** Push rules on `git push` over loopback HTTP: refusals as `remote: GitLab: ...` lines, refs unmoved. */
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

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    {
      username: 'root',
      name: 'Administrator',
      admin: true,
      tokens: [{ token: 'root-api', scopes: ['api'] }],
    },
  ],
  groups: [{ path: 'acme', visibility: 'public' }],
  projects: [
    {
      path: 'acme/app',
      visibility: 'public',
      repository: {
        commits: [
          { id: 'one', branch: 'master', message: 'First\n', author: 'root', files: { 'README.md': 'x\n' } },
        ],
        tags: [{ name: 'v1.0', commit: 'one' }],
      },
      push_rule: {
        commit_message_regex: '^JIRA-\\d+',
        branch_name_regex: '^(master|feat/.+)$',
        file_name_regex: '\\.exe$',
        deny_delete_tag: true,
      },
    },
  ],
};

let root: string;
let fx: Fauxlab;
let base: string;
const listen = localServers();

interface Run {
  code: number;
  stderr: string;
}

/** Runs git with a clean environment and a timeout; never throws. */
function git(args: string[], cwd = root): Promise<Run> {
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
          GIT_AUTHOR_NAME: 'Git User',
          GIT_AUTHOR_EMAIL: 'git@example.com',
          GIT_COMMITTER_NAME: 'Git User',
          GIT_COMMITTER_EMAIL: 'git@example.com',
          GIT_AUTHOR_DATE: '1614600000 +0000',
          GIT_COMMITTER_DATE: '1614600000 +0000',
        },
      },
      (err, _stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr: String(stderr) }),
    );
  });
}

const api = (path: string) =>
  fx.fetch(new Request(`${base}/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': 'root-api' } }));
const head = async () => (await json(await api('/projects/acme%2Fapp/repository/branches/master'))).commit.id;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fauxlab-push-rules-'));
  fx = createFauxlab({ scenario, tier: 'premium' });
  base = await listen(fx.fetch);
  const remote = base.replace('http://', 'http://root:root-api@') + '/acme/app.git';
  await git(['clone', '-q', remote, 'work']);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!hasGit)('push rules on git push', () => {
  it('git push: a commit message off the pattern is declined with the platform message; master stays', async () => {
    const dir = join(root, 'work');
    const before = await head();
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    await git(['add', 'a.txt'], dir);
    await git(['commit', '-q', '-m', 'No ticket'], dir);
    const r = await git(['push', 'origin', 'master'], dir);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("remote: GitLab: Commit message does not follow the pattern '^JIRA-\\d+'");
    expect(r.stderr).toContain('! [remote rejected] master -> master (pre-receive hook declined)');
    expect(await head()).toBe(before);
    await git(['commit', '-q', '--amend', '-m', 'JIRA-1 with ticket'], dir);
    expect((await git(['push', 'origin', 'master'], dir)).code).toBe(0);
  });

  it('git push: a branch name off the pattern and a denied file name are declined', async () => {
    const dir = join(root, 'work');
    const branch = await git(['push', 'origin', 'master:wip'], dir);
    expect(branch.stderr).toContain(
      "remote: GitLab: Branch name does not follow the pattern '^(master|feat/.+)$'",
    );
    writeFileSync(join(dir, 'tool.exe'), 'MZ\n');
    await git(['add', 'tool.exe'], dir);
    await git(['commit', '-q', '-m', 'JIRA-2 tool'], dir);
    const file = await git(['push', 'origin', 'HEAD:feat/tool'], dir);
    expect(file.stderr).toContain(
      'remote: GitLab: File name tool.exe was blacklisted by the pattern \\.exe$.',
    );
    const branches = await json(await api('/projects/acme%2Fapp/repository/branches'));
    expect(branches.map((b: { name: string }) => b.name)).toEqual(['master']);
  });

  it('git push --delete of a tag: You cannot delete a tag, with deny_delete_tag', async () => {
    const r = await git(['push', 'origin', '--delete', 'v1.0'], join(root, 'work'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('remote: GitLab: You cannot delete a tag');
    expect((await api('/projects/acme%2Fapp/repository/tags/v1.0')).status).toBe(200);
  });
});
