import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/app.js';
import { scenarioJsonSchema } from '../../src/scenario/json-schema.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'dist', 'bin', 'fauxlab.js');
const dir = mkdtempSync(join(tmpdir(), 'fauxlab-cli-'));
const STACK = /^\s+at /m;

beforeAll(() => {
  // The command alone (bundled, as `npm run build` makes it): what matters is a current dist/bin/fauxlab.js.
  spawnSync(process.execPath, [join(root, 'scripts', 'build.js'), '--bin-only'], {
    cwd: root,
    timeout: 120_000,
  });
  expect(existsSync(bin)).toBe(true);
}, 130_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion, killed after `timeout` ms. */
function run(args: string[], timeout = 15_000): Promise<Result> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`fauxlab ${args.join(' ')} did not finish in ${timeout} ms\n${stdout}\n${stderr}`));
    }, timeout);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

interface Served {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts `fauxlab serve`, resolving once its banner (ending with the curl line) is printed. */
function serve(args: string[], timeout = 15_000): Promise<Served> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`fauxlab ${args.join(' ')} printed no banner in ${timeout} ms\n${stdout}\n${stderr}`));
    }, timeout);
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (/try: .*\n/.test(stdout)) {
        clearTimeout(timer);
        done({ child, stdout: () => stdout, stderr: () => stderr, exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`fauxlab exited (${code}) before serving\n${stdout}\n${stderr}`));
    });
  });
}

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** Runs a printed `curl [-H "K: V"] URL` line with fetch. */
async function curl(line: string): Promise<Response> {
  const m = /curl (?:-H "([^:]+): ([^"]+)" )?(\S+)$/.exec(line.trim());
  if (!m) throw new Error(`not a curl line: ${line}`);
  return fetch(m[3]!, { headers: m[1] ? { [m[1]]: m[2]! } : {} });
}

const bannerField = (out: string, name: string) => new RegExp(`^\\s*${name}:\\s+(.*)$`, 'm').exec(out)?.[1];

describe('fauxlab scenario validate', () => {
  it('a valid file: exit 0 and an ok line', async () => {
    const r = await run(['scenario', 'validate', join(root, 'scenarios', 'demo.yaml')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/demo\.yaml: ok \(6 users, 3 groups, 7 projects\)\n$/);
  });

  it('a relative path is read from the working directory', async () => {
    file('rel.json', '{"users": [{"username": "a"}]}');
    const r = await run(['scenario', 'validate', 'rel.json']);
    expect(r.stdout).toBe('rel.json: ok (1 user, 0 groups, 0 projects)\n');
  });

  it('an invalid file: non-zero exit, the file and each field path, no stack trace', async () => {
    const path = file(
      'bad.yaml',
      'users:\n  - username: a\n  - username: b\n  - username: c\n    tokens:\n      - token: t\n        scopes: [root]\n',
    );
    const r = await run(['scenario', 'validate', path]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${path}: invalid scenario`);
    expect(r.stderr).toMatch(/^ {2}users\[2\]\.tokens\[0\]\.scopes\[0\]: /m);
    expect(r.stderr).not.toMatch(STACK);
  });

  it('a cross-reference error names its path', async () => {
    const path = file(
      'xref.json',
      JSON.stringify({ groups: [{ path: 'g', members: [{ username: 'ghost', access_level: 30 }] }] }),
    );
    const r = await run(['scenario', 'validate', path]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('groups[0].members[0].username: no user "ghost"');
  });

  it('a missing file: non-zero exit and a one-line reason', async () => {
    const r = await run(['scenario', 'validate', 'missing.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('fauxlab: missing.yaml: invalid scenario\n  no such file\n');
  });

  it('no file: a usage error', async () => {
    const r = await run(['scenario', 'validate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('fauxlab --help');
    expect(r.stderr).not.toMatch(STACK);
  });
});

describe('fauxlab scenario schema', () => {
  it('prints the JSON Schema', async () => {
    const r = await run(['scenario', 'schema']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(scenarioJsonSchema());
  });
});

describe('fauxlab routes', () => {
  it('prints every route, METHOD /api/v4/path, one per line', async () => {
    const r = await run(['routes']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const l of lines) expect(l).toMatch(/^(GET|POST|PUT|PATCH|DELETE) \/api\/v4\/\S+$/);
    expect(lines).toContain('GET /api/v4/user');
    const expected = createFauxlab().routes.map((x) => `${x.method} /api/v4${x.path}`);
    expect([...lines].sort()).toEqual([...expected].sort());
  });
});

describe('bad flags', () => {
  it.each([
    [['--bogus'], /Unknown argument: bogus/],
    [['serve', '--port', 'abc'], /--port must be an integer/],
    [['--port', '99999'], /--port must be an integer/],
    [['--tier', 'gold'], /Invalid values:[\s\S]*tier/],
    [
      ['--gitlab-version', '19.0'],
      /--gitlab-version: GitLab version "19.0" is not supported: fauxlab answers as GitLab 13\.12 to 18\.11/,
    ],
    [['--seed', 'x'], /--seed must be an integer/],
    [['frobnicate'], /Unknown argument: frobnicate/],
  ])('%j exits non-zero with a message and no stack trace', async (args, message) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/^fauxlab: /);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stdout).toBe('');
  });

  it('--help prints usage with the serve options', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const flag of [
      '--port',
      '--host',
      '--scenario',
      '--seed',
      '--tier',
      '--gitlab-version',
      '--base-url',
      '--control-plane',
      '--frozen-clock',
    ])
      expect(r.stdout).toContain(flag);
  });
});

describe('fauxlab serve', () => {
  it('prints the base URL, the admin token and a curl line that works', async () => {
    const s = await serve(['--port', '0']);
    const out = s.stdout();
    const base = bannerField(out, 'base URL')!;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(out).toContain(join(root, 'scenarios', 'demo.yaml'));
    expect(bannerField(out, 'admin')).toBe('root, token glpat-fauxlab-demo-root');
    const line = bannerField(out, 'try')!;
    expect(line).toBe(`curl -H "PRIVATE-TOKEN: glpat-fauxlab-demo-root" ${base}/api/v4/user`);
    const res = await curl(line);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { username: string }).username).toBe('root');
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(s.stderr()).toBe('');
  });

  it('stops cleanly on SIGINT, keep-alive connections open or not', async () => {
    const s = await serve(['--port', '0']);
    const base = bannerField(s.stdout(), 'base URL')!;
    await (await fetch(`${base}/__fauxlab/clock`)).text();
    // How soon it stops is measured by `npm run bench`; an idle keep-alive connection must not hold it.
    s.child.kill('SIGINT');
    expect(await s.exited).toBe(0);
  });

  it('serves a scenario file given with --scenario, relative to the working directory', async () => {
    file(
      'mini.json',
      JSON.stringify({
        users: [{ username: 'boss', admin: true, tokens: [{ token: 'boss-token', scopes: ['api'] }] }],
      }),
    );
    const s = await serve(['serve', '--scenario', 'mini.json', '--port', '0']);
    expect(bannerField(s.stdout(), 'admin')).toBe('boss, token boss-token');
    const res = await curl(bannerField(s.stdout(), 'try')!);
    expect(((await res.json()) as { username: string }).username).toBe('boss');
  });

  it('the printed token skips admins without an active api token', async () => {
    file(
      'tokens.json',
      JSON.stringify({
        now: '2021-03-01T00:00:00Z',
        users: [
          { username: 'a', admin: true, tokens: [{ token: 'read', scopes: ['read_api'] }] },
          { username: 'b', admin: true, state: 'blocked', tokens: [{ token: 'blocked', scopes: ['api'] }] },
          {
            username: 'c',
            admin: true,
            tokens: [
              { token: 'expired', scopes: ['api'], expires_at: '2021-03-01' },
              { token: 'revoked', scopes: ['api'], revoked: true },
              { token: 'good', scopes: ['read_user', 'api'] },
            ],
          },
        ],
      }),
    );
    const s = await serve(['--scenario', 'tokens.json', '--port', '0']);
    expect(bannerField(s.stdout(), 'admin')).toBe('c, token good');
  });

  it('without an admin token it says so and still prints a curl line that answers 200', async () => {
    const path = file('empty.json', '{}');
    const s = await serve(['--scenario', path, '--port', '0']);
    expect(bannerField(s.stdout(), 'admin')).toMatch(/^none/);
    const line = bannerField(s.stdout(), 'try')!;
    const m = /^curl "(http:\/\/127\.0\.0\.1:\d+\/api\/v4\/\S+)"$/.exec(line);
    expect(m).not.toBeNull();
    const res = await fetch(m![1]!);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
  });

  it('the clock runs in real time from the scenario now; --frozen-clock stops it', async () => {
    const live = await serve(['--port', '0']);
    const liveBase = bannerField(live.stdout(), 'base URL')!;
    const a = ((await (await fetch(`${liveBase}/__fauxlab/clock`)).json()) as { now: string }).now;
    await new Promise((r) => setTimeout(r, 30));
    const b = ((await (await fetch(`${liveBase}/__fauxlab/clock`)).json()) as { now: string }).now;
    expect(a >= '2021-03-01T09:00:00.000Z' && a < '2021-03-01T09:01:00.000Z').toBe(true);
    expect(b > a).toBe(true);

    const frozen = await serve(['--port', '0', '--frozen-clock']);
    const frozenBase = bannerField(frozen.stdout(), 'base URL')!;
    await new Promise((r) => setTimeout(r, 30));
    const c = ((await (await fetch(`${frozenBase}/__fauxlab/clock`)).json()) as { now: string }).now;
    expect(c).toBe('2021-03-01T09:00:00.000Z');
  });

  it('without a scenario now the clock starts at the wall time', async () => {
    const path = file('nonow.json', '{}');
    const before = new Date().toISOString();
    const s = await serve(['--scenario', path, '--port', '0', '--frozen-clock']);
    const base = bannerField(s.stdout(), 'base URL')!;
    const now = ((await (await fetch(`${base}/__fauxlab/clock`)).json()) as { now: string }).now;
    expect(now >= before && now <= new Date().toISOString()).toBe(true);
  });

  it('--no-control-plane hides /__fauxlab/', async () => {
    const s = await serve(['--port', '0', '--no-control-plane']);
    const base = bannerField(s.stdout(), 'base URL')!;
    expect((await fetch(`${base}/__fauxlab/clock`)).status).toBe(404);
    expect(s.stdout()).not.toContain('control:');
  });

  it('serves the dashboard at /__fauxlab/: with --admin-token, a sign-in form whose cookie opens it', async () => {
    const s = await serve(['--port', '0', '--admin-token', 'cli-dashboard-token']);
    const base = bannerField(s.stdout(), 'base URL')!;
    const html = { Accept: 'text/html' };
    const refused = await fetch(`${base}/__fauxlab/`, { headers: html });
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain('<h1>Sign in</h1>');
    const login = await fetch(`${base}/__fauxlab/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'token=cli-dashboard-token',
      redirect: 'manual',
    });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const page = await fetch(`${base}/__fauxlab/?view=clock`, { headers: { ...html, Cookie: cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>Clock</h1>');
    const index = await fetch(`${base}/__fauxlab/`, {
      headers: { Authorization: 'Bearer cli-dashboard-token' },
    });
    expect(((await index.json()) as { dashboard: string }).dashboard).toBe('/__fauxlab/');
  });

  it('--tier and --seed reach the instance', async () => {
    const path = file(
      'gen.json',
      JSON.stringify({ now: '2021-03-01T00:00:00Z', seed: 1, generate: { users: 5 } }),
    );
    const state = async (args: string[]) => {
      const s = await serve(['--scenario', path, '--port', '0', '--frozen-clock', ...args]);
      const base = bannerField(s.stdout(), 'base URL')!;
      const text = await (await fetch(`${base}/__fauxlab/state`)).text();
      s.child.kill('SIGTERM');
      await s.exited;
      return text;
    };
    expect((JSON.parse(await state(['--tier', 'ultimate'])) as { tier: string }).tier).toBe('ultimate');
    expect((JSON.parse(await state(['--gitlab-version', '15.4'])) as { version: string }).version).toBe(
      '15.4',
    );
    const seven = await state(['--seed', '7']);
    expect(await state(['--seed', '7'])).toBe(seven);
    expect(await state([])).not.toBe(seven);
  }, 30_000);

  it('--base-url is used in the URLs the API returns', async () => {
    const s = await serve(['--port', '0', '--base-url', 'https://gitlab.example.com']);
    expect(bannerField(s.stdout(), 'external')).toMatch(/^https:\/\/gitlab\.example\.com/);
    const res = await curl(bannerField(s.stdout(), 'try')!);
    expect(((await res.json()) as { web_url: string }).web_url).toBe('https://gitlab.example.com/root');
  });

  it('a bad scenario file: non-zero exit with the path-named errors, no stack trace', async () => {
    const path = file(
      'bad-serve.json',
      JSON.stringify({ users: [{ username: 'a', tokens: [{ token: 't', scopes: [] }] }] }),
    );
    const r = await run(['--scenario', path, '--port', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${path}: invalid scenario`);
    expect(r.stderr).toContain('users[0].tokens[0].scopes: ');
    expect(r.stderr).not.toMatch(STACK);
  });

  it('a port in use: non-zero exit and a clear message', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await run(['--port', String(port)]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `fauxlab: cannot listen on 127.0.0.1:${port}: the address is in use (try --port)\n`,
      );
    } finally {
      blocker.close();
    }
  });

  it('loads faker only for a scenario with a generate block', async () => {
    // Reports every resolution of a faker module, by import or by require, on stderr.
    const hook = file(
      'hook.mjs',
      String.raw`
        import { register, createRequire } from 'node:module';
        const Module = createRequire(import.meta.url)('module');
        const resolve = Module._resolveFilename;
        Module._resolveFilename = function (req, ...rest) {
          if (String(req).includes('faker')) process.stderr.write('loaded ' + req + '\n');
          return resolve.call(this, req, ...rest);
        };
        const hooks = 'export async function resolve(s, c, next) {' +
          " if (s.includes('faker')) process.stderr.write('loaded ' + s + '\\n'); return next(s, c); }";
        register('data:text/javascript,' + encodeURIComponent(hooks));
      `,
    );
    const launch = (scenario: string) =>
      new Promise<string>((done) => {
        const child = spawn(
          process.execPath,
          ['--import', hook, bin, '--port', '0', '--scenario', scenario],
          {
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        children.add(child);
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.stdout.on('data', (d: Buffer) => {
          if (d.toString().includes('try:')) child.kill('SIGTERM');
        });
        child.on('close', () => done(stderr));
        setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      });
    expect(await launch(join(root, 'scenarios', 'demo.yaml'))).not.toContain('loaded');
    expect(await launch(file('gen-hook.json', JSON.stringify({ generate: { users: 3 } })))).toContain(
      'loaded @faker-js/faker',
    );
  }, 30_000);
});

describe('flags checked at start', () => {
  it.each([
    [['--port'], '--port'],
    [['--port', '--host', '127.0.0.1'], '--port'],
    [['-p'], '-p'],
    [['--port='], '--port'],
    [['--state-file'], '--state-file'],
    [['--state-file', '--port', '0'], '--state-file'],
    [['--scenario'], '--scenario'],
    [['--seed'], '--seed'],
    [['--host'], '--host'],
    [['--latency'], '--latency'],
    [['--journal-size'], '--journal-size'],
    [['--max-body-size'], '--max-body-size'],
    [['--base-url'], '--base-url'],
    [['--admin-token'], '--admin-token'],
    [['scenario', 'export', '--url'], '--url'],
    [['scenario', 'export', '--scenario', 'demo', '-o'], '-o'],
  ])('%j: a flag without its value stops with one line naming it', async (args, flag) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`fauxlab: ${flag} needs a value\nRun "fauxlab --help" for usage.\n`);
    expect(r.stdout).toBe('');
  });

  it('a negative number is a value, not a missing one', async () => {
    const r = await run(['--seed', '-3', '--port', '99999']);
    expect(r.stderr).toContain('--port must be an integer from 0 to 65535');
  });

  it('--state-file in a directory that does not exist stops before serving', async () => {
    const r = await run(['--port', '0', '--state-file', join(dir, 'nowhere', 'world.json')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`fauxlab: --state-file: directory ${join(dir, 'nowhere')} does not exist\n`);
    expect(r.stdout).toBe('');
  });

  it('--state-file under a file (not a directory) stops before serving', async () => {
    const f = file('plain.txt', 'x');
    const r = await run(['--port', '0', '--state-file', join(f, 'world.json')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`fauxlab: --state-file: ${f} is not a directory\n`);
  });

  it('--state-file naming a directory stops before serving', async () => {
    const r = await run(['--port', '0', '--state-file', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`fauxlab: --state-file: ${dir} is a directory\n`);
  });

  it('--state-file in a directory that cannot be written stops before serving', async () => {
    // /sys refuses new files even to root, for whom permission bits would not.
    const r = await run(['--port', '0', '--state-file', '/sys/fauxlab-world.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^fauxlab: --state-file: cannot write in \/sys \((EACCES|EROFS|EPERM)\)\n$/);
  });

  it('-v prints the version, as --version does', async () => {
    const v = await run(['-v']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect((await run(['--version'])).stdout).toBe(v.stdout);
  });
});

describe('fauxlab serve: the console', () => {
  it('one line per request: method, path without the query, status, time and user', async () => {
    const s = await serve(['--port', '0']);
    const base = bannerField(s.stdout(), 'base URL')!;
    expect(bannerField(s.stdout(), 'requests')).toBe('one line each below (--quiet: none)');
    await (
      await fetch(`${base}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'glpat-fauxlab-demo-root' } })
    ).text();
    await (await fetch(`${base}/api/v4/projects?private_token=glpat-fauxlab-demo-alice`)).text();
    await (await fetch(`${base}/api/v4/users/999`)).text();
    await (
      await fetch(`${base}/__fauxlab/reset`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
      })
    ).text();
    // After a reset the journal numbers its entries from 1 again: the log goes on.
    await (
      await fetch(`${base}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': 'glpat-fauxlab-demo-bob' } })
    ).text();
    const lines = s.stdout().split('\n').slice(-6, -1);
    const ms = '\\d+(\\.\\d)? ms';
    expect(lines[0]).toMatch(new RegExp(`^GET /api/v4/user 200 ${ms} root$`));
    expect(lines[1]).toMatch(new RegExp(`^GET /api/v4/projects 200 ${ms} alice$`));
    expect(lines[2]).toMatch(new RegExp(`^GET /api/v4/users/999 404 ${ms} -$`));
    expect(lines[3]).toMatch(new RegExp(`^POST /__fauxlab/reset 200 ${ms} -$`));
    expect(lines[4]).toMatch(new RegExp(`^GET /api/v4/version 200 ${ms} bob$`));
    expect(s.stdout()).not.toContain('glpat-fauxlab-demo-alice');
  });

  it('--quiet prints the banner and no line per request', async () => {
    const s = await serve(['--port', '0', '--quiet']);
    const banner = s.stdout();
    const base = bannerField(banner, 'base URL')!;
    expect(bannerField(banner, 'requests')).toBeUndefined();
    await (await fetch(`${base}/api/v4/users/1`)).text();
    await (await fetch(`${base}/__fauxlab/clock`)).text();
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(s.stdout()).toBe(banner);
  });

  it('a generated world prints one summary line: counts, time, memory', async () => {
    const path = file(
      'gen-summary.json',
      JSON.stringify({ generate: { users: 50, groups: 5, projects: 20, issues_per_project: 2 } }),
    );
    const s = await serve(['--port', '0', '--scenario', path]);
    expect(bannerField(s.stdout(), 'world')).toMatch(
      /^50 users, 5 groups, 20 projects, 40 issues, 0 merge requests; built in \d+\.\d s, heap [\d,]+ MiB, RSS [\d,]+ MiB$/,
    );
    // Not on a pipe: the progress line is for terminals.
    expect(s.stderr()).toBe('');
  });

  it('an explicit world prints no summary line', async () => {
    const s = await serve(['--port', '0']);
    expect(bannerField(s.stdout(), 'world')).toBeUndefined();
  });

  it('--scenario takes a built-in name: demo from any directory', async () => {
    const s = await serve(['--port', '0', '--scenario', 'demo', '--quiet']);
    expect(s.stdout()).toContain(`serving ${join(root, 'scenarios', 'demo.yaml')}`);
    expect(bannerField(s.stdout(), 'admin')).toBe('root, token glpat-fauxlab-demo-root');
  });
});

describe('fauxlab scenario export from a protected server', () => {
  it('without the token, or with a wrong one, the error names the admin token', async () => {
    const s = await serve(['--port', '0', '--quiet', '--admin-token', 'sesame']);
    const base = bannerField(s.stdout(), 'base URL')!;
    const none = await run(['scenario', 'export', '--url', base]);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      `fauxlab: ${base}/__fauxlab/scenario answered 401: the control plane needs --admin-token\n`,
    );
    const wrong = await run(['scenario', 'export', '--url', base, '--admin-token', 'open']);
    expect(wrong.stderr).toBe(
      `fauxlab: ${base}/__fauxlab/scenario answered 401: the control plane refused this --admin-token\n`,
    );
    const right = await run(['scenario', 'export', '--url', base, '--admin-token', 'sesame']);
    expect(right.code).toBe(0);
    expect(right.stdout).toContain('username: root');
  });
});
