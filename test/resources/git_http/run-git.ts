/** The Debian `git` binary, run with a clean environment against a fauxlab server (for the git tests). */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

export const GIT = '/usr/bin/git';
export const hasGit = existsSync(GIT);

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs git in `cwd` with HOME at `home` and a timeout; never throws. */
export function runGit(home: string, args: string[], cwd = home, extraEnv: Record<string, string> = {}) {
  return new Promise<Run>((resolve) => {
    execFile(
      GIT,
      args,
      {
        cwd,
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: home,
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_TERMINAL_PROMPT: '0',
          GIT_ASKPASS: '',
          GIT_AUTHOR_NAME: 'Git User',
          GIT_AUTHOR_EMAIL: 'git@example.com',
          GIT_COMMITTER_NAME: 'Git User',
          GIT_COMMITTER_EMAIL: 'git@example.com',
          GIT_AUTHOR_DATE: '1614600000 +0000',
          GIT_COMMITTER_DATE: '1614600000 +0000',
          ...extraEnv,
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
