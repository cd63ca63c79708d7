/**
 * `fauxlab scenario capture` as users run it: the bundled command against a running source, the file
 * written whole (and loadable), the summary and notes on stderr; and a source that keeps failing leaves
 * no file and exits non-zero with the request named.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createFauxlab, type ScenarioFile } from '../../src/index.js';
import { localServers } from '../helpers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'dist', 'bin', 'fauxlab.js');
const dir = mkdtempSync(join(tmpdir(), 'fauxlab-capture-cli-'));
const listen = localServers();

beforeAll(() => {
  spawnSync(process.execPath, [join(root, 'scripts', 'build.js'), '--bin-only'], {
    cwd: root,
    timeout: 120_000,
  });
  expect(existsSync(bin)).toBe(true);
}, 130_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: dir, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const world: ScenarioFile = {
  users: [
    {
      username: 'root',
      name: 'Administrator',
      admin: true,
      tokens: [{ token: 'root-api', scopes: ['api'] }],
    },
  ],
  groups: [{ path: 'acme', visibility: 'public' }],
  projects: [{ path: 'acme/app', visibility: 'public', issues: [{ title: 'One', author: 'root' }] }],
};

describe('fauxlab scenario capture (the command)', () => {
  it('writes a scenario that loads, and reports what it captured', async () => {
    const base = await listen(createFauxlab({ scenario: world, journal: false }).fetch);
    const out = join(dir, 'captured.yaml');
    const r = await run([
      'scenario',
      'capture',
      '--url',
      base,
      '--token',
      'root-api',
      '--group',
      'acme',
      '-o',
      out,
    ]);
    expect(r.stderr).toMatch(/^captured 1 users, 1 groups, 1 projects in \d+ requests to .*captured\.yaml$/m);
    expect(r.code).toBe(0);
    const scenario = parse(readFileSync(out, 'utf8')) as ScenarioFile;
    expect(scenario.projects?.[0]?.issues?.[0]?.title).toBe('One');
    expect(() => createFauxlab({ scenario })).not.toThrow();
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a source that keeps failing: exit 1, the request named, no file', async () => {
    const base = await listen(() => new Response('{"message":"500 Internal Server Error"}', { status: 500 }));
    const out = join(dir, 'never.yaml');
    const r = await run(['scenario', 'capture', '--url', base, '--token', 't', '-o', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'fauxlab: capture: GET /api/v4/user answered 500 5 times; giving up; nothing written\n',
    );
    expect(existsSync(out)).toBe(false);
  }, 30_000);

  it('--url and --token are required', async () => {
    const r = await run(['scenario', 'capture', '--url', 'http://127.0.0.1:1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Missing required argument: token');
  });
});
