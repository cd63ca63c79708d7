/**
 * A captured project's repository: `git clone --mirror` over HTTP with the capture's token, then one
 * bundle of its branches, tags and other refs (notes, custom namespaces), which the scenario's
 * `repository.bundle` loads with every object under its own id. The refs the platform keeps for its own
 * records (merge requests, pipelines, environments, keep-around: the refs a push may not write) are left
 * out, as the scenario does.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hiddenBy, RECEIVE_HIDDEN } from '../resources/git_http/refs.js';

function run(git: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      git,
      args,
      { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(String(stderr).trim() || err.message));
        else resolve(String(stdout));
      },
    );
  });
}

/**
 * The project's repository as a base64 bundle, or undefined when it has no refs. The token travels in
 * an `Authorization` header (`http.extraHeader`), never in the URL that git may print.
 */
export async function captureRepository(o: {
  git: string;
  httpUrl: string;
  token: string;
}): Promise<string | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'fauxlab-capture-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
  };
  const auth = `http.extraHeader=Authorization: Basic ${Buffer.from(`oauth2:${o.token}`).toString('base64')}`;
  try {
    const repo = join(dir, 'repo.git');
    await run(o.git, ['-c', auth, 'clone', '-q', '--mirror', o.httpUrl, repo], dir, env);
    const refs = (await run(o.git, ['for-each-ref', '--format=%(refname)'], repo, env))
      .split('\n')
      .filter((r) => r !== '' && !hiddenBy(RECEIVE_HIDDEN, r));
    if (refs.length === 0) return undefined;
    const file = join(dir, 'repo.bundle');
    // HEAD names the default branch, unless that branch does not exist.
    const head = await run(o.git, ['rev-parse', '--verify', '-q', 'HEAD'], repo, env).then(
      () => ['HEAD'],
      () => [],
    );
    await run(o.git, ['bundle', 'create', '-q', file, ...head, ...refs], repo, env);
    return readFileSync(file).toString('base64');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
