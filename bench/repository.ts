/**
 * Benchmarks of the repository area (`npm run bench` runs them after the issues phases; `node
 * dist/bench/repository.js` alone):
 *
 * - the in-process cost of a commit with four actions (update two files, create one, delete the one the
 *   previous commit created), through the API
 *   and through the store, into a repository of 100 files and into one of 10,000: the ratio shows
 *   whether a commit grows with the repository (it should not: only the trees on the changed paths are
 *   rewritten);
 * - `GET .../repository/tree` (one directory of 100 entries) and `GET .../repository/files/:file_path`
 *   under load in the 10,000-file repository, next to a bare server sending the same bytes;
 * - the memory 10,000 files take (heap after a forced collection, with and without the files).
 *
 * Each world lives in its own child process (`--expose-gc`). Environment: FAUXLAB_BENCH_SECONDS (load
 * phase length, default 5).
 */
import { fileURLToPath } from 'node:url';
import { Store } from '../src/core/store.js';
import { tget } from '../src/core/table.js';
import { createFauxlab, type Fauxlab } from '../src/index.js';
import type { Project } from '../src/resources/projects/model.js';
import { generatedPath } from '../src/resources/repository/generate.js';
import { buildCommit, moveBranch } from '../src/resources/repository/write.js';
import {
  fmt,
  forkSelf,
  gc,
  inChild,
  load as loadPhase,
  mb,
  measure,
  row,
  serveUntilStopped,
  stopChild,
  timeCreates,
  writeCostLines,
  type Load,
  type WriteTimes,
} from './report.js';
import { listenBare, listenFauxlab } from './target.js';

const SELF = fileURLToPath(import.meta.url);
const PHASE_SECONDS = Number(process.env.FAUXLAB_BENCH_SECONDS ?? 5);
const BIG = 10_000;
const SMALL = 100;
const CONNECTIONS = 50;
const WRITES = 1_000;
const NOW = '2021-03-01T12:00:00.000Z';
const TOKEN = 'bench-admin-token';
const AUTH = { 'PRIVATE-TOKEN': TOKEN };
const WATCHDOG_MS = (PHASE_SECONDS * 4 + 300) * 1000;
const TREE = '/api/v4/projects/1/repository/tree?path=src/dir-7&per_page=100';
const FILE = `/api/v4/projects/1/repository/files/${encodeURIComponent(generatedPath(703))}?ref=master`;

/** One project whose default branch holds `files` files (user 1 the admin). */
function world(files: number): Fauxlab {
  return createFauxlab({
    scenario: {
      now: NOW,
      users: [{ username: 'root', name: 'Administrator', admin: true, tokens: [{ token: TOKEN }] }],
      projects: [{ path: 'root/app', visibility: 'private' }],
      generate: { repository_files_per_project: files },
    },
    journal: false,
  });
}

interface Ready {
  files: number;
  buildMs: number;
  rssMB: number;
  ports: { fauxlab: number; bareTree: number; bareFile: number };
  sample: { tree: number; file: number };
}

/** Child: the 10,000-file world served, next to bare servers with the bytes of its two answers. */
async function serveMode(): Promise<void> {
  setTimeout(() => process.exit(3), WATCHDOG_MS).unref();
  process.on('disconnect', () => process.exit(0));
  const t0 = performance.now();
  const fx = world(BIG);
  const buildMs = performance.now() - t0;
  gc();
  const tree = await (await fx.app.request(TREE, { headers: AUTH })).text();
  const file = await (await fx.app.request(FILE, { headers: AUTH })).text();
  const a = await listenFauxlab(fx.app.fetch);
  const b = await listenBare({ page: tree });
  const f = await listenBare({ page: file });
  const ready: Ready = {
    files: BIG,
    buildMs,
    rssMB: mb(process.memoryUsage().rss),
    ports: { fauxlab: a.port, bareTree: b.port, bareFile: f.port },
    sample: { tree: Buffer.byteLength(tree), file: Buffer.byteLength(file) },
  };
  serveUntilStopped(ready, [a.server, b.server, f.server]);
}

const load = (name: string, port: number, nextPath: () => string, headers?: Record<string, string>) =>
  loadPhase({ connections: CONNECTIONS, seconds: PHASE_SECONDS }, name, port, nextPath, headers);

interface WriteCost extends WriteTimes {
  files: number;
}

/** µs per commit of three actions into a repository of `files` files: through the API and the store. */
async function writeCost(files: number): Promise<WriteCost> {
  const fx = world(files);
  // One counter per path: the store and the API each write their own copy of the world.
  const counters = { store: 0, api: 0 };
  const actions = (which: 'store' | 'api') => {
    const n = ++counters[which];
    return [
      { action: 'update' as const, file_path: generatedPath((n * 31) % files), content: `v${n}\n` },
      { action: 'update' as const, file_path: generatedPath((n * 17 + 5) % files), content: `w${n}\n` },
      { action: 'create' as const, file_path: `new/${n}.txt`, content: `${n}\n` },
      // The created file goes again in the next commit: the repository stays at its size.
      ...(n > 1 ? [{ action: 'delete' as const, file_path: `new/${n - 1}.txt` }] : []),
    ];
  };
  const store = new Store(fx.state);
  const project = tget(store.state.projects, 1) as Project;
  const committer = { name: 'Administrator', email: 'admin@example.com', time: Date.parse(NOW) / 1000 };
  const storeCommit = () => {
    const { id } = buildCommit(
      store.state,
      project,
      { branch: 'master', message: 'Bench', actions: actions('store') },
      committer,
    );
    store.write((d) => moveBranch(d, project, 'master', id, { userId: 1, now: NOW }));
  };
  const apiCommit = async () => {
    const res = await fx.app.request('/api/v4/projects/1/repository/commits', {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        branch: 'master',
        commit_message: 'Bench',
        actions: actions('api'),
        stats: false,
      }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  return { files, ...(await timeCreates(WRITES, storeCommit, apiCommit)) };
}

/** Heap (MB, after a collection) of the world with 10,000 files, and of the same world without them. */
async function memory(): Promise<{ withFiles: number; without: number }> {
  gc();
  const base = process.memoryUsage().heapUsed;
  const empty = world(0);
  await empty.app.request(TREE, { headers: AUTH });
  gc();
  const without = process.memoryUsage().heapUsed - base;
  const full = world(BIG);
  gc();
  const withFiles = process.memoryUsage().heapUsed - base - without;
  // Both worlds stay reachable until here, so that neither is collected before the readings.
  void [empty.state, full.state];
  return { withFiles: mb(withFiles), without: mb(without) };
}

/** Runs the repository phases and prints their table and a JSON line. */
export async function runRepository(): Promise<void> {
  const watchdog = setTimeout(() => {
    console.error('bench repository: watchdog fired, giving up');
    process.exit(2);
  }, WATCHDOG_MS);
  watchdog.unref();
  const { child, message: ready } = await forkSelf<Ready>(SELF, ['--serve']);
  let loads: Load[];
  try {
    loads = [
      await load(
        'GET /api/v4/projects/:id/repository/tree (100 entries)',
        ready.ports.fauxlab,
        () => TREE,
        AUTH,
      ),
      await load('bare Hono, pre-serialised tree page', ready.ports.bareTree, () => '/page'),
      await load(
        'GET /api/v4/projects/:id/repository/files/:file_path',
        ready.ports.fauxlab,
        () => FILE,
        AUTH,
      ),
      await load('bare Hono, pre-serialised file', ready.ports.bareFile, () => '/page'),
    ];
  } finally {
    await stopChild(child);
  }
  const small = await inChild<WriteCost>(SELF, ['--writes', String(SMALL)]);
  const big = await inChild<WriteCost>(SELF, ['--writes', String(BIG)]);
  const mem = await inChild<{ withFiles: number; without: number }>(SELF, ['--memory']);

  const out: string[] = [''];
  out.push(
    `repository world: ${fmt(ready.files)} files in one project, built in ${fmt(ready.buildMs)} ms, RSS ${ready.rssMB} MB; ` +
      `tree page ${ready.sample.tree} B, file ${ready.sample.file} B; heap of the 10,000 files ${mem.withFiles} MB`,
  );
  const lw = [62, 9, 8, 8, 8, 10];
  out.push(row(['load (autocannon)', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'B/resp'], lw));
  for (const l of loads)
    out.push(row([l.name, fmt(l.rps), l.p50, l.p99, fmt(l.non2xx), fmt(l.bytesPerResponse)], lw));
  out.push('');
  out.push(
    ...writeCostLines(
      'commit',
      'files',
      ['POST /api/v4/projects/:id/repository/commits', 'buildCommit + store.write'],
      [small.files, big.files],
      small,
      big,
      14,
    ),
  );
  console.log(out.join('\n'));
  console.log(
    JSON.stringify({
      bench: 'fauxlab-repository',
      node: process.version,
      phaseSeconds: PHASE_SECONDS,
      world: { files: ready.files, buildMs: Math.round(ready.buildMs), rssMB: ready.rssMB },
      memoryMB: mem,
      load: Object.fromEntries(loads.map((l) => [l.name, l])),
      writes: { small, big, apiRatio: big.apiUs / small.apiUs, storeRatio: big.storeUs / small.storeUs },
    }),
  );
  clearTimeout(watchdog);
}

// Run as a script (or as a forked child of one); imported by run.ts, do nothing on load.
if (process.argv[1] === SELF) {
  const [mode, arg] = process.argv.slice(2);
  if (mode === '--serve') await serveMode();
  else if (mode === '--writes') await measure(() => writeCost(Number(arg)), WATCHDOG_MS);
  else if (mode === '--memory') await measure(memory, WATCHDOG_MS);
  else await runRepository();
}
