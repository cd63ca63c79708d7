/**
 * Benchmarks of the issuables area (`npm run bench` runs them after the other phases; `node
 * dist/bench/issues.js` alone):
 *
 * - `GET /projects/:id/issues` with three filters (state, labels, milestone) in a world of 100,000
 *   issues, under load next to a bare server sending the same bytes;
 * - the in-process cost of creating an issue, through the API and through the store, in a world of
 *   1,000 issues and in one of 100,000: the ratio shows whether writes grow with the world.
 *
 * Each world lives in its own child process (`--expose-gc`), so that one phase's heap does not skew
 * another's. Environment: FAUXLAB_BENCH_SECONDS (load phase length, default 5), FAUXLAB_BENCH_ISSUES
 * (issues of the big world, default 100000).
 */
import { fileURLToPath } from 'node:url';
import { Store } from '../src/core/store.js';
import { createFauxlab, type Fauxlab } from '../src/index.js';
import { createIssue } from '../src/resources/issuables/model.js';
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
const BIG = Number(process.env.FAUXLAB_BENCH_ISSUES ?? 100_000);
const PROJECTS = 100;
const CONNECTIONS = 50;
const WRITES = 2_000;
const NOW = '2021-03-01T12:00:00.000Z';
const TOKEN = 'bench-admin-token';
const AUTH = { 'PRIVATE-TOKEN': TOKEN };
const WATCHDOG_MS = (PHASE_SECONDS * 4 + 300) * 1000;
/** Three filters: the state, a label and a milestone every generated project has. */
const FILTERS = 'state=opened&labels=bug&milestone=v2.0';

/** A world of `issues` issues over PROJECTS projects (user 1 the admin). */
function world(issues: number): Fauxlab {
  return createFauxlab({
    scenario: {
      now: NOW,
      users: [{ username: 'root', name: 'Administrator', admin: true, tokens: [{ token: TOKEN }] }],
      generate: {
        users: 2_000,
        groups: 100,
        projects: PROJECTS,
        issues_per_project: Math.ceil(issues / PROJECTS),
      },
    },
    journal: false,
  });
}

interface Ready {
  issues: number;
  buildMs: number;
  rssMB: number;
  ports: { fauxlab: number; bare: number };
  sample: { status: number; bytes: number; total: string | null };
}

/** Child: the big world served, next to a bare server with the bytes of one filtered page. */
async function serveMode(): Promise<void> {
  setTimeout(() => process.exit(3), WATCHDOG_MS).unref();
  process.on('disconnect', () => process.exit(0));
  const t0 = performance.now();
  const fx = world(BIG);
  const buildMs = performance.now() - t0;
  gc();
  const res = await fx.app.request(`/api/v4/projects/7/issues?${FILTERS}`, { headers: AUTH });
  const body = await res.text();
  const a = await listenFauxlab(fx.app.fetch);
  const b = await listenBare({ page: body });
  const ready: Ready = {
    issues: fx.state.issuables.issues.size,
    buildMs,
    rssMB: mb(process.memoryUsage().rss),
    ports: { fauxlab: a.port, bare: b.port },
    sample: { status: res.status, bytes: Buffer.byteLength(body), total: res.headers.get('x-total') },
  };
  serveUntilStopped(ready, [a.server, b.server]);
}

const load = (name: string, port: number, nextPath: () => string, headers?: Record<string, string>) =>
  loadPhase({ connections: CONNECTIONS, seconds: PHASE_SECONDS }, name, port, nextPath, headers);

interface WriteCost extends WriteTimes {
  issues: number;
}

/** µs per issue create on top of `issues` issues: through the API as admin, and through the store. */
async function writeCost(issues: number): Promise<WriteCost> {
  const fx = world(issues);
  const existing = fx.state.issuables.issues.size;
  const store = new Store(fx.state);
  let n = 0;
  const storeCreate = () =>
    store.write((d) =>
      createIssue(d, { project_id: 1 + (n++ % PROJECTS), author_id: 1, title: `Bench ${n}` }, NOW),
    );
  const apiCreate = async () => {
    const res = await fx.app.request(`/api/v4/projects/${1 + (n++ % PROJECTS)}/issues`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: `Bench ${n}`, labels: 'bug', assignee_ids: [1] }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  return { issues: existing, ...(await timeCreates(WRITES, storeCreate, apiCreate)) };
}

/** Runs the issuables phases and prints their table and a JSON line. */
export async function runIssues(): Promise<void> {
  const watchdog = setTimeout(() => {
    console.error('bench issues: watchdog fired, giving up');
    process.exit(2);
  }, WATCHDOG_MS);
  watchdog.unref();
  const { child, message: ready } = await forkSelf<Ready>(SELF, ['--serve']);
  let loads: Load[];
  try {
    let k = 0;
    const project = () => 1 + ((k++ * 37) % PROJECTS);
    loads = [
      await load(
        `GET /api/v4/projects/:id/issues?${FILTERS}`,
        ready.ports.fauxlab,
        () => `/api/v4/projects/${project()}/issues?${FILTERS}`,
        AUTH,
      ),
      await load('bare Hono, pre-serialised issues page', ready.ports.bare, () => '/page'),
    ];
  } finally {
    await stopChild(child);
  }
  const small = await inChild<WriteCost>(SELF, ['--writes', '1000']);
  const big = await inChild<WriteCost>(SELF, ['--writes', String(BIG)]);

  const out: string[] = [''];
  out.push(
    `issues world: ${fmt(ready.issues)} issues in ${PROJECTS} projects, built in ${fmt(ready.buildMs)} ms, RSS ${ready.rssMB} MB; ` +
      `sample page ${ready.sample.bytes} B (HTTP ${ready.sample.status}, X-Total ${ready.sample.total})`,
  );
  const lw = [62, 9, 8, 8, 8, 10];
  out.push(row(['load (autocannon)', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'B/resp'], lw));
  for (const l of loads)
    out.push(row([l.name, fmt(l.rps), l.p50, l.p99, fmt(l.non2xx), fmt(l.bytesPerResponse)], lw));
  out.push(row(['  ratio filtered issue list / bare page', fmt(loads[0]!.rps / loads[1]!.rps, 3)], lw));
  out.push('');
  out.push(
    ...writeCostLines(
      'issue',
      'issues',
      ['POST /api/v4/projects/:id/issues', 'store.write(createIssue)'],
      [small.issues, big.issues],
      small,
      big,
      14,
    ),
  );
  console.log(out.join('\n'));
  console.log(
    JSON.stringify({
      bench: 'fauxlab-issues',
      node: process.version,
      phaseSeconds: PHASE_SECONDS,
      world: {
        issues: ready.issues,
        projects: PROJECTS,
        buildMs: Math.round(ready.buildMs),
        rssMB: ready.rssMB,
      },
      sample: ready.sample,
      load: Object.fromEntries(loads.map((l) => [l.name, l])),
      ratios: { listVsBare: loads[0]!.rps / loads[1]!.rps },
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
  else await runIssues();
}
