/**
 * The `fauxlab scenario capture` command: runs the capture, shows progress on a terminal, and writes the
 * scenario only once everything is read (to a temporary name, then renamed), so that a failure leaves
 * no file; what could not be read is listed after.
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { capture, CaptureError } from './capture.js';

export { CaptureError } from './capture.js';

export interface CaptureArgs {
  url: string;
  token: string;
  group?: string[];
  project?: string[];
  withSecrets: boolean;
  format: 'yaml' | 'json';
  output?: string;
}

/** The `git` on PATH, if any: repositories are captured with it. */
function gitOnPath(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':'))
    if (dir && existsSync(join(dir, 'git'))) return join(dir, 'git');
  return undefined;
}

/**
 * Reads a running GitLab through its REST API and `git` and writes a scenario. The file is written only
 * once everything is read (to a temporary name, then renamed), so that a failure leaves none.
 */
export async function runCapture(args: CaptureArgs): Promise<void> {
  const tty = process.stderr.isTTY;
  const git = gitOnPath();
  let got;
  try {
    got = await capture({
      url: args.url,
      token: args.token,
      groups: args.group,
      projects: args.project,
      withSecrets: args.withSecrets,
      git,
      progress: tty ? (line) => process.stderr.write(`\r\x1b[K${line}`) : undefined,
    });
  } catch (e) {
    if (tty) process.stderr.write('\r\x1b[K');
    if (e instanceof CaptureError) throw new CaptureError(`capture: ${e.message}; nothing written`);
    throw new CaptureError(`capture: ${String((e as Error).cause ?? (e as Error).message)}; nothing written`);
  }
  if (tty) process.stderr.write('\r\x1b[K');
  const text =
    args.format === 'json'
      ? `${JSON.stringify(got.scenario, null, 2)}\n`
      : stringify(got.scenario, { lineWidth: 0 });
  if (args.output) {
    const tmp = `${args.output}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, args.output);
  } else process.stdout.write(text);
  const s = got.scenario as { users: unknown[]; groups: unknown[]; projects: unknown[] };
  process.stderr.write(
    `captured ${s.users.length} users, ${s.groups.length} groups, ${s.projects.length} projects in ${got.requests} requests` +
      `${args.output ? ` to ${args.output}` : ''}\n` +
      got.warnings.map((w) => `  note: ${w}\n`).join(''),
  );
}
