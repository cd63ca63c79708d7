/**
 * Time budgets: how long start-up, world builds, snapshots and the large-world lists take, each next to
 * its target. These are figures to read, not pass/fail checks: on a busy machine any of them may run
 * over, which is why no test asserts a duration. `npm run bench` prints them last;
 * `FAUXLAB_BENCH_ONLY=budgets` prints only them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFauxlab, type Fauxlab } from '../src/index.js';
import { buildWorld, loadScenario } from '../src/scenario/index.js';
import { fmt, freePort, row } from './report.js';

const BIN = fileURLToPath(new URL('../bin/fauxlab.js', import.meta.url));
const NOW = new Date('2021-03-01T12:00:00Z');

interface Budget {
  name: string;
  ms: number;
  target: number;
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;

function timed(run: () => unknown): number {
  const t0 = performance.now();
  run();
  return performance.now() - t0;
}

/** Spawn to first 200 on an empty scenario (best of three), and SIGINT to exit with a keep-alive open. */
async function startAndStop(): Promise<{ start: number; stop: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'fauxlab-budget-'));
  const scenario = join(dir, 'empty.json');
  writeFileSync(scenario, '{}');
  const starts: number[] = [];
  const stops: number[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const t0 = performance.now();
      const child = spawn(
        process.execPath,
        [BIN, '--quiet', '--scenario', scenario, '--port', String(port)],
        {
          stdio: 'ignore',
        },
      );
      const exited = new Promise((r) => child.on('close', r));
      let ok = false;
      while (!ok && performance.now() - t0 < 10_000) {
        ok = await fetch(`http://127.0.0.1:${port}/__fauxlab/clock`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (!ok) await new Promise((r) => setTimeout(r, 2));
      }
      starts.push(performance.now() - t0);
      const t1 = performance.now();
      child.kill('SIGINT');
      await exited;
      stops.push(performance.now() - t1);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { start: Math.min(...starts), stop: Math.max(...stops) };
}

/** The median of 15 requests after a warm-up one. */
async function medianGet(fx: Fauxlab, path: string, token: string): Promise<number> {
  const get = async () =>
    (await fx.app.request(`http://localhost/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': token } })).text();
  await get();
  const runs: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    await get();
    runs.push(performance.now() - t);
  }
  return median(runs);
}

const ADMINS = [
  { username: 'root', admin: true, tokens: [{ token: 'adm' }] },
  { username: 'u', tokens: [{ token: 'u' }] },
];

export async function runBudgets(): Promise<Budget[]> {
  const out: Budget[] = [];
  const { start, stop } = await startAndStop();
  out.push({ name: 'start-up, empty scenario (spawn to first 200, best of 3)', ms: start, target: 300 });
  out.push({ name: 'stop on SIGINT, keep-alive connection open (worst of 3)', ms: stop, target: 2000 });

  const users = loadScenario({ generate: { users: 100_000 } });
  out.push({
    name: 'build 100,000 generated users',
    ms: timed(() => buildWorld(users, { now: NOW })),
    target: 2000,
  });
  const projects = loadScenario({ generate: { users: 1000, groups: 200, projects: 100_000 } });
  out.push({
    name: 'build 100,000 generated projects',
    ms: timed(() => buildWorld(projects, { now: NOW })),
    target: 2000,
  });

  const small = createFauxlab({ scenario: { generate: { users: 2000 } } });
  out.push({
    name: '10,000 snapshot/restore round trips, 2,000 users',
    ms: timed(() => {
      for (let i = 0; i < 10_000; i++) small.restore(small.snapshot());
    }),
    target: 1000,
  });

  const manyUsers = createFauxlab({ scenario: { users: ADMINS, generate: { users: 100_000 } } });
  for (const [path, token, target] of [
    ['/users', 'u', 15],
    ['/users', 'adm', 15],
    ['/users?search=john', 'u', 30],
    ['/users?order_by=name&sort=asc', 'adm', 15],
  ] as const)
    out.push({
      name: `GET ${path} as ${token}, 100,000 users (median)`,
      ms: await medianGet(manyUsers, path, token),
      target,
    });

  const manyGroups = createFauxlab({ scenario: { users: ADMINS, generate: { users: 500, groups: 10_000 } } });
  for (const [path, token] of [
    ['/groups', 'adm'],
    ['/groups?all_available=true', 'u'],
    ['/groups?search=group&order_by=path&sort=desc', 'adm'],
    ['/groups?top_level_only=true&order_by=id', 'adm'],
  ] as const)
    out.push({
      name: `GET ${path} as ${token}, 10,000 groups (median)`,
      ms: await medianGet(manyGroups, path, token),
      target: 25,
    });
  await manyGroups.app.request('http://localhost/api/v4/groups', {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': 'adm', 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'AAA first', path: 'aaa-first' }),
  });
  const t = performance.now();
  await manyGroups.app.request('http://localhost/api/v4/groups?per_page=1', {
    headers: { 'PRIVATE-TOKEN': 'adm' },
  });
  out.push({
    name: 'GET /groups right after a write, 10,000 groups',
    ms: performance.now() - t,
    target: 200,
  });
  return out;
}

export function budgetLines(budgets: readonly Budget[]): string[] {
  const w = [76, 10, 8, 5];
  return [
    row(['time budgets', 'ms', 'target', ''], w),
    ...budgets.map((b) => row([b.name, fmt(b.ms, 1), fmt(b.target), b.ms <= b.target ? 'ok' : 'OVER'], w)),
  ];
}
