/**
 * `git clone` over smart HTTP (`npm run bench` runs it after the repository phases;
 * `FAUXLAB_BENCH_ONLY=git` alone): a repository of 10,000 files and 1,000 commits, cloned by the `git`
 * binary from fauxlab and from a local bare copy of the same repository (`file://`, the floor), in
 * alternating runs after one warm-up each; the ratio is fauxlab's median over the floor's. The server
 * lives in its own child process, which samples its memory while the clones run.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFauxlab } from '../src/index.js';
import { fmt, forkSelf, gc, mb, row, stopChild } from './report.js';
import { listenFauxlab } from './target.js';

const SELF = fileURLToPath(import.meta.url);
const FILES = 10_000;
const COMMITS = 1_000;
const RUNS = 3;
const GIT = '/usr/bin/git';
const CLONE_TIMEOUT_MS = 180_000;
const WATCHDOG_MS = (RUNS * 2 + 3) * CLONE_TIMEOUT_MS;

interface Ready {
  port: number;
  buildMs: number;
  rssMB: number;
  heapMB: number;
}

interface Peak {
  rssMB: number;
  heapMB: number;
}

/** Child: the world served; on `peak`, answers the highest RSS and heap seen since the last ask. */
async function serveMode(): Promise<void> {
  setTimeout(() => process.exit(3), WATCHDOG_MS).unref();
  process.on('disconnect', () => process.exit(0));
  const t0 = performance.now();
  const fx = createFauxlab({
    scenario: {
      now: '2021-03-01T12:00:00.000Z',
      users: [{ username: 'root', name: 'Administrator', admin: true, tokens: [{ token: 'bench-token' }] }],
      projects: [{ path: 'root/app', visibility: 'public' }],
      generate: { repository_files_per_project: FILES, repository_commits_per_project: COMMITS },
    },
    journal: false,
  });
  const buildMs = performance.now() - t0;
  gc();
  const { server, port } = await listenFauxlab(fx.fetch);
  let peak = { rss: 0, heap: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak = { rss: Math.max(peak.rss, m.rss), heap: Math.max(peak.heap, m.heapUsed) };
  };
  setInterval(sample, 10).unref();
  const m = process.memoryUsage();
  process.send!({ port, buildMs, rssMB: mb(m.rss), heapMB: mb(m.heapUsed) } satisfies Ready);
  process.on('message', (msg) => {
    if (msg === 'peak') {
      sample();
      process.send!({ rssMB: mb(peak.rss), heapMB: mb(peak.heap) } satisfies Peak);
      peak = { rss: 0, heap: 0 };
    } else if (msg === 'stop') {
      server.closeAllConnections();
      server.close();
      process.exit(0);
    }
  });
}

function git(args: string[], cwd: string, home: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      GIT,
      args,
      {
        cwd,
        timeout: CLONE_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: home,
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_TERMINAL_PROMPT: '0',
        },
      },
      (err, _out, stderr) =>
        err ? reject(new Error(`git ${args[0]} failed: ${stderr}`)) : resolve(performance.now() - t0),
    );
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function askPeak(child: import('node:child_process').ChildProcess): Promise<Peak> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as Peak));
    child.send('peak');
  });
}

/** Runs the clone phases and prints their table and a JSON line. */
export async function runGit(): Promise<void> {
  if (!existsSync(GIT)) {
    console.log('\ngit clone bench: skipped (no /usr/bin/git)');
    return;
  }
  const watchdog = setTimeout(() => {
    console.error('bench git: watchdog fired, giving up');
    process.exit(2);
  }, WATCHDOG_MS);
  watchdog.unref();
  const dir = mkdtempSync(join(tmpdir(), 'fauxlab-bench-git-'));
  const { child, message: ready } = await forkSelf<Ready>(SELF, ['--serve']);
  try {
    const url = `http://127.0.0.1:${ready.port}/root/app.git`;
    await askPeak(child);
    // The first clone from fauxlab deflates every object once (kept for the next ones).
    const cold = await git(['clone', '-q', '--bare', url, 'cold.git'], dir, dir);
    const coldPeak = await askPeak(child);
    // The floor: a local bare copy, packed as git packs a repository of its own.
    await git(['clone', '-q', '--bare', '--no-local', join(dir, 'cold.git'), 'floor.git'], dir, dir);
    await git(['repack', '-q', '-a', '-d'], join(dir, 'floor.git'), dir);
    await git(['clone', '-q', `file://${join(dir, 'floor.git')}`, 'warm-floor'], dir, dir);
    const http: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      http.push(await git(['clone', '-q', url, `http-${i}`], dir, dir));
      floor.push(await git(['clone', '-q', `file://${join(dir, 'floor.git')}`, `floor-${i}`], dir, dir));
    }
    const warmPeak = await askPeak(child);
    const ratio = median(http) / median(floor);
    const out: string[] = [''];
    out.push(
      `git clone world: ${fmt(FILES)} files, ${fmt(COMMITS)} commits in one project, built in ${fmt(ready.buildMs)} ms; ` +
        `server RSS ${ready.rssMB} MB, heap ${ready.heapMB} MB before cloning`,
    );
    const w = [58, 12];
    out.push(row([`git clone (median of ${RUNS}, ms)`, 'ms'], w));
    out.push(row(['git clone http://127.0.0.1 (fauxlab), first (cold)', fmt(cold)], w));
    out.push(row(['git clone http://127.0.0.1 (fauxlab)', fmt(median(http))], w));
    out.push(row(['git clone file:// (local bare copy, the floor)', fmt(median(floor))], w));
    out.push(row(['  ratio fauxlab / floor (target <= 3)', fmt(ratio, 2)], w));
    out.push(row(['server peak RSS during the cold clone (MB)', coldPeak.rssMB], w));
    out.push(row(['server peak RSS during the warm clones (MB)', warmPeak.rssMB], w));
    console.log(out.join('\n'));
    console.log(
      JSON.stringify({
        bench: 'fauxlab-git',
        node: process.version,
        world: { files: FILES, commits: COMMITS, buildMs: Math.round(ready.buildMs), rssMB: ready.rssMB },
        cloneMs: { cold: Math.round(cold), fauxlab: http.map(Math.round), floor: floor.map(Math.round) },
        ratio,
        peakMB: { cold: coldPeak, warm: warmPeak },
      }),
    );
  } finally {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
  clearTimeout(watchdog);
}

// Run as a script (or as a forked child of one); imported by run.ts, do nothing on load.
if (process.argv[1] === SELF) {
  if (process.argv[2] === '--serve') await serveMode();
  else await runGit();
}
