/**
 * The figures of the performance issue's table, each next to its baseline measured in the same run:
 * `FAUXLAB_BENCH_ONLY=table npm run bench`, or `node dist/bench/table.js` (under 3 minutes with the
 * default 2 s phases; FAUXLAB_BENCH_SECONDS shortens them). Prints one row per figure (figure, value,
 * baseline, ratio, target, ok/OVER) and then one JSON line (`"bench":"fauxlab-table"`) that
 * `bench/compare.ts` reads.
 *
 * The build measured is this one, or the one FAUXLAB_BENCH_TARGET names (`bench/target.ts`): the
 * baselines (bare Hono servers, the load generator) always come from this checkout, so that two builds
 * are measured against the same yardsticks.
 *
 * Bounded: every load phase lasts FAUXLAB_BENCH_SECONDS (+1 s unmeasured) on 127.0.0.1 only; every
 * world lives in a child process that is stopped (or killed) at the end; a watchdog ends a run that
 * hangs; the spawned servers of the start-up figure are killed after their first answer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { fetchUserCost, randomIn, suiteLoad } from './mixed.js';
import {
  fmt,
  forkSelf,
  freePort,
  gc,
  inChild,
  listen,
  loadSet as loadSetIn,
  mb,
  measure,
  row,
  stopChild,
  type Load,
  type LoadTarget,
} from './report.js';
import {
  fauxlab,
  fauxlabBin,
  listenFauxlab,
  projectRecords,
  storeParts,
  targetDist,
  targetHttp,
} from './target.js';

const SELF = fileURLToPath(import.meta.url);
const BARE_SERVER = fileURLToPath(new URL('./bare-server.js', import.meta.url));
const PHASE_SECONDS = Number(process.env.FAUXLAB_BENCH_SECONDS ?? 2);
const CONNECTIONS = 50;
const ROUNDS = Math.max(1, Math.min(3, Math.round(PHASE_SECONDS)));
const PER_PAGE = 20;
const USERS = 100_000;
const PROJECTS = 100_000;
const ISSUES = 100_000;
const ISSUE_PROJECTS = 100;
const WRITES = 1_000;
const STARTS = 7;
const NOW = '2021-03-01T12:00:00.000Z';
const TOKEN = 'bench-admin-token';
const AUTH = { 'PRIVATE-TOKEN': TOKEN };
const ADMIN = { username: 'root', name: 'Administrator', admin: true, tokens: [{ token: TOKEN }] };
const FILTERS = 'state=opened&labels=bug&milestone=v2.0';
/** Ends a run that hangs: generous, as world builds on a loaded machine take a while. */
const WATCHDOG_MS = (PHASE_SECONDS * 40 + 400) * 1000;
const JSON_TYPE = { 'Content-Type': 'application/json' };

const loadSet = (targets: LoadTarget[]) =>
  loadSetIn({ connections: CONNECTIONS, seconds: PHASE_SECONDS, rounds: ROUNDS }, targets);

/** A target check: the row is `ok` when `on` (its value, ratio or p99) is `op` the limit. */
export interface Check {
  on: 'value' | 'ratio' | 'p99';
  op: '<=' | '>=';
  limit: number;
}

export interface TableRow {
  figure: string;
  unit: string;
  value: number;
  p99?: number;
  baseline?: number;
  baselineP99?: number;
  ratio?: number;
  target?: string;
  check?: Check;
  ok?: boolean;
  /** Answers that were not 2xx, or failed: a figure with any is not comparable (printed ERR). */
  failed?: number;
}

function tableRow(
  figure: string,
  unit: string,
  value: number,
  extra: { p99?: number; baseline?: number; baselineP99?: number; ratio?: number; failed?: number } = {},
  check?: Check,
): TableRow {
  const r: TableRow = { figure, unit, value, ...extra };
  if (check) {
    r.target = targetText(check);
    r.check = check;
    r.ok = meets(check, r);
  }
  return r;
}

export const targetText = (c: Check) =>
  `${c.on === 'value' ? '' : c.on + ' '}${c.op} ${fmt(c.limit, c.limit < 10 ? 2 : 0)}`;

/** Whether figures meet a check (the value, ratio or p99 it is on). */
export function meets(c: Check, r: { value: number; ratio?: number; p99?: number }): boolean {
  const x = c.on === 'value' ? r.value : c.on === 'ratio' ? r.ratio : r.p99;
  return x !== undefined && !Number.isNaN(x) && (c.op === '<=' ? x <= c.limit : x >= c.limit);
}

/** A load row: req/s (p99) of `l` next to the baseline `b`, ratio l/b. */
const loadRow = (figure: string, l: Load, b: Load, check?: Check) =>
  tableRow(
    figure,
    'req/s',
    l.rps,
    {
      p99: l.p99,
      baseline: b.rps,
      baselineP99: b.p99,
      ratio: l.rps / b.rps,
      failed: l.non2xx + l.errors + b.non2xx + b.errors,
    },
    check,
  );

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

// ---------------------------------------------------------------------------------------------------
// Children: each world in its own process, served until the parent says stop.

type Msg = { type: 'rss' } | 'stop';

/** Serves until stopped, answering `{ type: 'rss' }` with the RSS after a full collection. */
function serveUntil(ready: unknown, servers: { closeAllConnections(): void; close(): void }[]): void {
  process.send!(ready);
  process.on('message', (m: Msg) => {
    if (m === 'stop') {
      for (const s of servers) {
        s.closeAllConnections();
        s.close();
      }
      process.exit(0);
    }
    if (typeof m === 'object' && m.type === 'rss') {
      gc();
      process.send!({ type: 'rss', rss: process.memoryUsage().rss });
    }
  });
}

function childGuard(): void {
  setTimeout(() => process.exit(3), WATCHDOG_MS).unref();
  process.on('disconnect', () => process.exit(0));
}

/** A world built in this (fresh) process: the build's time, and the RSS before and after it (each after a full GC). */
interface Built {
  buildMs: number;
  rssBefore: number;
  rssAfter: number;
}

/** A row: the RSS a build added, per 100,000 of the records it was built for (MB; baseline the RSS before). */
const rssPer100k = (label: string, records: number, b: Built) =>
  tableRow(
    `RSS per 100,000 ${label} (MB: the build's growth, scaled)`,
    'MB',
    mb(((b.rssAfter - b.rssBefore) * 100_000) / records),
    {
      baseline: mb(b.rssBefore),
    },
  );

function measuredBuild<T>(build: () => T): [T, Built] {
  gc();
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const world = build();
  const buildMs = performance.now() - t0;
  gc();
  return [world, { buildMs, rssBefore, rssAfter: process.memoryUsage().rss }];
}

interface UsersReady {
  users: number;
  built: Built;
  ports: { fauxlab: number };
  bodies: { page: string; user: string };
}

/** 100,000 users (the default instance) next to the bare bodies of one page and one user. */
async function serveUsers(): Promise<void> {
  childGuard();
  const { createFauxlab } = await fauxlab();
  const [fx, built] = measuredBuild(() =>
    createFauxlab({ scenario: { now: NOW, users: [ADMIN], generate: { users: USERS - 1 } } }),
  );
  const a = await listenFauxlab(fx.app.fetch);
  const origin = `http://127.0.0.1:${a.port}`;
  const get = async (path: string) => (await fx.app.request(origin + path, { headers: AUTH })).text();
  const page = await get(`/api/v4/users?per_page=${PER_PAGE}&page=7`);
  const user = await get('/api/v4/users/4242');
  serveUntil(
    {
      users: fx.state.users.size,
      built,
      ports: { fauxlab: a.port },
      bodies: { page, user },
    } satisfies UsersReady,
    [a.server],
  );
}

interface ProjectsReady {
  projects: number;
  built: Built;
  ports: { fauxlab: number; off: number; naive: number };
  bodies: { page: string; project: string };
}

/**
 * A fresh process: 100,000 projects built (timed, RSS before and after), served by the default
 * instance, by one with the response cache off over the same state, by a naive Hono handler that
 * stringifies the stored project record per request, and by a bare server of pre-serialised bodies.
 */
async function serveProjects(): Promise<void> {
  childGuard();
  const { createFauxlab } = await fauxlab();
  const [fx, built] = measuredBuild(() =>
    createFauxlab({
      scenario: { now: NOW, users: [ADMIN], generate: { users: 5_000, groups: 1_000, projects: PROJECTS } },
    }),
  );
  // The same world, computed on every request: a snapshot is the (immutable) state itself.
  const off = createFauxlab({ scenario: { now: NOW }, responseCache: false });
  off.restore(fx.snapshot());
  const records = await projectRecords(fx.state);
  // Hono and its Node server as the target loads them (see `targetHttp`).
  const http = await targetHttp();
  const naive = new http.Hono();
  naive.get('/api/v4/projects/:id', (c) => {
    const rec = records.get(Number(c.req.param('id')));
    return rec
      ? c.body(JSON.stringify(rec), 200, JSON_TYPE)
      : c.body('{"message":"404 Project Not Found"}', 404, JSON_TYPE);
  });
  const a = await listenFauxlab(fx.app.fetch);
  const o = await listenFauxlab(off.app.fetch);
  const n = await listen(naive.fetch, http.serve);
  const origin = `http://127.0.0.1:${a.port}`;
  const get = async (path: string) => (await off.app.request(origin + path, { headers: AUTH })).text();
  const page = await get(`/api/v4/projects?per_page=${PER_PAGE}&page=7`);
  const project = await get('/api/v4/projects/4242');
  serveUntil(
    {
      projects: records.size || fx.state.projects.size,
      built,
      ports: { fauxlab: a.port, off: o.port, naive: n.port },
      bodies: { page, project },
    } satisfies ProjectsReady,
    [a.server, o.server, n.server],
  );
}

interface IssuesReady {
  issues: number;
  built: Built;
  ports: { fauxlab: number; off: number };
  bodies: { page: string };
}

/** 100,000 issues in 100 projects: the default instance, one with the response cache off, bare bytes. */
async function serveIssues(): Promise<void> {
  childGuard();
  const { createFauxlab } = await fauxlab();
  const [fx, built] = measuredBuild(() =>
    createFauxlab({
      scenario: {
        now: NOW,
        users: [ADMIN],
        generate: {
          users: 2_000,
          groups: 100,
          projects: ISSUE_PROJECTS,
          issues_per_project: ISSUES / ISSUE_PROJECTS,
        },
      },
    }),
  );
  const off = createFauxlab({ scenario: { now: NOW }, responseCache: false });
  off.restore(fx.snapshot());
  gc();
  const a = await listenFauxlab(fx.app.fetch);
  const o = await listenFauxlab(off.app.fetch);
  const body = await (
    await off.app.request(`http://127.0.0.1:${a.port}/api/v4/projects/7/issues?${FILTERS}`, { headers: AUTH })
  ).text();
  serveUntil(
    {
      issues: fx.state.issuables.issues.size,
      built,
      ports: { fauxlab: a.port, off: o.port },
      bodies: { page: body },
    } satisfies IssuesReady,
    [a.server, o.server],
  );
}

interface WriteCost {
  existing: number;
  apiUs: number;
  storeUs: number;
  bareApiUs: number;
  bareStoreUs: number;
  statuses: Record<string, number>;
  /** The same four once the process has made thousands of writes (see `SETTLE`); the 100k world only. */
  settled?: { apiUs: number; storeUs: number; bareApiUs: number; bareStoreUs: number; failed: number };
}

/**
 * Unmeasured writes before the settled figures. The first figures fall in a fresh process's first 1,200
 * writes, most of which V8 runs before its optimising compiler has compiled them (a store write at 1k
 * users costs there what it costs at 100k); a test suite that keeps one server for its run is past that
 * after a few thousand requests.
 */
const SETTLE = 4_000;

/**
 * µs per user create on top of `existing` users: through the API (in process, as admin) and through a
 * store over the same state; the baselines a bare Hono POST that parses the body and keeps the record
 * in a Map, and a bare Map.set of a frozen record.
 */
async function writeCost(existing: number): Promise<WriteCost> {
  const { createFauxlab } = await fauxlab();
  // A build without these modules still gives the API figures (the store's then read NaN: ERR).
  const parts = await storeParts().catch(() => undefined);
  const fx = createFauxlab({ scenario: { now: NOW, users: [ADMIN], generate: { users: existing - 1 } } });
  const before = fx.state.users.size;
  const store = parts && new parts.Store(fx.state);
  let seq = 0;
  const fields = () => {
    const n = seq++;
    return { username: `bench${n}`, name: `Bench ${n}`, email: `bench${n}@example.com` };
  };
  const body = () => JSON.stringify({ ...fields(), password: 'bench-password-123', skip_confirmation: true });
  const post = { method: 'POST', headers: { ...AUTH, 'Content-Type': 'application/json' } };

  const kept = new Map<number, object>();
  const bare = new Hono();
  bare.post('/api/v4/users', async (c) => {
    const rec = Object.freeze({ ...(await c.req.json<object>()), id: kept.size + 1, created_at: NOW });
    kept.set(rec.id, rec);
    return c.body(JSON.stringify(rec), 201, JSON_TYPE);
  });
  const bareMap = new Map<number, object>();

  const timeSync = (fn: () => unknown) => {
    for (let i = 0; i < 200; i++) fn();
    const t0 = performance.now();
    for (let i = 0; i < WRITES; i++) fn();
    return ((performance.now() - t0) * 1000) / WRITES;
  };
  const statuses: Record<string, number> = {};
  const timeAsync = async (fn: () => Promise<number>, counts = statuses) => {
    for (let i = 0; i < 200; i++) await fn();
    const t0 = performance.now();
    for (let i = 0; i < WRITES; i++) {
      const s = await fn();
      counts[s] = (counts[s] ?? 0) + 1;
    }
    return ((performance.now() - t0) * 1000) / WRITES;
  };
  const storeWrite =
    store && parts ? () => store.write((d) => parts.createUser(d, fields(), NOW)) : undefined;
  const storeUs = storeWrite ? timeSync(storeWrite) : NaN;
  const bareStoreWrite = () => {
    const f = fields();
    bareMap.set(bareMap.size + 1, Object.freeze({ ...f, id: bareMap.size + 1, created_at: NOW }));
  };
  const bareStoreUs = timeSync(bareStoreWrite);
  const apiPost = async () => {
    const res = await fx.app.request('/api/v4/users', { ...post, body: body() });
    await res.arrayBuffer();
    return res.status;
  };
  const apiUs = await timeAsync(apiPost);
  const barePost = async () => {
    const res = await bare.request('/api/v4/users', { ...post, body: body() });
    await res.arrayBuffer();
    return -res.status;
  };
  const bareApiUs = await timeAsync(barePost);

  // Settled, in the 100k world (the table's row): after the figures above (which they leave as they
  // were), each write path made SETTLE more times.
  const settled = async (): Promise<WriteCost['settled']> => {
    const counts: Record<string, number> = {};
    const settle = async (fn: () => unknown) => {
      for (let i = 0; i < SETTLE; i++) await fn();
    };
    let storeAfter = NaN;
    if (storeWrite) {
      await settle(storeWrite);
      storeAfter = timeSync(storeWrite);
    }
    await settle(bareStoreWrite);
    const bareStoreAfter = timeSync(bareStoreWrite);
    await settle(apiPost);
    const apiAfter = await timeAsync(apiPost, counts);
    await settle(barePost);
    const bareApiAfter = await timeAsync(barePost, {});
    return {
      apiUs: apiAfter,
      storeUs: storeAfter,
      bareApiUs: bareApiAfter,
      bareStoreUs: bareStoreAfter,
      failed: WRITES - (counts['201'] ?? 0),
    };
  };
  return {
    existing: before,
    apiUs,
    storeUs,
    bareApiUs,
    bareStoreUs,
    statuses,
    ...(existing >= USERS && { settled: await settled() }),
  };
}

interface Growth {
  kind: string;
  early: number;
  late: number;
  earlyUs: number;
  lateUs: number;
  failed: number;
}

/** Creates measured early and late in a test suite that keeps adding to one owner. */
const GROWTH_EARLY = [101, 300] as const;
const GROWTH_LATE = [2_801, 3_000] as const;

/**
 * µs per create (in process, as admin) while one owner's collection grows, as a test suite's does:
 * projects in the admin's namespace, notes on one issue, labels in one project. The mean of creates
 * 101..300 and of 2,801..3,000; a cost that grows with the collection shows as a ratio above 1.
 */
async function growthCost(kind: string): Promise<Growth> {
  const { createFauxlab } = await fauxlab();
  const fx = createFauxlab({
    scenario: {
      now: NOW,
      users: [ADMIN],
      generate: { users: 1_000, groups: 50, projects: 1_000, issues_per_project: 2 },
    },
  });
  const headers = { ...AUTH, 'Content-Type': 'application/json' };
  let failed = 0;
  const call = async (path: string, body: object): Promise<{ id?: number; iid?: number }> => {
    const res = await fx.app.request(path, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== 201) failed++;
    return res.status === 201 ? (JSON.parse(text) as { id?: number; iid?: number }) : {};
  };
  const project = await call('/api/v4/projects', { name: 'growth-home' });
  const issue = await call(`/api/v4/projects/${project.id}/issues`, { title: 'Growth' });
  const create: (n: number) => Promise<unknown> =
    kind === 'notes'
      ? (n) => call(`/api/v4/projects/${project.id}/issues/${issue.iid}/notes`, { body: `note ${n}` })
      : kind === 'labels'
        ? (n) => call(`/api/v4/projects/${project.id}/labels`, { name: `label-${n}`, color: '#428bca' })
        : (n) => call('/api/v4/projects', { name: `growth-${n}` });
  const window = async (from: number, to: number) => {
    const t0 = performance.now();
    for (let n = from; n <= to; n++) await create(n);
    return ((performance.now() - t0) * 1000) / (to - from + 1);
  };
  for (let n = 1; n < GROWTH_EARLY[0]; n++) await create(n);
  const earlyUs = await window(...GROWTH_EARLY);
  for (let n = GROWTH_EARLY[1] + 1; n < GROWTH_LATE[0]; n++) await create(n);
  const lateUs = await window(...GROWTH_LATE);
  return { kind, early: GROWTH_EARLY[1], late: GROWTH_LATE[1], earlyUs, lateUs, failed };
}

/**
 * Child: a bare Hono server sending the bodies it is given (`/<name>`), in a process of its own, so
 * that the heap and the collections of the world next to it weigh on fauxlab's figures, not on it.
 */
function serveBare(): void {
  childGuard();
  process.once('message', (m: { bodies: Record<string, string> }) => {
    const bare = new Hono();
    for (const [name, body] of Object.entries(m.bodies))
      bare.get(`/${name}`, (c) => c.body(body, 200, JSON_TYPE));
    void listen(bare.fetch).then((b) => serveUntil({ port: b.port }, [b.server]));
  });
  process.send!({ type: 'hello' });
}

async function startBare(bodies: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const { child } = await forkSelf<unknown>(SELF, ['--serve-bare']);
  const ready = new Promise<{ port: number }>((resolve) =>
    child.once('message', (m) => resolve(m as { port: number })),
  );
  child.send({ bodies });
  return { child, port: (await ready).port };
}

// ---------------------------------------------------------------------------------------------------
// Start-up: spawn to first 200, fauxlab's CLI and a bare Hono server alternately.

/** ms from spawn to the first 200 of `path`, polling every 2 ms for at most 15 s; the child killed after. */
async function spawnToFirst200(args: string[], port: number, path: string): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: 'ignore' });
  const exited = new Promise((r) => child.once('close', r));
  let ok = false;
  try {
    while (!ok && performance.now() - t0 < 15_000 && child.exitCode === null) {
      ok = await fetch(`http://127.0.0.1:${port}${path}`).then(
        async (r) => (await r.arrayBuffer(), r.status === 200),
        () => false,
      );
      if (!ok) await new Promise((r) => setTimeout(r, 2));
    }
    return ok ? performance.now() - t0 : NaN;
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

async function startUp(): Promise<{ fauxlabMs: number; bareMs: number; failed: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'fauxlab-table-'));
  const scenario = join(dir, 'empty.json');
  writeFileSync(scenario, '{}');
  const fx: number[] = [];
  const bare: number[] = [];
  try {
    // The poller's own first fetch (undici's loading) outside the timings.
    await fetch('http://127.0.0.1:1/').catch(() => undefined);
    for (let i = 0; i < STARTS; i++) {
      let port = await freePort();
      fx.push(
        await spawnToFirst200(
          [fauxlabBin(), '--quiet', '--scenario', scenario, '--host', '127.0.0.1', '--port', String(port)],
          port,
          '/__fauxlab/clock',
        ),
      );
      port = await freePort();
      bare.push(await spawnToFirst200([BARE_SERVER, String(port)], port, '/'));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const failed = [...fx, ...bare].filter((ms) => Number.isNaN(ms)).length;
  return { fauxlabMs: median(fx), bareMs: median(bare), failed };
}

// ---------------------------------------------------------------------------------------------------

const rssOf = (child: ChildProcess) =>
  new Promise<number>((resolve) => {
    const on = (m: unknown) => {
      if (typeof m === 'object' && m !== null && (m as { type?: string }).type === 'rss') {
        child.off('message', on);
        resolve((m as { rss: number }).rss);
      }
    };
    child.on('message', on);
    child.send({ type: 'rss' });
  });

export async function runTable(): Promise<TableRow[]> {
  const watchdog = setTimeout(() => {
    console.error('bench table: watchdog fired, giving up');
    process.exit(2);
  }, WATCHDOG_MS);
  watchdog.unref();
  const started = performance.now();
  const load0 = loadavg()[0]!;
  const rows: TableRow[] = [];
  const K = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));
  let statuses: unknown = {};
  let mixedNon2xx = 0;
  /** FAUXLAB_BENCH_PARTS: words (comma-separated) naming the parts to run, e.g. `users,writes`. */
  const parts = process.env.FAUXLAB_BENCH_PARTS?.split(',').filter((w) => w !== '');
  /**
   * Runs one part; a part that fails (a build without something it drives) gives one ERR row and the
   * table goes on, so that a comparison run still yields the other figures.
   */
  const guarded = async (part: string, run: () => Promise<void>) => {
    if (parts && !parts.some((w) => part.includes(w))) return;
    try {
      await run();
    } catch (e) {
      console.error(`bench table: ${part} failed:`, e);
      rows.push({ figure: `${part}: failed (${String(e).slice(0, 60)})`, unit: '', value: NaN, failed: 1 });
    }
  };

  // In-process writes, 1k and 100k users.
  await guarded('in-process writes', async () => {
    const small = await inChild<WriteCost>(SELF, ['--writes', '1000']);
    const big = await inChild<WriteCost>(SELF, ['--writes', String(USERS)]);
    for (const w of [small, big])
      rows.push(
        tableRow(
          `in-process POST /api/v4/users at ${K(w.existing)} users (µs)`,
          'µs',
          w.apiUs,
          { baseline: w.bareApiUs, ratio: w.apiUs / w.bareApiUs, failed: WRITES - (w.statuses['201'] ?? 0) },
          w === big ? { on: 'value', op: '<=', limit: 150 } : undefined,
        ),
      );
    rows.push(
      tableRow(
        '  POST /api/v4/users 100k/1k',
        'x',
        big.apiUs / small.apiUs,
        {},
        { on: 'value', op: '<=', limit: 1.3 },
      ),
    );
    for (const w of [small, big])
      rows.push(
        tableRow(
          `store.write(createUser) at ${K(w.existing)} users (µs)`,
          'µs',
          w.storeUs,
          {
            baseline: w.bareStoreUs,
            ratio: w.storeUs / w.bareStoreUs,
            failed: Number.isNaN(w.storeUs) ? 1 : 0,
          },
          w === big ? { on: 'value', op: '<=', limit: 50 } : undefined,
        ),
      );
    rows.push(
      tableRow(
        '  store.write(createUser) 100k/1k',
        'x',
        big.storeUs / small.storeUs,
        {},
        { on: 'value', op: '<=', limit: 1.3 },
      ),
    );
    const settled = big.settled ?? {
      apiUs: NaN,
      storeUs: NaN,
      bareApiUs: NaN,
      bareStoreUs: NaN,
      failed: 1,
    };
    // Each path's own writes: 200 and WRITES above, SETTLE, then timeSync's or timeAsync's 200 unmeasured.
    const first = WRITES + 200 + SETTLE + 200 + 1;
    const span = `${fmt(first)}..${fmt(first + WRITES - 1)}`;
    rows.push(
      tableRow(
        `  POST /api/v4/users at ${K(big.existing)} users, its writes ${span} (µs)`,
        'µs',
        settled.apiUs,
        {
          baseline: settled.bareApiUs,
          ratio: settled.apiUs / settled.bareApiUs,
          failed: settled.failed,
        },
      ),
      tableRow(
        `  store.write(createUser) at ${K(big.existing)} users, its writes ${span} (µs)`,
        'µs',
        settled.storeUs,
        {
          baseline: settled.bareStoreUs,
          ratio: settled.storeUs / settled.bareStoreUs,
          failed: Number.isNaN(settled.storeUs) ? 1 : 0,
        },
      ),
    );
    statuses = { small: small.statuses, big: big.statuses };
  });

  // In-process creates while one owner's collection grows (a test suite adding to one project).
  await guarded('in-process growth', async () => {
    const what: Record<string, string> = {
      projects: "POST /api/v4/projects into the admin's namespace",
      notes: 'POST notes on one issue',
      labels: 'POST labels in one project',
    };
    for (const kind of Object.keys(what)) {
      const g = await inChild<Growth>(SELF, ['--growth', kind]);
      rows.push(
        tableRow(
          `in-process ${what[kind]}: ${fmt(g.late)}th / ${fmt(g.early)}th (µs)`,
          'µs',
          g.lateUs,
          { baseline: g.earlyUs, ratio: g.lateUs / g.earlyUs, failed: g.failed },
          { on: 'ratio', op: '<=', limit: 1.3 },
        ),
      );
    }
  });

  // In-process fx.fetch GET /api/v4/user at 100k users.
  await guarded('in-process fx.fetch', async () => {
    const f = await fetchUserCost();
    rows.push(
      tableRow(
        'in-process fx.fetch GET /api/v4/user, 100k users (µs)',
        'µs',
        f.fauxlabUs,
        { baseline: f.bareUs, ratio: f.fauxlabUs / f.bareUs, failed: f.status === 200 ? 0 : 1 },
        { on: 'value', op: '<=', limit: 50 },
      ),
    );
  });

  // Start-up.
  await guarded('start-up', async () => {
    const s = await startUp();
    rows.push(
      tableRow(
        `start to first 200, empty scenario, median of ${STARTS} (ms)`,
        'ms',
        s.fauxlabMs,
        { baseline: s.bareMs, ratio: s.fauxlabMs / s.bareMs, failed: s.failed },
        { on: 'value', op: '<=', limit: 300 },
      ),
    );
  });

  // Users over HTTP: random pages and ids across the whole world.
  await guarded('users over HTTP', async () => {
    {
      const { child, message: ready } = await forkSelf<UsersReady>(SELF, ['--serve-users']);
      const b = await startBare(ready.bodies);
      try {
        const { fauxlab: fp } = ready.ports;
        const bare = b.port;
        const pages = Math.ceil(ready.users / PER_PAGE);
        const page = randomIn(pages, 11);
        const id = randomIn(ready.users, 12);
        const [list, bareList] = (await loadSet([
          {
            name: 'users page',
            port: fp,
            nextPath: () => `/api/v4/users?per_page=${PER_PAGE}&page=${page()}`,
            headers: AUTH,
          },
          { name: 'bare page', port: bare, nextPath: () => '/page' },
        ])) as [Load, Load];
        rows.push(
          loadRow(`GET /users?per_page=20, random pages 1..${fmt(pages)} / bare page`, list, bareList, {
            on: 'ratio',
            op: '>=',
            limit: 0.8,
          }),
        );
        const [one, bareOne] = (await loadSet([
          { name: 'user', port: fp, nextPath: () => `/api/v4/users/${id()}`, headers: AUTH },
          { name: 'bare user', port: bare, nextPath: () => '/user' },
        ])) as [Load, Load];
        rows.push(
          loadRow(`GET /users/:id, random ids 1..${fmt(ready.users)} / bare user`, one, bareOne, {
            on: 'ratio',
            op: '>=',
            limit: 0.9,
          }),
        );
        rows.push(rssPer100k('users', ready.users, ready.built));
      } finally {
        await stopChild(child);
        await stopChild(b.child);
      }
    }
  });

  // Projects: a fresh process, its build and RSS, then single projects and pages over HTTP.
  await guarded('projects', async () => {
    {
      const { child, message: ready } = await forkSelf<ProjectsReady>(SELF, ['--serve-projects']);
      const b = await startBare(ready.bodies);
      let rssEnd: number;
      try {
        const { fauxlab: fp, off, naive } = ready.ports;
        const bare = b.port;
        const n = ready.projects;
        const pages = Math.min(Math.ceil(n / PER_PAGE), 50_000 / PER_PAGE);
        const [idA, idB, idC, page1, page2] = [21, 22, 23, 24, 25].map((seed) => randomIn(n, seed));
        const few = randomIn(10, 26);
        const [single, singleOff, naiveL, replay, bareOne] = (await loadSet([
          { name: 'project', port: fp, nextPath: () => `/api/v4/projects/${idA!()}`, headers: AUTH },
          {
            name: 'project, cache off',
            port: off,
            nextPath: () => `/api/v4/projects/${idB!()}`,
            headers: AUTH,
          },
          { name: 'naive', port: naive, nextPath: () => `/api/v4/projects/${idC!()}` },
          { name: 'replay', port: fp, nextPath: () => `/api/v4/projects/${few() * 1000}`, headers: AUTH },
          { name: 'bare project', port: bare, nextPath: () => '/project' },
        ])) as [Load, Load, Load, Load, Load];
        const pageOf = (r: () => number) => () =>
          `/api/v4/projects?per_page=${PER_PAGE}&page=${((r() - 1) % pages) + 1}`;
        const [listOff, listOn, bareList] = (await loadSet([
          { name: 'list, cache off', port: off, nextPath: pageOf(page1!), headers: AUTH },
          { name: 'list, cache on', port: fp, nextPath: pageOf(page2!), headers: AUTH },
          { name: 'bare page', port: bare, nextPath: () => '/page' },
        ])) as [Load, Load, Load];
        rssEnd = await rssOf(child);
        rows.push(
          loadRow(`GET /projects/:id each request new (cache off), random ids / bare`, singleOff, bareOne, {
            on: 'ratio',
            op: '>=',
            limit: 0.75,
          }),
        );
        rows.push(
          tableRow(
            `${fmt(n)}-project world: build in a fresh process (ms)`,
            'ms',
            ready.built.buildMs,
            {},
            { on: 'value', op: '<=', limit: 2000 },
          ),
        );
        rows.push(
          tableRow(
            `${fmt(n)}-project world: RSS after build (MB; baseline before)`,
            'MB',
            mb(ready.built.rssAfter),
            { baseline: mb(ready.built.rssBefore), ratio: ready.built.rssAfter / ready.built.rssBefore },
            { on: 'value', op: '<=', limit: 600 },
          ),
        );
        rows.push(
          tableRow(
            `${fmt(n)}-project world: RSS after the HTTP phases (MB)`,
            'MB',
            mb(rssEnd),
            { baseline: mb(ready.built.rssBefore), ratio: rssEnd / ready.built.rssBefore },
            { on: 'value', op: '<=', limit: 600 },
          ),
        );
        rows.push(
          loadRow(`HTTP GET /projects/:id, random ids 1..${fmt(n)} / naive Hono`, single, naiveL, {
            on: 'ratio',
            op: '>=',
            limit: 1,
          }),
        );
        rows.push(
          tableRow(
            '  same, p99 (ms)',
            'ms',
            single.p99,
            { p99: single.p99, baseline: naiveL.p99 },
            {
              on: 'p99',
              op: '<=',
              limit: 20,
            },
          ),
        );
        rows.push(loadRow('  same / bare pre-serialised project', single, bareOne));
        rows.push(
          loadRow(
            `HTTP GET /projects pages 1..${fmt(pages)} at random, cache off / bare`,
            listOff,
            bareList,
            {
              on: 'ratio',
              op: '>=',
              limit: 0.7,
            },
          ),
        );
        rows.push(loadRow('  same, cache on / bare', listOn, bareList));
        rows.push(loadRow('replay: GET /projects/:id, the same 10 ids / bare', replay, bareOne));
        rows.push(rssPer100k('projects (with 5,000 users, 1,000 groups)', n, ready.built));
      } finally {
        await stopChild(child);
        await stopChild(b.child);
      }
    }
  });

  // Issues: filtered lists in a 100k-issue world.
  await guarded('issues', async () => {
    {
      const { child, message: ready } = await forkSelf<IssuesReady>(SELF, ['--serve-issues']);
      const b = await startBare(ready.bodies);
      try {
        const { fauxlab: fp, off } = ready.ports;
        const bare = b.port;
        const p1 = randomIn(ISSUE_PROJECTS, 31);
        const p2 = randomIn(ISSUE_PROJECTS, 32);
        const [on, offL, bareL] = (await loadSet([
          {
            name: 'issues',
            port: fp,
            nextPath: () => `/api/v4/projects/${p1()}/issues?${FILTERS}`,
            headers: AUTH,
          },
          {
            name: 'issues, cache off',
            port: off,
            nextPath: () => `/api/v4/projects/${p2()}/issues?${FILTERS}`,
            headers: AUTH,
          },
          { name: 'bare', port: bare, nextPath: () => '/page' },
        ])) as [Load, Load, Load];
        const k = fmt(ready.issues);
        rows.push(
          loadRow(`GET /projects/:id/issues, 3 filters, ${k} issues, cache off / bare`, offL, bareL, {
            on: 'ratio',
            op: '>=',
            limit: 0.5,
          }),
        );
        rows.push(
          loadRow('  same, cache on (100 distinct URLs) / bare', on, bareL, {
            on: 'ratio',
            op: '>=',
            limit: 0.5,
          }),
        );
        rows.push(rssPer100k('issues (with 2,000 users, 100 projects)', ready.issues, ready.built));
      } finally {
        await stopChild(child);
        await stopChild(b.child);
      }
    }
  });

  // The mixed test-suite workload over HTTP.
  await guarded('mixed HTTP', async () => {
    const m = await suiteLoad(PHASE_SECONDS, ROUNDS);
    mixedNon2xx = m.fauxlab.non2xx;
    rows.push(
      tableRow(
        'mixed HTTP: project, issue, note, update, read, list, project / bare',
        'req/s',
        m.fauxlab.rps,
        {
          p99: m.fauxlab.p99,
          baseline: m.bare.rps,
          baselineP99: m.bare.p99,
          ratio: m.fauxlab.rps / m.bare.rps,
          failed: m.fauxlab.non2xx + m.fauxlab.errors + m.bare.non2xx + m.bare.errors,
        },
      ),
    );
  });

  clearTimeout(watchdog);
  const seconds = (performance.now() - started) / 1000;
  const load1 = loadavg()[0]!;
  console.log(tableLines(rows).join('\n'));
  console.log(
    `target build ${targetDist()}; ${PHASE_SECONDS} s phases, ${CONNECTIONS} connections; ran ${fmt(seconds)} s; ` +
      `load average ${fmt(load0, 2)} at start, ${fmt(load1, 2)} at end; POST statuses ${JSON.stringify(statuses)}; ` +
      `mixed non-2xx ${mixedNon2xx}`,
  );
  console.log(
    JSON.stringify({
      bench: 'fauxlab-table',
      node: process.version,
      target: targetDist(),
      phaseSeconds: PHASE_SECONDS,
      seconds,
      loadavg: [load0, load1],
      rows,
    }),
  );
  return rows;
}

const cell = (v: number | undefined, unit: string, p99?: number) => {
  if (v === undefined || Number.isNaN(v)) return '-';
  const s = unit === 'x' ? fmt(v, 2) : unit === 'µs' ? fmt(v, 1) : fmt(v);
  return p99 === undefined ? s : `${s} p99 ${fmt(p99)}`;
};

/** The table as text: figure, value, baseline, ratio, target, ok/OVER. */
export function tableLines(rows: readonly TableRow[]): string[] {
  const w = [74, 20, 20, 7, 10, 4];
  return [
    row(['figure', 'value', 'baseline', 'ratio', 'target', ''], w),
    ...rows.map((r) =>
      row(
        [
          r.figure,
          cell(r.value, r.unit, r.unit === 'req/s' ? r.p99 : undefined),
          cell(r.baseline, r.unit === 'x' ? 'x' : r.unit, r.unit === 'req/s' ? r.baselineP99 : undefined),
          r.ratio === undefined ? '-' : fmt(r.ratio, 2),
          r.target ?? '-',
          r.failed ? 'ERR' : r.ok === undefined ? '' : r.ok ? 'ok' : 'OVER',
        ],
        w,
      ),
    ),
  ];
}

const [mode, arg] = process.argv[1] === SELF ? process.argv.slice(2) : [];
if (mode === '--serve-users') await serveUsers();
else if (mode === '--serve-bare') serveBare();
else if (mode === '--serve-projects') await serveProjects();
else if (mode === '--serve-issues') await serveIssues();
else if (mode === '--writes') await measure(() => writeCost(Number(arg)), WATCHDOG_MS);
else if (mode === '--growth') await measure(() => growthCost(arg ?? 'projects'), WATCHDOG_MS);
else if (process.argv[1] === SELF) {
  const t = process.argv.indexOf('--target');
  if (t > 0 && process.argv[t + 1]) process.env.FAUXLAB_BENCH_TARGET = process.argv[t + 1];
  await runTable();
}
