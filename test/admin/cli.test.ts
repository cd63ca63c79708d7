/**
 * The CLI's flags for the testing features: --explain, --latency, --state-file, --journal-size, and
 * `scenario export`. Built into a directory of its own, so that it does not race other suites that
 * build dist/.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
// Inside the repository, so that the build resolves node_modules.
const out = join(root, 'node_modules', '.cache', 'fauxlab-admin-cli');
const bin = join(out, 'bin', 'fauxlab.js');
const dir = mkdtempSync(join(tmpdir(), 'fauxlab-admin-cli-'));
const demo = join(root, 'scenarios', 'demo.yaml');
const ADMIN = { 'PRIVATE-TOKEN': 'glpat-fauxlab-demo-root' };

beforeAll(() => {
  rmSync(out, { recursive: true, force: true });
  // The command alone (bundled, as `npm run build` makes it): what matters is a current bin/fauxlab.js.
  spawnSync(process.execPath, [join(root, 'scripts', 'build.js'), '--bin-only', '--out-dir', out], {
    cwd: root,
    timeout: 120_000,
  });
  expect(existsSync(bin)).toBe(true);
}, 130_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
});

function run(
  args: string[],
  timeout = 15_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`fauxlab ${args.join(' ')} did not finish\n${stdout}\n${stderr}`));
    }, timeout);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

interface Served {
  child: ChildProcess;
  url: string;
  banner: string;
  exited: Promise<number | null>;
}

function serve(args: string[]): Promise<Served> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--scenario', demo, ...args], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const timer = setTimeout(() => fail(new Error(`no banner\n${stdout}\n${stderr}`)), 15_000);
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const url = /base URL:\s+(\S+)/.exec(stdout)?.[1];
      if (url && /try: .*\n/.test(stdout)) {
        clearTimeout(timer);
        done({ child, url, banner: stdout, exited });
      }
    });
    void exited.then((code) => fail(new Error(`exited (${code})\n${stdout}\n${stderr}`)));
  });
}

describe('fauxlab serve: testing flags', () => {
  it('--explain sends X-Fauxlab-Explain on 404s; without it, no such header', async () => {
    const a = await serve(['--explain']);
    let res = await fetch(`${a.url}/api/v4/users/9999`, { headers: ADMIN });
    expect([res.status, res.headers.get('x-fauxlab-explain')]).toEqual([404, 'no user 9999']);
    const b = await serve([]);
    res = await fetch(`${b.url}/api/v4/users/9999`, { headers: ADMIN });
    expect([res.status, res.headers.get('x-fauxlab-explain')]).toEqual([404, null]);
  });

  it('--journal-size caps GET /__fauxlab/requests; 0 turns the journal off', async () => {
    const a = await serve(['--journal-size', '2']);
    for (let i = 1; i <= 3; i++) await (await fetch(`${a.url}/api/v4/users/${i}`, { headers: ADMIN })).text();
    let res = await fetch(`${a.url}/__fauxlab/requests`);
    expect((await res.json()).map((e: { path: string }) => e.path)).toEqual([
      '/api/v4/users/2',
      '/api/v4/users/3',
    ]);
    const b = await serve(['--journal-size', '0']);
    await (await fetch(`${b.url}/api/v4/users/1`, { headers: ADMIN })).text();
    res = await fetch(`${b.url}/__fauxlab/requests`);
    expect(await res.json()).toEqual([]);
  });

  it('--latency delays every API request and says so in the banner', async () => {
    const s = await serve(['--latency', '150']);
    expect(s.banner).toContain('latency:   150 ms added to every request');
    const t0 = performance.now();
    expect((await fetch(`${s.url}/api/v4/users/1`, { headers: ADMIN })).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('--state-file saves the world on exit and loads it on the next start', async () => {
    const stateFile = join(dir, 'world.json');
    const first = await serve(['--state-file', stateFile, '--frozen-clock']);
    expect(first.banner).toContain(`state:     ${stateFile} (new; saved on exit)`);
    const res = await fetch(`${first.url}/api/v4/users`, {
      method: 'POST',
      headers: { ...ADMIN, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        username: 'kept',
        name: 'Kept',
        email: 'kept@example.com',
        password: 'password1',
      }),
    });
    expect(res.status).toBe(201);
    await fetch(`${first.url}/__fauxlab/clock`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ advance: '1h' }),
    });
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(JSON.parse(readFileSync(stateFile, 'utf8')).kind).toBe('fauxlab-state');

    const second = await serve(['--state-file', stateFile, '--frozen-clock']);
    expect(second.banner).toContain('(restored; clock at 2021-03-01T10:00:00.000Z); saved again on exit');
    const found = await fetch(`${second.url}/api/v4/users?username=kept`, { headers: ADMIN });
    expect((await found.json()).map((u: { username: string }) => u.username)).toEqual(['kept']);
  });

  it('a broken state file stops the start with a one-line reason', async () => {
    const bad = join(dir, 'broken.json');
    writeFileSync(bad, 'not json');
    const r = await run(['serve', '--port', '0', '--scenario', demo, '--state-file', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^fauxlab: cannot load the state file: .*broken\.json: not valid JSON/);
  });

  it('bad values are usage errors', async () => {
    for (const args of [
      ['--journal-size', '-1'],
      ['--journal-size', '1.5'],
      ['--latency', 'slow'],
      ['--latency', '500-100'],
    ]) {
      const r = await run(['serve', '--port', '0', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(new RegExp(args[0]!));
    }
  });
});

describe('fauxlab scenario export', () => {
  const generated = join(root, 'scenarios', 'examples', 'generated.yaml');

  it('flattens a scenario (generate resolved) into one that loads, the same in every run', async () => {
    const a = await run(['scenario', 'export', '--scenario', generated]);
    const b = await run(['scenario', 'export', '--scenario', generated]);
    expect(a.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    const s = loadScenario(parseYaml(a.stdout));
    expect(s.users.length).toBe(1001);
    expect(s.generate).toBeUndefined();
  });

  it('exports a running server (--url), as JSON when asked, to a file', async () => {
    const s = await serve(['--frozen-clock']);
    await fetch(`${s.url}/api/v4/users/2/block`, { method: 'POST', headers: ADMIN });
    const target = join(dir, 'exported.json');
    const r = await run(['scenario', 'export', '--url', s.url, '--format', 'json', '-o', target]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const exported = JSON.parse(readFileSync(target, 'utf8'));
    expect(exported.users.find((u: { username: string }) => u.username === 'alice').state).toBe('blocked');
  });

  it('exports a state file', async () => {
    const stateFile = join(dir, 'export-state.json');
    const s = await serve(['--state-file', stateFile, '--frozen-clock']);
    s.child.kill('SIGTERM');
    await s.exited;
    const r = await run(['scenario', 'export', '--state-file', stateFile]);
    expect(r.code).toBe(0);
    expect(parseYaml(r.stdout).now).toBe('2021-03-01T09:00:00.000Z');
  });

  it('needs exactly one source; an unreachable server is a one-line error', async () => {
    expect((await run(['scenario', 'export'])).code).toBe(2);
    expect((await run(['scenario', 'export', '--url', 'http://x.test', '--scenario', demo])).code).toBe(2);
    const r = await run(['scenario', 'export', '--url', 'http://127.0.0.1:1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^fauxlab: cannot reach http:\/\/127\.0\.0\.1:1\/__fauxlab\/scenario/);
  });
});
