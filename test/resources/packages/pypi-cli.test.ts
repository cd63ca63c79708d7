/**
 * Real Python clients against fauxlab's PyPI registry over HTTP: Debian's `twine upload` of a wheel (when
 * twine is installed: `apt-get install twine`), then `pip download` and `pip install` of it from the
 * project's simple index. Nothing reaches another index: pip's only index is fauxlab, its config file
 * is /dev/null and HOME a temporary directory.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveNode } from '../../../src/host/node-server.js';
import { packagesFx } from './world.js';

const has = (cmd: string, args: string[]) => {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const hasPip = has('python3', ['-m', 'pip', '--version']);
const hasTwine = has('twine', ['--version']);

const fx = packagesFx();
let server: Server;
let base = '';
let home = '';
let projectId = 0;

function run(cmd: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      {
        cwd: home,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          PIP_CONFIG_FILE: '/dev/null',
          PIP_NO_CACHE_DIR: '1',
          PIP_DISABLE_PIP_VERSION_CHECK: '1',
          PYTHONDONTWRITEBYTECODE: '1',
        },
        timeout: 120_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: stdout, err: stderr }),
    );
  });
}

/** A pure-Python wheel of `fauxpkg 0.1.0`, made by hand (zip with METADATA, WHEEL and RECORD). */
function makeWheel(dir: string): string {
  const script = `
import base64, hashlib, sys, zipfile
name, ver = 'fauxpkg', '0.1.0'
info = f'{name}-{ver}.dist-info'
files = {
  f'{name}/__init__.py': b'VALUE = 42\\n',
  f'{info}/METADATA': b'Metadata-Version: 2.1\\nName: fauxpkg\\nVersion: 0.1.0\\nRequires-Python: >=3.7\\n',
  f'{info}/WHEEL': b'Wheel-Version: 1.0\\nGenerator: fauxlab-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n',
}
def h(b):
  return 'sha256=' + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b'=').decode()
record = ''.join(f'{p},{h(b)},{len(b)}\\n' for p, b in files.items()) + f'{info}/RECORD,,\\n'
out = sys.argv[1] + '/fauxpkg-0.1.0-py3-none-any.whl'
with zipfile.ZipFile(out, 'w') as z:
  for p, b in files.items():
    z.writestr(p, b)
  z.writestr(f'{info}/RECORD', record)
print(out)
`;
  return execFileSync('python3', ['-c', script, dir], { encoding: 'utf8' }).trim();
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'fauxlab-pypi-'));
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

describe.skipIf(!hasPip)('Python clients against the PyPI registry', () => {
  it('twine uploads a wheel; pip downloads and installs it from the simple index', async () => {
    const wheel = makeWheel(home);
    const repo = `${base}/api/v4/projects/${projectId}/packages/pypi`;
    if (hasTwine) {
      const up = await run('twine', [
        'upload',
        '--non-interactive',
        '--repository-url',
        repo,
        '-u',
        '__token__',
        '-p',
        'dev',
        wheel,
      ]);
      expect(up.err + up.out).not.toMatch(/HTTPError|ERROR/);
      expect(up.code).toBe(0);
    } else {
      // As twine sends it, when twine is not installed here.
      const bytes = readFileSync(wheel);
      const form = new FormData();
      form.set(':action', 'file_upload');
      form.set('name', 'fauxpkg');
      form.set('version', '0.1.0');
      form.set('requires_python', '>=3.7');
      form.set('sha256_digest', createHash('sha256').update(bytes).digest('hex'));
      form.set('content', new Blob([new Uint8Array(bytes)]), 'fauxpkg-0.1.0-py3-none-any.whl');
      const res = await fetch(repo, {
        method: 'POST',
        headers: { Authorization: `Basic ${Buffer.from('__token__:dev').toString('base64')}` },
        body: form,
      });
      expect(res.status).toBe(201);
    }
    const list = await fx.app.request(`/api/v4/projects/${projectId}/packages?package_type=pypi`, {
      headers: { 'PRIVATE-TOKEN': 'rep' },
    });
    expect(
      ((await list.json()) as { name: string; version: string }[]).map((p) => [p.name, p.version]),
    ).toEqual([['fauxpkg', '0.1.0']]);

    const index = `http://__token__:rep@${base.slice('http://'.length)}/api/v4/projects/${projectId}/packages/pypi/simple`;
    const dl = join(home, 'dl');
    const got = await run('python3', [
      '-m',
      'pip',
      'download',
      '--no-deps',
      '--index-url',
      index,
      '-d',
      dl,
      'fauxpkg==0.1.0',
    ]);
    expect(got.err).not.toMatch(/ERROR/);
    expect(got.code).toBe(0);
    expect(readdirSync(dl)).toEqual(['fauxpkg-0.1.0-py3-none-any.whl']);
    expect(readFileSync(join(dl, 'fauxpkg-0.1.0-py3-none-any.whl')).equals(readFileSync(wheel))).toBe(true);

    const target = join(home, 'site');
    const inst = await run('python3', [
      '-m',
      'pip',
      'install',
      '--no-deps',
      '--index-url',
      index,
      '--target',
      target,
      'FauxPkg',
    ]);
    expect(inst.err).not.toMatch(/ERROR/);
    expect(inst.code).toBe(0);
    writeFileSync(
      join(home, 'check.py'),
      `import sys; sys.path.insert(0, ${JSON.stringify(target)}); import fauxpkg; print(fauxpkg.VALUE)`,
    );
    expect((await run('python3', [join(home, 'check.py')])).out.trim()).toBe('42');
  }, 240_000);
});
