import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, expect, test } from 'vitest';

/** The reliability flags of `fauxlab serve`, through the compiled command. */
const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'dist', 'bin', 'fauxlab.js');
const TOO_LARGE = { message: '413 Request Entity Too Large' };
let child: ChildProcess | undefined;

beforeAll(() => {
  // The command alone (bundled, as `npm run build` makes it): what matters is a current dist/bin/fauxlab.js.
  spawnSync(process.execPath, [join(root, 'scripts', 'build.js'), '--bin-only'], {
    cwd: root,
    timeout: 120_000,
  });
  expect(existsSync(bin)).toBe(true);
}, 130_000);

afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
});

/** Starts `fauxlab serve --port 0 ...args` and resolves with its base URL and the banner's admin token. */
async function serve(...args: string[]): Promise<{ base: string; token?: string }> {
  child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 15_000);
    child!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /base URL:\s+(\S+)/.exec(out);
      if (m && out.includes('try:')) {
        clearTimeout(timer);
        resolve({ base: m[1]!, token: /token (\S+)/.exec(out)?.[1] });
      }
    });
  });
}

test('fauxlab serve --admin-token: the control plane answers 401 without the bearer token, the API is open', async () => {
  const { base } = await serve('--admin-token', 'shared-host-secret');
  const without = await fetch(`${base}/__fauxlab/clock`);
  expect(without.status).toBe(401);
  expect(await without.json()).toEqual({
    message: '401 Unauthorized - admin token missing: send "Authorization: Bearer <admin token>"',
  });
  const wrong = await fetch(`${base}/__fauxlab/clock`, { headers: { Authorization: 'Bearer nope' } });
  expect(wrong.status).toBe(401);
  expect(await wrong.json()).toEqual({ message: '401 Unauthorized - wrong admin token' });
  const right = await fetch(`${base}/__fauxlab/clock`, {
    headers: { Authorization: 'Bearer shared-host-secret' },
  });
  expect(right.status).toBe(200);
  expect((await fetch(`${base}/api/v4/projects`)).status).toBe(200);
  const exported = spawnSync(
    process.execPath,
    [bin, 'scenario', 'export', '--url', base, '--admin-token', 'shared-host-secret'],
    { cwd: root, encoding: 'utf8', timeout: 30_000 },
  );
  expect(exported.status, exported.stderr).toBe(0);
  expect(exported.stdout).toContain('users:');
}, 60_000);

test('fauxlab serve --max-body-size 2k --max-uploads-total 100: larger bodies and uploads past the total are 413', async () => {
  const { base, token } = await serve('--max-body-size', '2k', '--max-uploads-total', '100');
  const headers = { 'PRIVATE-TOKEN': token!, 'Content-Type': 'application/json' };
  const markdown = (text: string) =>
    fetch(`${base}/api/v4/markdown`, { method: 'POST', headers, body: JSON.stringify({ text }) });
  expect((await markdown('x'.repeat(2000))).status).toBe(201);
  const big = await markdown('x'.repeat(2100));
  expect(big.status).toBe(413);
  expect(await big.json()).toEqual(TOO_LARGE);

  const [project] = (await (await fetch(`${base}/api/v4/projects`, { headers })).json()) as { id: number }[];
  const upload = (bytes: number) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), 'f.bin');
    return fetch(`${base}/api/v4/projects/${project!.id}/uploads`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': token! },
      body: form,
    });
  };
  expect((await upload(60)).status).toBe(201);
  const over = await upload(60);
  expect(over.status).toBe(413);
  expect(await over.json()).toEqual(TOO_LARGE);
  expect((await upload(40)).status).toBe(201);
}, 60_000);

test('fauxlab serve: a size flag that is not a size is a usage error (exit 2)', () => {
  for (const args of [
    ['--max-body-size', 'lots'],
    ['--max-uploads-total', '0'],
    ['--max-body-size', '5 parsecs'],
  ]) {
    const r = spawnSync(process.execPath, [bin, 'serve', '--port', '0', ...args], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${args[0]} must be a size`);
  }
}, 60_000);
