import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'dist', 'bin', 'fauxlab.js');
let child: ChildProcess | undefined;

beforeAll(() => {
  // Type errors elsewhere in the tree still emit; what matters is a current dist/bin/fauxlab.js.
  spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      timeout: 120_000,
    },
  );
  expect(existsSync(bin)).toBe(true);
}, 130_000);

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

test('fauxlab serve --admin-token: the control plane answers 401 without the bearer token, the API is open', async () => {
  child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--admin-token', 'shared-host-secret'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 15_000);
    child!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /base URL:\s+(\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  const without = await fetch(`${base}/__fauxlab/clock`);
  expect(without.status).toBe(401);
  expect(await without.json()).toEqual({ message: '401 Unauthorized' });
  const wrong = await fetch(`${base}/__fauxlab/clock`, { headers: { Authorization: 'Bearer nope' } });
  expect(wrong.status).toBe(401);
  const right = await fetch(`${base}/__fauxlab/clock`, {
    headers: { Authorization: 'Bearer shared-host-secret' },
  });
  expect(right.status).toBe(200);
  expect((await fetch(`${base}/api/v4/projects`)).status).toBe(200);
  const exported = spawnSync(
    process.execPath,
    [bin, 'scenario', 'export', '--url', base, '--admin-token', 'shared-host-secret'],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  expect(exported.status, exported.stderr).toBe(0);
  expect(exported.stdout).toContain('users:');
}, 60_000);
