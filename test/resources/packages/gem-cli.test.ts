/**
 * The real `gem` command against fauxlab's RubyGems registry over HTTP (when Ruby is installed: Debian's
 * ruby): `gem build` of a small gem, `gem push --host` with a personal access token as the API key, and
 * `gem fetch` is not tried: 13.12 serves no index (specs.4.8.gz answers 404), so a client reads the
 * dependency API and downloads the .gem by name, which is checked here with Ruby's Marshal.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveNode } from '../../../src/host/node-server.js';
import { gemFx } from './gem-world.js';

const hasGem = (() => {
  try {
    execFileSync('gem', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const fx = gemFx();
let server: Server;
let host = '';
let home = '';

function run(cmd: string, args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; out: string; err: string }>((resolve) => {
    execFile(
      cmd,
      args,
      {
        cwd: home,
        env: { PATH: process.env.PATH, HOME: home, GEM_HOME: join(home, 'gems'), ...env },
        timeout: 120_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: stdout, err: stderr }),
    );
  });
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'fauxlab-gem-'));
  const port = await new Promise<number>((resolve) => {
    server = serveNode({ fetch: fx.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
      resolve(info.port),
    );
  });
  const res = await fx.app.request('/api/v4/projects/acme%2Fpkgs', { headers: { 'PRIVATE-TOKEN': 'maint' } });
  const id = ((await res.json()) as { id: number }).id;
  host = `http://127.0.0.1:${port}/api/v4/projects/${id}/packages/rubygems`;
});

afterAll(() => {
  server?.close();
  rmSync(home, { recursive: true, force: true });
});

describe.skipIf(!hasGem)('gem against the RubyGems registry', () => {
  it('gem push uploads a built gem; its dependencies and file are served back', async () => {
    mkdirSync(join(home, 'lib'));
    writeFileSync(join(home, 'lib', 'fauxgem.rb'), 'module Fauxgem; VALUE = 42; end\n');
    writeFileSync(
      join(home, 'fauxgem.gemspec'),
      `Gem::Specification.new do |s|
  s.name = 'fauxgem'
  s.version = '0.1.0'
  s.summary = 'A test gem'
  s.authors = ['Tester']
  s.files = ['lib/fauxgem.rb']
  s.license = 'MIT'
  s.add_dependency 'rake', '>= 12.0'
end
`,
    );
    const built = await run('gem', ['build', 'fauxgem.gemspec']);
    expect(built.code).toBe(0);
    const pushed = await run('gem', ['push', 'fauxgem-0.1.0.gem', '--host', host], {
      GEM_HOST_API_KEY: 'dev',
    });
    expect(pushed.err + pushed.out).not.toMatch(/error|denied/i);
    expect(pushed.code).toBe(0);

    const deps = await fetch(`${host}/api/v1/dependencies?gems=fauxgem`, {
      headers: { Authorization: 'dev' },
    });
    writeFileSync(join(home, 'deps.bin'), Buffer.from(await deps.arrayBuffer()));
    const read = await run('ruby', ['-e', 'p Marshal.load(File.binread("deps.bin"))']);
    expect(read.out.trim()).toBe(
      '[{:name=>"fauxgem", :number=>"0.1.0", :platform=>"ruby", :dependencies=>[["rake", ">= 12.0"]]}]',
    );
    const file = await fetch(`${host}/gems/fauxgem-0.1.0.gem`, { headers: { Authorization: 'dev' } });
    expect(Buffer.from(await file.arrayBuffer()).equals(readFileSync(join(home, 'fauxgem-0.1.0.gem')))).toBe(
      true,
    );
  }, 120_000);

  it('gem push with a token of no access is refused', async () => {
    const pushed = await run('gem', ['push', 'fauxgem-0.1.0.gem', '--host', host], {
      GEM_HOST_API_KEY: 'rep',
    });
    expect(pushed.out + pushed.err).toMatch(/403 Forbidden/);
  }, 120_000);
});
