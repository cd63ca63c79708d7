/**
 * The package as another project gets it: `npm pack`, the tarball unpacked into a temporary project's
 * node_modules (its dependencies are this checkout's, linked: no network), then every README (and
 * docs/testing.md) code block
 * marked `<!-- example: NAME.test.ts -->` written there and run with vitest, and every one marked
 * `<!-- example: NAME.yaml -->` validated by the installed CLI. The README cannot drift
 * from what the package ships.
 */
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'fauxlab-consumer-'));
const project = join(work, 'project');
const installed = join(project, 'node_modules', 'fauxlab');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

/** The README's example blocks: `<!-- example: NAME -->`, then a fenced block. */
function readmeExamples(readme: string): { name: string; code: string }[] {
  return [...readme.matchAll(/<!-- example: ([\w.-]+) -->\s*```\w*\n([\s\S]*?)```/g)].map((m) => ({
    name: m[1]!,
    code: m[2]!,
  }));
}
/** Where marked examples live: the README, and the docs that show test code. */
const EXAMPLE_FILES = ['README.md', 'docs/testing.md'];
const examples = EXAMPLE_FILES.flatMap((f) => readmeExamples(readFileSync(join(root, f), 'utf8')));
const tests = examples.filter((e) => e.name.endsWith('.test.ts'));

function sh(cmd: string, args: string[], cwd: string, timeout = 120_000) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Every file under `dir`, relative to it. */
function files(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name), base) : [relative(base, join(dir, e.name))],
  );
}

beforeAll(() => {
  // The tarball packs dist/ as it is: bring it up to date first, as `npm start` does.
  sh(process.execPath, [join(root, 'scripts', 'build-if-stale.js')], root, 180_000);
  const out = sh('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], root);
  const tarball = join(work, out.trim().split('\n').pop()!);
  mkdirSync(installed, { recursive: true });
  sh('tar', ['xzf', tarball, '-C', installed, '--strip-components=1'], work);
  // What npm would install next to it, taken from this checkout instead of the registry.
  for (const name of readdirSync(join(root, 'node_modules')))
    if (name !== 'fauxlab' && !name.startsWith('.'))
      symlinkSync(join(root, 'node_modules', name), join(project, 'node_modules', name));
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'consumer',
      private: true,
      type: 'module',
      devDependencies: { fauxlab: pkg.version },
    }),
  );
}, 240_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed package', () => {
  it('package: ships the built code, the scenarios and a LICENSE, without benchmarks or source maps', () => {
    const shipped = files(installed);
    expect(shipped).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'package.json',
        'dist/src/index.js',
        'dist/src/index.d.ts',
        'dist/bin/fauxlab.js',
        'scenarios/demo.yaml',
        'scenarios/schema.json',
      ]),
    );
    expect(shipped.filter((f) => f.startsWith('dist/bench/') || f.endsWith('.map'))).toEqual([]);
    expect(shipped.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toContain('fauxlab contributors');
    expect(pkg.license).toBe('MIT');
  });

  it('package: every package the built code imports is a dependency or a peer dependency', () => {
    const declared = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)]);
    const builtins = new Set(builtinModules);
    const missing = new Set<string>();
    for (const f of files(join(installed, 'dist')).filter((f) => f.endsWith('.js'))) {
      // Comments hold usage examples, which import the consumer's own packages.
      const text = readFileSync(join(installed, 'dist', f), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      for (const m of text.matchAll(/(?:from\s+|import\(\s*|require\(\s*)'([^'.][^']*)'/g)) {
        const spec = m[1]!;
        if (spec.startsWith('node:') || builtins.has(spec.split('/')[0]!)) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (!declared.has(name)) missing.add(`${f}: ${name}`);
      }
    }
    expect([...missing]).toEqual([]);
  });

  it('package: the CLI runs from the installed package, with the demo world built in', () => {
    const out = sh(
      process.execPath,
      [join(installed, 'dist', 'bin', 'fauxlab.js'), 'scenario', 'validate', 'demo'],
      project,
    );
    expect(out).toBe('demo: ok (6 users, 3 groups, 7 projects)\n');
  });
});

describe('README examples', () => {
  it('README: has marked examples, each a complete test file or a scenario file', () => {
    expect(tests.length).toBeGreaterThanOrEqual(4);
    for (const e of tests) expect(e.code).toMatch(/from 'vitest'/);
    expect(examples.every((e) => e.name.endsWith('.test.ts') || e.name.endsWith('.yaml'))).toBe(true);
  });

  it('README: every marked scenario validates with the installed CLI', () => {
    const scenarios = examples.filter((e) => e.name.endsWith('.yaml'));
    expect(scenarios.length).toBeGreaterThanOrEqual(1);
    for (const e of scenarios) {
      writeFileSync(join(project, e.name), e.code);
      const out = sh(
        process.execPath,
        [join(installed, 'dist', 'bin', 'fauxlab.js'), 'scenario', 'validate', e.name],
        project,
      );
      expect(out).toMatch(new RegExp(`^${e.name}: ok `));
    }
  });

  it('README: every marked example passes in a project that installed the package', () => {
    for (const e of tests) writeFileSync(join(project, e.name), e.code);
    const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const r = spawnSync(process.execPath, [vitest, 'run', '--root', project, '--reporter', 'dot'], {
      cwd: project,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, CI: '1', NO_COLOR: '1' },
    });
    expect(r.stderr + r.stdout).toMatch(new RegExp(`Test Files\\s+${tests.length} passed`));
    expect(r.status).toBe(0);
  }, 150_000);
});
