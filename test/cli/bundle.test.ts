/**
 * The command as `npm run build` makes it (scripts/build.js): a launcher, one bundled script, the
 * Markdown worker and a V8 code cache, built into a directory laid out like an installed package. The
 * cache is an optimisation only: a corrupt, foreign or unwritable one must change nothing a user sees.
 */
import { isAscii } from 'node:buffer';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = mkdtempSync(join(tmpdir(), 'fauxlab-bundle-'));
const binDir = join(pkg, 'dist', 'bin');
const bin = join(binDir, 'fauxlab.js');
const bundle = join(binDir, 'fauxlab.bundle.cjs');
const cache = join(binDir, 'fauxlab.bundle.cache');
/** The launcher writes a missing or unusable cache this long after start (bin/launch.ts). */
const WRITE_AFTER_MS = 2000;
const MAGIC = 0x31435846;
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

let builtCache: Buffer;

beforeAll(() => {
  writeFileSync(join(pkg, 'package.json'), readFileSync(join(root, 'package.json')));
  for (const d of ['scenarios', 'fixtures', 'node_modules']) symlinkSync(join(root, d), join(pkg, d));
  const r = spawnSync(
    process.execPath,
    [join(root, 'scripts', 'build.js'), '--bin-only', '--out-dir', join(pkg, 'dist')],
    { cwd: root, encoding: 'utf8', timeout: 120_000 },
  );
  expect(r.status, r.stderr).toBe(0);
  builtCache = readFileSync(cache);
}, 130_000);

afterAll(() => rmSync(pkg, { recursive: true, force: true }));

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
});

/** Starts the built command, resolving with its banner and base URL once it serves. */
function serve(
  args: string[] = [],
): Promise<{ child: ChildProcess; out: string; base: string; err: () => string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, '--port', '0', ...args], {
      cwd: pkg,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let out = '';
    let err = '';
    const timer = setTimeout(() => fail(new Error(`no banner in 15 s\n${out}\n${err}`)), 15_000);
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const base = /base URL:\s+(\S+)/.exec(out)?.[1];
      if (base && /try: .*\n/.test(out)) {
        clearTimeout(timer);
        done({ child, out, base, err: () => err });
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      fail(new Error(`exited (${code}) before serving\n${out}\n${err}`));
    });
  });
}

const stop = (child: ChildProcess) =>
  new Promise<number | null>((done) => {
    child.on('close', done);
    child.kill('SIGTERM');
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether `data` is a cache the launcher would hand to V8 for the current bundle. */
function validCache(data: Buffer): boolean {
  return (
    data.length > 16 &&
    data.readUInt32LE(0) === MAGIC &&
    data.readUInt32LE(4) === crc32(readFileSync(bundle)) &&
    data.readUInt32LE(8) === data.length - 16 &&
    data.readUInt32LE(12) === crc32(data.subarray(16))
  );
}

/** Waits (bounded) until the cache file is a valid one other than `old`. */
async function rewritten(old: Buffer): Promise<Buffer | undefined> {
  for (let i = 0; i < 100; i++) {
    await sleep(100);
    let now: Buffer;
    try {
      now = readFileSync(cache);
    } catch {
      continue;
    }
    if (!now.equals(old) && validCache(now)) return now;
  }
  return undefined;
}

/** Serves the demo world and checks an authenticated API answer and a Markdown render (the worker). */
async function servesDemo(): Promise<ChildProcess> {
  const s = await serve();
  expect(s.out).toContain('admin:     root, token glpat-fauxlab-demo-root');
  const headers = { 'PRIVATE-TOKEN': 'glpat-fauxlab-demo-root' };
  const user = await fetch(`${s.base}/api/v4/user`, { headers });
  expect(user.status).toBe(200);
  expect(((await user.json()) as { username: string }).username).toBe('root');
  const md = await fetch(`${s.base}/api/v4/markdown`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ text: '**bold**' }),
  });
  expect(md.status).toBe(201);
  expect(((await md.json()) as { html: string }).html).toContain('<strong>bold</strong>');
  expect(s.err()).toBe('');
  return s.child;
}

describe('the built command', () => {
  it('build: a launcher, one ASCII bundled script with a valid code cache, and the Markdown worker', () => {
    for (const f of [bin, bundle, join(binDir, 'worker.js')]) expect(existsSync(f)).toBe(true);
    expect(statSync(bin).mode & 0o111).not.toBe(0);
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(validCache(builtCache)).toBe(true);
    // ASCII: the launcher's fast way to read it.
    expect(isAscii(readFileSync(bundle))).toBe(true);
  });

  it('build: the bundle calls no import() and requires only builtins and declared dependencies', () => {
    const text = readFileSync(bundle, 'utf8');
    expect(text).not.toMatch(/[^\w.$]import\(\s*["'`]/);
    const deps = new Set(
      Object.keys(
        (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: object })
          .dependencies,
      ),
    );
    const required = new Set(
      [...text.matchAll(/\brequire\("([^"]+)"\)/g)]
        .map((m) => m[1]!)
        .filter((s) => !s.startsWith('node:') && !builtinModules.includes(s.split('/')[0]!))
        .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!)),
    );
    for (const name of required) expect(deps.has(name), name).toBe(true);
  });

  it('--version prints the package version from the bundled command', () => {
    const r = spawnSync(process.execPath, [bin, '--version'], {
      cwd: pkg,
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(r.stdout).toBe(`${version}\n`);
    expect(r.status).toBe(0);
  });

  it('serve: the demo world by default, base URL and admin token printed; a valid cache is kept as it is', async () => {
    writeFileSync(cache, builtCache);
    const child = await servesDemo();
    // Past the time a missing or unusable cache would be written.
    await sleep(WRITE_AFTER_MS + 500);
    expect(readFileSync(cache).equals(builtCache)).toBe(true);
    expect(await stop(child)).toBe(0);
  });

  it('serve: a corrupt, truncated or foreign code cache is not used, and a server writes a valid one', async () => {
    const foreign = Buffer.from(builtCache);
    foreign.writeUInt32LE((foreign.readUInt32LE(4) + 1) >>> 0, 4);
    const corrupt = Buffer.from(builtCache);
    const mid = corrupt.length >> 1;
    corrupt.writeUInt8(corrupt.readUInt8(mid) ^ 0xff, mid);
    for (const bad of [corrupt, builtCache.subarray(0, 100), foreign, Buffer.from('not a cache')]) {
      writeFileSync(cache, bad);
      const child = await servesDemo();
      expect(await rewritten(bad)).toBeDefined();
      expect(await stop(child)).toBe(0);
    }
  }, 90_000);

  it('serve: a cache that can be neither read nor written (a directory in its place) changes nothing', async () => {
    rmSync(cache, { force: true });
    mkdirSync(cache);
    try {
      const child = await servesDemo();
      await sleep(WRITE_AFTER_MS + 500);
      expect(statSync(cache).isDirectory()).toBe(true);
      expect(await stop(child)).toBe(0);
    } finally {
      rmSync(cache, { recursive: true, force: true });
      writeFileSync(cache, builtCache);
    }
  }, 30_000);

  it('serve: a missing cache is written by the server, and a copied package keeps working', async () => {
    rmSync(cache, { force: true });
    const child = await servesDemo();
    expect(await rewritten(Buffer.alloc(0))).toBeDefined();
    expect(await stop(child)).toBe(0);
    // The tree moved elsewhere (a Docker COPY): the cache names no path.
    const moved = mkdtempSync(join(tmpdir(), 'fauxlab-bundle-moved-'));
    try {
      cpSync(join(pkg, 'dist'), join(moved, 'dist'), { recursive: true });
      writeFileSync(join(moved, 'package.json'), readFileSync(join(pkg, 'package.json')));
      for (const d of ['scenarios', 'fixtures', 'node_modules']) symlinkSync(join(root, d), join(moved, d));
      const r = spawnSync(
        process.execPath,
        [join(moved, 'dist', 'bin', 'fauxlab.js'), 'scenario', 'validate', 'demo'],
        {
          cwd: moved,
          encoding: 'utf8',
          timeout: 15_000,
        },
      );
      expect(r.stdout).toBe('demo: ok (6 users, 3 groups, 7 projects)\n');
      expect(r.stderr).toBe('');
    } finally {
      rmSync(moved, { recursive: true, force: true });
    }
  }, 30_000);
});
