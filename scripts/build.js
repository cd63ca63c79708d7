#!/usr/bin/env node
/**
 * `npm run build`: the library with its types (tsc: dist/src, dist/bench, dist/bin/coverage-list.js),
 * then the `fauxlab` command (esbuild), which starts in a fraction of the time of the compiled modules:
 *
 * - dist/bin/fauxlab.bundle.cjs: bin/fauxlab.ts and all it imports as one script (a function of the
 *   CommonJS arguments and `import.meta.url`); packages that load on first use (faker, the Markdown
 *   libraries, yaml, tar-stream, gemoji) stay outside it, in node_modules;
 * - dist/bin/fauxlab.js: bin/launch.ts, which runs that script with a V8 code cache;
 * - dist/bin/worker.js: the Markdown render worker (found next to the command, as unbundled next to
 *   its pool);
 * - dist/bin/fauxlab.bundle.cache: the code cache, written by one warm-up run of the built command.
 *
 * `--bin-only` builds the command alone, `--out-dir DIR` into DIR instead of dist/. Like tsc, it writes
 * its output even when type errors are reported, and then exits non-zero. Plain JavaScript: it runs
 * before anything is compiled.
 */
import { spawn, spawnSync } from 'node:child_process';
import { isAscii } from 'node:buffer';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const binOnly = args.includes('--bin-only');
const outAt = args.indexOf('--out-dir');
const out = outAt >= 0 && args[outAt + 1] ? resolve(args[outAt + 1]) : join(root, 'dist');
const binDir = join(out, 'bin');

/** Loaded on first use (or never) by the command: bundling them would compile them at every start. */
const LAZY_PACKAGES = [
  '@faker-js/faker',
  'gemoji',
  'tar-stream',
  'yaml',
  'mdast-util-*',
  'hast-util-*',
  'micromark-*',
  'msw',
];

/**
 * string-width (yargs' help layout, three copies) makes an `Intl.Segmenter` when loaded: ICU's
 * segmentation data, read from the Node binary, a tenth of a second on a cold disk. Each import of it
 * becomes a stub that loads the copy it names on the first measurement (only help and usage text).
 */
const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, async (args) => {
      if (args.pluginData?.real) return undefined;
      const real = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: { real: true },
      });
      if (real.errors.length) return { errors: real.errors };
      // Relative: the bundle names the module without the build's directory.
      return { path: relative(root, real.path), namespace: 'lazy-string-width' };
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy-string-width' }, (args) => ({
      contents:
        'let real;\n' +
        'export default function stringWidth(text, options) {\n' +
        `  real ??= require(${JSON.stringify(join(root, args.path))});\n` +
        '  return real.default(text, options);\n' +
        '}\n',
      loader: 'js',
      resolveDir: dirname(join(root, args.path)),
    }));
  },
};

let status = 0;
if (!binOnly) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const tscArgs = [tsc, '-p', join(root, 'tsconfig.build.json'), ...(outAt >= 0 ? ['--outDir', out] : [])];
  status = spawnSync(process.execPath, tscArgs, { stdio: 'inherit' }).status ?? 1;
}

const esbuild = await import('esbuild');

/**
 * Builds one output file and puts it in place by a rename: a command started meanwhile (another test
 * suite building too) runs the old file or the new one, never a half-written one.
 */
async function buildFile(options, mode = 0o644) {
  const { outputFiles } = await esbuild.build({ ...options, write: false });
  for (const f of outputFiles) {
    mkdirSync(dirname(f.path), { recursive: true });
    const tmp = `${f.path}.${process.pid}.tmp`;
    writeFileSync(tmp, f.contents, { mode });
    renameSync(tmp, f.path);
  }
}

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  legalComments: 'eof',
};
// Old output first: a failed build must not leave a cache that belongs to another script.
rmSync(join(binDir, 'fauxlab.bundle.cache'), { force: true });
await buildFile({
  ...common,
  entryPoints: [join(root, 'bin', 'fauxlab.ts')],
  outfile: join(binDir, 'fauxlab.bundle.cjs'),
  format: 'cjs',
  // Without comments the script is ASCII (esbuild escapes the rest), which the launcher reads as Latin-1,
  // several times faster than UTF-8; names stay as written, for readable stack traces.
  minifyWhitespace: true,
  // A script's `import()` needs a loader callback that does not survive the code cache: packages left
  // outside are required instead (Node >= 20.19 requires ES modules too).
  supported: { 'dynamic-import': false },
  external: LAZY_PACKAGES,
  plugins: [lazyStringWidth],
  define: { 'import.meta.url': '__fauxlabImportMetaUrl' },
  banner: { js: '(function (exports, require, module, __filename, __dirname, __fauxlabImportMetaUrl) {' },
  footer: { js: '})' },
});
await buildFile({
  ...common,
  entryPoints: [join(root, 'src', 'resources', 'markdown', 'worker.ts')],
  outfile: join(binDir, 'worker.js'),
  format: 'esm',
  packages: 'external',
});
await buildFile(
  {
    ...common,
    entryPoints: [join(root, 'bin', 'launch.ts')],
    outfile: join(binDir, 'fauxlab.js'),
    format: 'esm',
    packages: 'external',
  },
  0o755,
);

const text = readFileSync(join(binDir, 'fauxlab.bundle.cjs'));
if (!isAscii(text))
  console.warn(
    'build: dist/bin/fauxlab.bundle.cjs is not ASCII (a tagged template with a non-ASCII character?): ' +
      'the command reads it as UTF-8, more slowly',
  );

await warmUp();
process.exit(status);

/**
 * Runs the built command once as a server (the demo world, a few requests) and lets it write its code
 * cache on exit: what V8 compiled for start-up and the first requests is then ready for every start.
 * A failure here costs only the cache: the command compiles without one.
 */
async function warmUp() {
  // A token of the environment would lock the control plane the warm-up calls.
  const env = { ...process.env, FAUXLAB_CODE_CACHE_WARMUP: '1' };
  delete env.FAUXLAB_ADMIN_TOKEN;
  const child = spawn(
    process.execPath,
    [
      join(binDir, 'fauxlab.js'),
      'serve',
      '--quiet',
      '--port',
      '0',
      '--scenario',
      join(root, 'scenarios', 'demo.yaml'),
    ],
    {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const closed = new Promise((done) => child.on('close', done));
  const base = await new Promise((done) => {
    const timer = setTimeout(() => done(undefined), 60_000);
    child.stderr.on('data', (d) => (output += d));
    child.stdout.on('data', (d) => {
      output += d;
      const m = /base URL:\s+(\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        done(m[1]);
      }
    });
    child.on('close', () => done(undefined));
  });
  try {
    if (!base) throw new Error(`the command did not start:\n${output}`);
    const token = /token (\S+)/.exec(output)?.[1];
    const headers = token ? { 'PRIVATE-TOKEN': token } : {};
    for (const path of [
      '/__fauxlab/clock',
      '/api/v4/version',
      '/api/v4/user',
      '/api/v4/projects',
      '/api/v4/projects/1',
      '/api/v4/users?per_page=5',
      '/api/v4/groups',
      '/api/v4/projects/1/issues',
      '/api/v4/projects/1/merge_requests',
      '/api/v4/projects/1/repository/branches',
    ])
      await (await fetch(base + path, { headers })).arrayBuffer();
  } catch (e) {
    console.warn(`build: no code cache for the command (${e.message})`);
  } finally {
    child.kill('SIGTERM');
    await closed;
  }
  if (!existsSync(join(binDir, 'fauxlab.bundle.cache')))
    console.warn('build: the warm-up run wrote no code cache; the command starts without one');
}
