/**
 * The real `go` command against fauxlab's Go proxy over HTTP (when Go is installed: Debian's golang-go):
 * `go list -m -versions` and `go mod download` of a module in a private project, with a personal access
 * token as Basic auth (added on the way in: Go sends credentials over HTTPS only), no checksum database and no other proxy (GOPROXY is fauxlab only, GOFLAGS=-mod=mod).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveNode } from '../../../src/host/node-server.js';
import { goFx } from './go-world.js';

const hasGo = (() => {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const MOD = '127.0.0.1/acme/gomod';
const fx = goFx('127.0.0.1');
const servers: Server[] = [];
/** The proxy URL per client: a developer's token, an outsider's, none. */
const proxies = { dev: '', outsider: '', none: '' };
let home = '';

function go(
  args: string[],
  dir = home,
  who: keyof typeof proxies = 'dev',
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      'go',
      args,
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          GOPATH: join(home, 'gopath'),
          GOCACHE: join(home, 'cache'),
          GOMODCACHE: join(home, 'modcache'),
          GOPROXY: proxies[who],
          GOFLAGS: '-mod=mod',
          GONOSUMDB: '*',
          GOSUMDB: 'off',
          GOPRIVATE: '',
          GOTOOLCHAIN: 'local',
          GO111MODULE: 'on',
        },
        timeout: 120_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: stdout, err: stderr }),
    );
  });
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'fauxlab-go-'));
  const res = await fx.app.request('/api/v4/projects/acme%2Fgomod', {
    headers: { 'PRIVATE-TOKEN': 'maint' },
  });
  const id = ((await res.json()) as { id: number }).id;
  for (const who of ['dev', 'outsider', 'none'] as const) {
    const fetch = (req: Request) => {
      if (who === 'none') return fx.fetch(req);
      const headers = new Headers(req.headers);
      headers.set('Authorization', `Basic ${Buffer.from(`any:${who}`).toString('base64')}`);
      return fx.fetch(new Request(req, { headers }));
    };
    const port = await new Promise<number>((resolve) => {
      servers.push(
        serveNode({ fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => resolve(info.port)),
      );
    });
    proxies[who] = `http://127.0.0.1:${port}/api/v4/projects/${id}/packages/go`;
  }
});

afterAll(() => {
  for (const s of servers) s.close();
  if (home) {
    // The module cache is written read-only, as Go keeps it.
    execFileSync('chmod', ['-R', 'u+w', home]);
    rmSync(home, { recursive: true, force: true });
  }
});

describe.skipIf(!hasGo)('go against the Go proxy', () => {
  it('lists the valid tagged versions and downloads a module version', async () => {
    const list = await go(['list', '-m', '-versions', MOD]);
    expect(list.err).toBe('');
    expect(list.out.trim()).toBe(`${MOD} v1.0.0 v1.1.0-rc.1`);

    const dl = await go(['mod', 'download', '-json', `${MOD}@v1.0.0`]);
    expect(dl.code).toBe(0);
    const info = JSON.parse(dl.out) as { Version: string; Dir: string; GoMod: string; Zip: string };
    expect(info.Version).toBe('v1.0.0');
    expect(readFileSync(join(info.Dir, 'main.go'), 'utf8')).toContain('"one"');
    expect(readFileSync(info.GoMod, 'utf8')).toBe(`module ${MOD}\n\ngo 1.16\n`);
    // The nested modules stay out of the zip.
    expect(() => readFileSync(join(info.Dir, 'sub', 'sub.go'))).toThrow();
  }, 120_000);

  it('builds a program that requires the module of a subdirectory', async () => {
    const app = mkdtempSync(join(home, 'app-'));
    writeFileSync(join(app, 'go.mod'), `module example.com/app\n\ngo 1.16\n\nrequire ${MOD}/lib v1.0.0\n`);
    writeFileSync(
      join(app, 'main.go'),
      `package main\n\nimport (\n\t"fmt"\n\n\t"${MOD}/lib"\n)\n\nfunc main() { fmt.Println(lib.Name) }\n`,
    );
    const run = await go(['run', '.'], app);
    expect(run.err).not.toMatch(/error|invalid/i);
    expect(run.out.trim()).toBe('lib');
  }, 120_000);

  it('a client without credentials is refused (401), an outsider finds no project (404)', async () => {
    const list = await go(['list', '-m', '-versions', MOD], home, 'none');
    expect(list.code).not.toBe(0);
    expect(list.err).toMatch(/401 Unauthorized/);
    const outsider = await go(['list', '-m', '-versions', MOD], home, 'outsider');
    expect(outsider.err).toMatch(/404 Not Found/);
  }, 120_000);
});
