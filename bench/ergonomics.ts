/**
 * Benchmarks of the test ergonomics (`npm run bench` runs them after the load phases; `node
 * dist/bench/ergonomics.js` alone): instances created per process, the request journal's cost per
 * request and its memory after 100,000 requests. Each measurement runs in a fresh child process with
 * `--expose-gc`, so that one phase's heap does not skew another's.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createFauxlab, type Fauxlab, type ScenarioFile } from '../src/index.js';

const SELF = fileURLToPath(import.meta.url);
const INSTANCES = 1000;
const JOURNAL_REQUESTS = Number(process.env.FAUXLAB_BENCH_JOURNAL_REQUESTS ?? 100_000);
const OVERHEAD_CALLS = 5000;
const TOKEN = 'bench-token';

/** The "small scenario" of the isolation figure: two users, a group, a project. */
const SMALL: ScenarioFile = {
  now: '2021-03-01T12:00:00Z',
  users: [
    { username: 'root', admin: true, tokens: [{ token: TOKEN, scopes: ['api', 'sudo'] }] },
    { username: 'alice', tokens: [{ token: 'alice-token' }] },
  ],
  groups: [{ path: 'acme', members: [{ username: 'alice', access_level: 'owner' }] }],
  projects: [{ path: 'acme/app', visibility: 'internal' }],
};

const gc = () => (globalThis as { gc?: () => void }).gc?.();
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const mb = (b: number) => Math.round((b / 1048576) * 10) / 10;
const get = (fx: Fauxlab, path: string) =>
  fx.fetch(new Request(`http://bench.test${path}`, { headers: { 'PRIVATE-TOKEN': TOKEN } }));

interface InstancesResult {
  count: number;
  createMs: number;
  firstRequestMs: number;
  heapPerInstanceKB: number;
  /** Memory outside the JS heap (ArrayBuffers and the like) per instance. */
  externalPerInstanceKB: number;
  ownTableCount: number;
  ownTableCreateMs: number;
}

/** 1,000 instances with the small scenario: creation time, first request each, heap per instance. */
async function instances(): Promise<InstancesResult> {
  // Warm up the shared route table and the code paths once, as any test suite's first instance does.
  await (await get(createFauxlab({ scenario: SMALL }), '/api/v4/user')).text();
  const before = heap();
  const externalBefore = process.memoryUsage().external;
  const t0 = performance.now();
  const all: Fauxlab[] = [];
  for (let i = 0; i < INSTANCES; i++) all.push(createFauxlab({ scenario: SMALL }));
  const createMs = performance.now() - t0;
  const t1 = performance.now();
  for (const fx of all) await (await get(fx, '/api/v4/user')).text();
  const firstRequestMs = performance.now() - t1;
  const heapPerInstanceKB = Math.round((heap() - before) / INSTANCES / 102.4) / 10;
  // After heap()'s collections: what the instances still hold.
  const externalPerInstanceKB =
    Math.round((process.memoryUsage().external - externalBefore) / INSTANCES / 102.4) / 10;
  // For comparison: instances with extra routes build a route table of their own.
  const own = 100;
  const t2 = performance.now();
  for (let i = 0; i < own; i++) createFauxlab({ scenario: SMALL, routes: () => {} });
  const ownTableCreateMs = performance.now() - t2;
  return {
    count: INSTANCES,
    createMs,
    firstRequestMs,
    heapPerInstanceKB,
    externalPerInstanceKB,
    ownTableCount: own,
    ownTableCreateMs,
  };
}

interface JournalMemoryResult {
  requests: number;
  entries: number;
  capacity: number;
  heapBeforeMB: number;
  heapAt10kMB: number;
  heapAfterMB: number;
  perRequestUs: number;
}

/** 100,000 requests (reads, writes with bodies, 404s) into the default 1,000-entry journal. */
async function journalMemory(): Promise<JournalMemoryResult> {
  const fx = createFauxlab({ scenario: SMALL });
  const body = JSON.stringify({ bio: 'b'.repeat(2000), password: 'not-recorded' });
  const call = (i: number) => {
    const kind = i % 4;
    if (kind === 0) return get(fx, '/api/v4/users/1');
    if (kind === 1) return get(fx, `/api/v4/users?per_page=20&page=${i % 7}`);
    if (kind === 2) return get(fx, `/api/v4/nothing/${i}`);
    return fx.fetch(
      new Request('http://bench.test/api/v4/users/2', {
        method: 'PUT',
        headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' },
        body,
      }),
    );
  };
  for (let i = 0; i < 2000; i++) await (await call(i)).text();
  const heapBefore = heap();
  let heapAt10k = 0;
  const t0 = performance.now();
  for (let i = 0; i < JOURNAL_REQUESTS; i++) {
    await (await call(i)).text();
    if (i === 9_999) heapAt10k = heap();
  }
  const perRequestUs = ((performance.now() - t0) * 1000) / JOURNAL_REQUESTS;
  return {
    requests: JOURNAL_REQUESTS,
    entries: fx.requests.size,
    capacity: fx.requests.capacity,
    heapBeforeMB: mb(heapBefore),
    heapAt10kMB: mb(heapAt10k),
    heapAfterMB: mb(heap()),
    perRequestUs,
  };
}

interface OverheadResult {
  getOnUs: number;
  getOffUs: number;
  putOnUs: number;
  putOffUs: number;
}

/** µs per sequential `fetch` with the journal on (default) and off, for a read and a write. */
async function overhead(): Promise<OverheadResult> {
  const on = createFauxlab({ scenario: SMALL });
  const off = createFauxlab({ scenario: SMALL, journal: false });
  const put = (fx: Fauxlab) =>
    fx.fetch(
      new Request('http://bench.test/api/v4/users/2', {
        method: 'PUT',
        headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' },
        body: '{"bio":"hello"}',
      }),
    );
  const time = async (call: () => Promise<Response>) => {
    for (let i = 0; i < 500; i++) await (await call()).text();
    const t0 = performance.now();
    for (let i = 0; i < OVERHEAD_CALLS; i++) await (await call()).text();
    return ((performance.now() - t0) * 1000) / OVERHEAD_CALLS;
  };
  // Interleaved rounds, best of three: the two sides see the same machine noise.
  const best = async (call: () => Promise<Response>) =>
    Math.min(await time(call), await time(call), await time(call));
  return {
    getOnUs: await best(() => get(on, '/api/v4/users/1')),
    getOffUs: await best(() => get(off, '/api/v4/users/1')),
    putOnUs: await best(() => put(on)),
    putOffUs: await best(() => put(off)),
  };
}

function inChild<T>(mode: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(SELF, ['--ergonomics-child', mode], {
      execArgv: [...process.execArgv, '--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve(m as T);
      child.kill();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`ergonomics bench child ${mode} exited early (code ${code})`));
    });
  });
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** Runs every ergonomics measurement and prints a table and a JSON line. */
export async function runErgonomics(): Promise<void> {
  const inst = await inChild<InstancesResult>('instances');
  const over = await inChild<OverheadResult>('overhead');
  const mem = await inChild<JournalMemoryResult>('journal');
  const lines = [
    '',
    'test ergonomics (in process)',
    `  ${fmt(inst.count)} instances, small scenario: created in ${fmt(inst.createMs)} ms ` +
      `(${fmt((inst.createMs * 1000) / inst.count)} µs each), first request on each ${fmt(inst.firstRequestMs)} ms, ` +
      `~${fmt(inst.heapPerInstanceKB, 1)} KB heap and ${fmt(inst.externalPerInstanceKB, 1)} KB outside it each`,
    `  with an own route table (routes option): ${fmt((inst.ownTableCreateMs * 1000) / inst.ownTableCount)} µs per instance`,
    `  journal cost, GET /api/v4/users/1: ${fmt(over.getOnUs, 1)} µs on, ${fmt(over.getOffUs, 1)} µs off ` +
      `(+${fmt(over.getOnUs - over.getOffUs, 1)} µs)`,
    `  journal cost, PUT /api/v4/users/2 (JSON body): ${fmt(over.putOnUs, 1)} µs on, ${fmt(over.putOffUs, 1)} µs off ` +
      `(+${fmt(over.putOnUs - over.putOffUs, 1)} µs)`,
    `  journal memory: ${fmt(mem.requests)} requests (${fmt(mem.perRequestUs, 1)} µs each) -> ${fmt(mem.entries)} entries ` +
      `(cap ${fmt(mem.capacity)}); heap ${mem.heapBeforeMB} MB before, ${mem.heapAt10kMB} MB at 10,000, ${mem.heapAfterMB} MB after`,
  ];
  console.log(lines.join('\n'));
  console.log(
    JSON.stringify({
      bench: 'fauxlab-ergonomics',
      instances: inst,
      journalOverhead: over,
      journalMemory: mem,
    }),
  );
}

const [flag, mode] = process.argv.slice(2);
if (flag === '--ergonomics-child') {
  const run = { instances, journal: journalMemory, overhead }[mode as 'instances' | 'journal' | 'overhead'];
  process.send!(await run());
} else if (process.argv[1] === SELF) {
  await runErgonomics();
}
