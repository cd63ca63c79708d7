/**
 * The real npm CLI (npm 11) against fauxlab's npm registry over HTTP: `npm publish` to a project's
 * registry, `npm view` and `npm install` through the instance-level registry (the scope names the
 * namespace), `npm dist-tag add/ls/rm`. Nothing reaches another registry: the default registry, the
 * scope's and the tokens all name the local server, in a temporary HOME with its own `.npmrc` and cache.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveNode } from '../../../src/host/node-server.js';
import { packagesFx } from './world.js';

const fx = packagesFx();
let server: Server;
let base = '';
let home = '';
let projectId = 0;

/** npm, run asynchronously (the server answers in this process), with only the temporary config. */
function npm(
  args: string[],
  cwd: string,
  userconfig: string,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      [...args, '--no-audit', '--no-fund', '--prefer-online', '--loglevel=warn'],
      {
        cwd,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          npm_config_userconfig: userconfig,
          npm_config_globalconfig: join(home, 'global-npmrc'),
          npm_config_cache: join(home, 'cache'),
          npm_config_registry: `${base}/api/v4/packages/npm/`,
          npm_config_update_notifier: 'false',
        },
        timeout: 120_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: stdout, err: stderr }),
    );
  });
}

function npmrc(name: string, token: string): string {
  const host = base.replace(/^http:/, '');
  const file = join(home, name);
  writeFileSync(
    file,
    [
      `@acme:registry=${base}/api/v4/projects/${projectId}/packages/npm/`,
      `${host}/api/v4/projects/${projectId}/packages/npm/:_authToken=${token}`,
      `${host}/api/v4/packages/npm/:_authToken=${token}`,
      '',
    ].join('\n'),
  );
  return file;
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'fauxlab-npm-'));
  writeFileSync(join(home, 'global-npmrc'), '');
  base = await new Promise<string>((resolve) => {
    server = serveNode({ fetch: fx.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
      resolve(`http://127.0.0.1:${info.port}`),
    );
  });
  const res = await fx.app.request('/api/v4/projects/acme%2Fpkgs', { headers: { 'PRIVATE-TOKEN': 'maint' } });
  projectId = ((await res.json()) as { id: number }).id;
});

afterAll(() => {
  server?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('npm CLI against the npm registry', () => {
  it('publishes, views, installs through the instance registry, and manages dist-tags', async () => {
    const rc = npmrc('maint-npmrc', 'maint');
    const pkgDir = join(home, 'clitool');
    mkdirSync(pkgDir);
    writeFileSync(
      join(pkgDir, 'package.json'),
      JSON.stringify({ name: '@acme/clitool', version: '1.2.3', main: 'index.js', license: 'MIT' }),
    );
    writeFileSync(join(pkgDir, 'index.js'), "module.exports = 'hello from clitool';\n");
    const published = await npm(['publish'], pkgDir, rc);
    expect(published.err).not.toMatch(/ERR!/);
    expect(published.code).toBe(0);

    // The registry's package list has it, with its tarball and the `latest` tag.
    const list = await fx.app.request(`/api/v4/projects/${projectId}/packages?package_type=npm`, {
      headers: { 'PRIVATE-TOKEN': 'maint' },
    });
    const pkgs = (await list.json()) as { name: string; version: string; tags: { name: string }[] }[];
    expect(pkgs.map((p) => [p.name, p.version, p.tags.map((t) => t.name)])).toEqual([
      ['@acme/clitool', '1.2.3', ['latest']],
    ]);

    // `npm view` at the instance level: the scope `acme` is the namespace holding the project.
    const consumer = join(home, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0' }));
    const instanceRc = join(home, 'instance-npmrc');
    writeFileSync(
      instanceRc,
      readFileSync(rc, 'utf8').replace(/^@acme:registry=.*$/m, `@acme:registry=${base}/api/v4/packages/npm/`),
    );
    const view = await npm(['view', '@acme/clitool', '--json'], consumer, instanceRc);
    expect(view.code).toBe(0);
    const viewed = JSON.parse(view.out) as { name: string; version: string; dist: { tarball: string } };
    expect(viewed.name).toBe('@acme/clitool');
    expect(viewed.version).toBe('1.2.3');
    expect(viewed.dist.tarball).toBe(
      `${base}/api/v4/projects/${projectId}/packages/npm/@acme/clitool/-/@acme/clitool-1.2.3.tgz`,
    );

    const installed = await npm(['install', '@acme/clitool'], consumer, instanceRc);
    expect(installed.err).not.toMatch(/ERR!/);
    expect(installed.code).toBe(0);
    expect(readFileSync(join(consumer, 'node_modules/@acme/clitool/index.js'), 'utf8')).toContain(
      'hello from clitool',
    );
    const lock = JSON.parse(readFileSync(join(consumer, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved: string }>;
    };
    expect(lock.packages['node_modules/@acme/clitool']!.resolved).toMatch(
      new RegExp(`^${base}/api/v4/projects/${projectId}/packages/npm/`),
    );

    // dist-tags through the project's registry.
    expect((await npm(['dist-tag', 'add', '@acme/clitool@1.2.3', 'stable'], consumer, rc)).code).toBe(0);
    const ls = await npm(['dist-tag', 'ls', '@acme/clitool'], consumer, rc);
    expect(ls.code).toBe(0);
    expect(ls.out.trim().split('\n').sort()).toEqual(['latest: 1.2.3', 'stable: 1.2.3']);
    expect((await npm(['dist-tag', 'rm', '@acme/clitool', 'stable'], consumer, rc)).code).toBe(0);
    const after = await npm(['dist-tag', 'ls', '@acme/clitool'], consumer, rc);
    expect(after.out.trim()).toBe('latest: 1.2.3');

    // Publishing the same version again: the registry refuses it (403), and npm says so.
    const again = await npm(['publish'], pkgDir, rc);
    expect(again.code).not.toBe(0);
    expect(again.err).toMatch(/cannot publish over the previously published versions: 1\.2\.3/);
  }, 240_000);
});
