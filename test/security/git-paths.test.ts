/**
 * Paths git cannot hold, through the files API and the commits API: each is the platform's 400 and
 * writes nothing, and the repository still clones and passes `git fsck` with the real `git`.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { localServers } from '../helpers.js';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const hasGit = (() => {
  try {
    execFileSync('git', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

const listen = localServers();
const root = mkdtempSync(join(tmpdir(), 'fauxlab-git-paths-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const PROJECT = '/api/v4/projects/g-public%2Fp';
const TOKEN = 'maint-api';

type Fx = ReturnType<typeof reliabilityFx>;

async function send(fx: Fx, method: string, path: string, body?: unknown) {
  const res = await fx.app.request(`${PROJECT}${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

const invalid = (path: string) => ({ message: `invalid path: '${path}'` });
const traversal = { message: 'Path cannot include directory traversal' };
/** `file_path: true` of the files API (`API::Validations::Validators::FilePath`). */
const notAFilePath = { error: 'file_path should be a valid file path' };

/** Each refused form, with what the files API and the commits API answer for it. */
const FORMS: [path: string, files: unknown, commits: unknown][] = [
  ['nul\0byte.txt', invalid('nul\0byte.txt'), invalid('nul\0byte.txt')],
  ['dir/x\0', invalid('dir/x\0'), invalid('dir/x\0')],
  ['a//b.txt', invalid('a//b.txt'), invalid('a//b.txt')],
  ['.git/config', invalid('.git/config'), invalid('.git/config')],
  [
    'sub/.GIT/hooks/post-checkout',
    invalid('sub/.GIT/hooks/post-checkout'),
    invalid('sub/.GIT/hooks/post-checkout'),
  ],
  ['.git./x', invalid('.git./x'), invalid('.git./x')],
  ['GIT~1/config', invalid('GIT~1/config'), invalid('GIT~1/config')],
  ['../outside.txt', notAFilePath, traversal],
  ['a/../b.txt', notAFilePath, traversal],
  ['a/..', notAFilePath, traversal],
  // `..` alone is a dot segment of the URL (escaped too, WHATWG URL): only the commits API can carry it.
  ['..', undefined, traversal],
  ['./a.txt', traversal, traversal],
  ['a/./b.txt', traversal, traversal],
  [`${'d/'.repeat(70)}f.txt`, invalid(`${'d/'.repeat(70)}f.txt`), invalid(`${'d/'.repeat(70)}f.txt`)],
];

describe('security: paths git refuses', () => {
  test('files API POST/PUT/DELETE and commits API file_path/previous_path: every refused form is the platform 400; nothing written; the repository clones and passes git fsck', async () => {
    const fx = reliabilityFx();
    const project = (await send(fx, 'GET', '')).body as { default_branch: string };
    const branch = project.default_branch;
    const ok = await send(fx, 'POST', '/repository/files/kept.txt', {
      branch,
      commit_message: 'Keep',
      content: 'kept\n',
    });
    expect(ok.status).toBe(201);
    const head = () => fx.state.refs;
    const before = head();
    const problems: string[] = [];
    const expectAnswer = (what: string, got: { status: number; body: unknown }, want: unknown) => {
      if (got.status !== 400 || JSON.stringify(got.body) !== JSON.stringify(want))
        problems.push(`${what}: ${got.status} ${JSON.stringify(got.body)}`);
    };
    for (const [path, files, commits] of FORMS) {
      // Dots escaped too, so that `..` reaches the route rather than the URL's own dot segments.
      const url = `/repository/files/${encodeURIComponent(path).replace(/\./g, '%2E')}`;
      const body = { branch, commit_message: 'Bad', content: 'x' };
      if (files !== undefined) {
        expectAnswer(`POST files ${JSON.stringify(path)}`, await send(fx, 'POST', url, body), files);
        expectAnswer(`PUT files ${JSON.stringify(path)}`, await send(fx, 'PUT', url, body), files);
        expectAnswer(
          `DELETE files ${JSON.stringify(path)}`,
          await send(fx, 'DELETE', url, { branch, commit_message: 'Bad' }),
          files,
        );
      }
      for (const action of [
        { action: 'create', file_path: path, content: 'x' },
        { action: 'update', file_path: path, content: 'x' },
        { action: 'delete', file_path: path },
        { action: 'move', file_path: path, previous_path: 'kept.txt' },
        { action: 'move', file_path: 'moved.txt', previous_path: path },
        { action: 'chmod', file_path: path, execute_filemode: true },
      ]) {
        // A good action before the bad one: the refusal takes the whole commit with it.
        const actions = [{ action: 'create', file_path: 'fine.txt', content: 'fine' }, action];
        expectAnswer(
          `commits ${JSON.stringify(action)}`,
          await send(fx, 'POST', '/repository/commits', { branch, commit_message: 'Bad', actions }),
          commits,
        );
      }
    }
    expect(problems).toEqual([]);
    expect(fx.state.refs).toBe(before);

    // What stays allowed: a leading and a trailing slash are dropped, as Gitaly's cleaning drops them.
    const lead = await send(fx, 'POST', '/repository/commits', {
      branch,
      commit_message: 'Slashes',
      actions: [{ action: 'create', file_path: '/docs/lead.txt/', content: 'lead\n' }],
    });
    expect(lead.status).toBe(201);

    if (hasGit) {
      const base = await listen(fx.fetch);
      const dir = join(root, 'clone');
      const git = (args: string[], cwd?: string) =>
        new Promise<{ code: number; out: string }>((resolve) =>
          execFile(
            'git',
            args,
            {
              cwd,
              env: {
                PATH: process.env.PATH ?? '/usr/bin:/bin',
                HOME: root,
                GIT_CONFIG_NOSYSTEM: '1',
                GIT_TERMINAL_PROMPT: '0',
              },
            },
            (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: `${stdout}${stderr}` }),
          ),
        );
      const cloned = await git(['clone', '-q', `${base}/g-public/p.git`, dir]);
      expect(cloned).toMatchObject({ code: 0 });
      expect((await git(['fsck', '--strict', '--no-dangling'], dir)).code).toBe(0);
      const files = (await git(['ls-tree', '-r', '--name-only', '-z', 'HEAD'], dir)).out.split('\0');
      expect(files).toContain('kept.txt');
      expect(files).toContain('docs/lead.txt');
      expect(files.filter((f) => f.includes('fine') || f.includes('.git') || f.includes('nul'))).toEqual([]);
    }
    await expectUnharmed(fx);
  });
});
