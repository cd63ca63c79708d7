/**
 * What a test suite does to an instance, measured next to a bare baseline in the same run (`npm run
 * bench` runs it after the users and projects phases; `FAUXLAB_BENCH_ONLY=mixed` alone):
 *
 * - a mixed workload over HTTP: creates, updates and reads interleaved on every connection (create a
 *   user, read it back, update it, read a page of users, read a user at random), req/s and p99, next to
 *   a bare Hono server answering the same number of requests with pre-serialised bodies;
 * - the same over projects and issues, each connection on what it created (create a project, an issue
 *   in it, a note on it, update the issue, read it, list the issues, read the project) in a world of
 *   1,000 projects, next to the same bare baseline;
 * - the in-process `fx.fetch` cost of `GET /api/v4/user` in a world of 100,000 users, next to a bare
 *   Hono `fetch` sending the same bytes.
 *
 * Bounded: the load phase lasts FAUXLAB_BENCH_SECONDS (default 5) on 127.0.0.1 only, the servers live
 * in a child process that is stopped at the end, and every measurement stops by itself.
 */
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { fmt, forkSelf, gc, inChild, measure, row, serveUntilStopped, stopChild } from './report.js';
import { fauxlab, listenBare, listenFauxlab } from './target.js';

const SELF = fileURLToPath(import.meta.url);
const PHASE_SECONDS = Number(process.env.FAUXLAB_BENCH_SECONDS ?? 5);
const USERS = Number(process.env.FAUXLAB_BENCH_USERS ?? 100_000);
const CONNECTIONS = 50;
const FETCHES = 5_000;
const NOW = '2021-03-01T12:00:00.000Z';
const TOKEN = 'bench-admin-token';
const AUTH = { 'PRIVATE-TOKEN': TOKEN };
const WATCHDOG_MS = (PHASE_SECONDS * 10 + 300) * 1000;

const world = async () =>
  (await fauxlab()).createFauxlab({
    scenario: {
      now: NOW,
      users: [{ username: 'root', name: 'Administrator', admin: true, tokens: [{ token: TOKEN }] }],
      generate: { users: USERS - 1 },
    },
  });

/** A seeded xorshift: ids and pages drawn at random across the whole world, the same every run. */
export function randomIn(n: number, seed = 0x9e3779b9): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return ((x >>> 0) % n) + 1;
  };
}

interface MixedReady {
  ports: { fauxlab: number; bare: number };
}

/** Child: the 100k-user world and the bare baseline, served until stopped. */
async function serveMixed(): Promise<void> {
  setTimeout(() => process.exit(3), WATCHDOG_MS).unref();
  process.on('disconnect', () => process.exit(0));
  const fx = await world();
  gc();
  const user = await (await fx.app.request('/api/v4/users/4242', { headers: AUTH })).text();
  const page = await (await fx.app.request('/api/v4/users?per_page=20&page=7', { headers: AUTH })).text();
  const a = await listenFauxlab(fx.app.fetch);
  const b = await listenBare({ user, page });
  serveUntilStopped({ ports: { fauxlab: a.port, bare: b.port } } satisfies MixedReady, [a.server, b.server]);
}

export interface Mixed {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function mixedLoad(port: number, steps: autocannon.Request[], seconds = PHASE_SECONDS): Promise<Mixed> {
  const r = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { ...AUTH, 'content-type': 'application/json' },
    requests: steps,
  });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

/** The test-suite sequence each connection repeats: create, read back, update, list, read another. */
function suiteSteps(): autocannon.Request[] {
  let n = 0;
  const id = randomIn(USERS);
  const page = randomIn(USERS / 20);
  let created = 0;
  return [
    {
      method: 'POST',
      path: '/api/v4/users',
      setupRequest: (req) => {
        const k = ++n;
        return {
          ...req,
          body: JSON.stringify({
            username: `mixed${k}`,
            name: `Mixed ${k}`,
            email: `mixed${k}@example.com`,
            password: 'bench-password-123',
            skip_confirmation: true,
          }),
        };
      },
      onResponse: (status, body) => {
        if (status === 201) created = (JSON.parse(body) as { id: number }).id;
      },
    },
    { method: 'GET', setupRequest: (req) => ({ ...req, path: `/api/v4/users/${created || 1}` }) },
    {
      method: 'PUT',
      setupRequest: (req) => ({
        ...req,
        path: `/api/v4/users/${created || 1}`,
        body: JSON.stringify({ bio: `bio ${++n}` }),
      }),
    },
    { method: 'GET', setupRequest: (req) => ({ ...req, path: `/api/v4/users?per_page=20&page=${page()}` }) },
    { method: 'GET', setupRequest: (req) => ({ ...req, path: `/api/v4/users/${id()}` }) },
  ];
}

/** The bare baseline's sequence: as many requests, same methods, pre-serialised bodies. */
const bareSteps = (): autocannon.Request[] => [
  { method: 'POST', path: '/user', body: '{}' },
  { method: 'GET', path: '/user' },
  { method: 'PUT', path: '/user', body: '{}' },
  { method: 'GET', path: '/page' },
  { method: 'GET', path: '/user' },
];

/**
 * The test-suite sequence over projects and issues each connection repeats, each on what it created
 * (autocannon's per-connection context): create a project, create an issue in it, add a note, update
 * the issue, read it, list the project's issues, read the project.
 */
interface SuiteContext {
  pid?: number;
  iid?: number;
}

const SUITE_PROJECTS = 1_000;

/** Names stay unique across the slices of a run (a taken project name answers 400). */
let suiteSeq = 0;

function projectSteps(): autocannon.Request[] {
  const ctx = (c: object) => c as SuiteContext;
  const pid = (c: object) => ctx(c).pid ?? 1;
  const iid = (c: object) => ctx(c).iid ?? 1;
  const json = (body: string) => JSON.parse(body) as { id?: number; iid?: number };
  return [
    {
      method: 'POST',
      path: '/api/v4/projects',
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ name: `suite-${++suiteSeq}` }) }),
      onResponse: (status, body, c) => {
        if (status === 201) ctx(c).pid = json(body).id;
      },
    },
    {
      method: 'POST',
      setupRequest: (req, c) => ({
        ...req,
        path: `/api/v4/projects/${pid(c)}/issues`,
        body: JSON.stringify({ title: `Suite issue ${++suiteSeq}`, labels: 'bug' }),
      }),
      onResponse: (status, body, c) => {
        if (status === 201) ctx(c).iid = json(body).iid;
      },
    },
    {
      method: 'POST',
      setupRequest: (req, c) => ({
        ...req,
        path: `/api/v4/projects/${pid(c)}/issues/${iid(c)}/notes`,
        body: JSON.stringify({ body: `note ${++suiteSeq}` }),
      }),
    },
    {
      method: 'PUT',
      setupRequest: (req, c) => ({
        ...req,
        path: `/api/v4/projects/${pid(c)}/issues/${iid(c)}`,
        body: JSON.stringify({ description: `updated ${++suiteSeq}`, labels: 'bug,doing' }),
      }),
    },
    {
      method: 'GET',
      setupRequest: (req, c) => ({ ...req, path: `/api/v4/projects/${pid(c)}/issues/${iid(c)}` }),
    },
    { method: 'GET', setupRequest: (req, c) => ({ ...req, path: `/api/v4/projects/${pid(c)}/issues` }) },
    { method: 'GET', setupRequest: (req, c) => ({ ...req, path: `/api/v4/projects/${pid(c)}` }) },
  ];
}

/** The bare baseline's project sequence: as many requests, same methods, the bodies fauxlab sent. */
const bareProjectSteps = (): autocannon.Request[] => [
  { method: 'POST', path: '/project', body: '{}' },
  { method: 'POST', path: '/issue', body: '{}' },
  { method: 'POST', path: '/note', body: '{}' },
  { method: 'PUT', path: '/issue', body: '{}' },
  { method: 'GET', path: '/issue' },
  { method: 'GET', path: '/issues' },
  { method: 'GET', path: '/project' },
];

/** Child: a test suite's world (1,000 projects, two issues each) and the bare baseline, until stopped. */
async function serveSuite(): Promise<void> {
  setTimeout(() => process.exit(3), WATCHDOG_MS).unref();
  process.on('disconnect', () => process.exit(0));
  const fx = (await fauxlab()).createFauxlab({
    scenario: {
      now: NOW,
      users: [{ username: 'root', name: 'Administrator', admin: true, tokens: [{ token: TOKEN }] }],
      generate: { users: 1_000, groups: 50, projects: SUITE_PROJECTS, issues_per_project: 2 },
    },
  });
  gc();
  // The bodies of one pass of the sequence, for the bare server to send.
  const call = async (method: string, path: string, body?: object) =>
    (
      await fx.app.request(path, {
        method,
        headers: { ...AUTH, 'content-type': 'application/json' },
        ...(body && { body: JSON.stringify(body) }),
      })
    ).text();
  const project = await call('POST', '/api/v4/projects', { name: 'suite-probe' });
  const pid = (JSON.parse(project) as { id: number }).id;
  const issue = await call('POST', `/api/v4/projects/${pid}/issues`, { title: 'probe', labels: 'bug' });
  const iid = (JSON.parse(issue) as { iid: number }).iid;
  const note = await call('POST', `/api/v4/projects/${pid}/issues/${iid}/notes`, { body: 'probe' });
  const issues = await call('GET', `/api/v4/projects/${pid}/issues`);
  const a = await listenFauxlab(fx.app.fetch);
  const b = await listenBare({ project, issue, note, issues });
  serveUntilStopped({ ports: { fauxlab: a.port, bare: b.port } } satisfies MixedReady, [a.server, b.server]);
}

/**
 * The project/issue suite over HTTP, in `slices` alternating slices of `seconds` in all per target:
 * req/s over the measured time, p50 the median slice's, p99 the worst slice's.
 */
export async function suiteLoad(seconds: number, slices = 2): Promise<{ fauxlab: Mixed; bare: Mixed }> {
  const { child, message } = await forkSelf<MixedReady>(SELF, ['--serve-suite']);
  const slice = Math.max(1, Math.round(seconds / slices));
  const acc = { fauxlab: [] as Mixed[], bare: [] as Mixed[] };
  try {
    for (let i = 0; i < slices; i++) {
      acc.fauxlab.push(await mixedLoad(message.ports.fauxlab, projectSteps(), slice));
      acc.bare.push(await mixedLoad(message.ports.bare, bareProjectSteps(), slice));
    }
  } finally {
    await stopChild(child);
  }
  const merge = (ms: Mixed[]): Mixed => ({
    rps: Math.round(ms.reduce((s, m) => s + m.rps, 0) / ms.length),
    p50: ms.map((m) => m.p50).sort((x, y) => x - y)[ms.length >> 1]!,
    p99: Math.max(...ms.map((m) => m.p99)),
    non2xx: ms.reduce((s, m) => s + m.non2xx, 0),
    errors: ms.reduce((s, m) => s + m.errors, 0),
  });
  return { fauxlab: merge(acc.fauxlab), bare: merge(acc.bare) };
}

/** µs per sequential in-process call: `fx.fetch` GET /api/v4/user at USERS users, and bare Hono. */
async function fetchCost(): Promise<{ fauxlabUs: number; bareUs: number; status: number }> {
  const fx = await world();
  const url = 'http://gitlab.bench/api/v4/user';
  const body = await (await fx.fetch(new Request(url, { headers: AUTH }))).text();
  const bare = new Hono();
  bare.get('/api/v4/user', (c) => c.body(body, 200, { 'Content-Type': 'application/json' }));
  const time = async (call: () => Promise<Response>) => {
    for (let i = 0; i < 500; i++) await (await call()).text();
    const t0 = performance.now();
    for (let i = 0; i < FETCHES; i++) await (await call()).text();
    return ((performance.now() - t0) * 1000) / FETCHES;
  };
  const status = (await fx.fetch(new Request(url, { headers: AUTH }))).status;
  // Alternating halves, so that a burst of other work weighs on both alike.
  let fauxlabUs = 0;
  let bareUs = 0;
  for (let r = 0; r < 2; r++) {
    fauxlabUs += (await time(() => fx.fetch(new Request(url, { headers: AUTH })))) / 2;
    bareUs += (await time(async () => bare.fetch(new Request(url, { headers: AUTH })))) / 2;
  }
  return { fauxlabUs, bareUs, status };
}

/** The mixed-workload and in-process figures, as report lines and JSON. */
export async function runMixed(): Promise<void> {
  const { child, message } = await forkSelf<MixedReady>(SELF, ['--serve-mixed']);
  let mixed: Mixed;
  let bare: Mixed;
  try {
    mixed = await mixedLoad(message.ports.fauxlab, suiteSteps());
    bare = await mixedLoad(message.ports.bare, bareSteps());
  } finally {
    await stopChild(child);
  }
  const suite = await suiteLoad(PHASE_SECONDS);
  const f = await inChild<Awaited<ReturnType<typeof fetchCost>>>(SELF, ['--fetch-user']);
  const w = [52, 9, 8, 8, 8, 7];
  console.log(
    [
      '',
      row(['mixed workload over HTTP (autocannon)', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'], w),
      row(
        [
          'create, read, update, list, read a user (fauxlab)',
          fmt(mixed.rps),
          mixed.p50,
          mixed.p99,
          fmt(mixed.non2xx),
          mixed.errors,
        ],
        w,
      ),
      row(
        [
          'same methods, pre-serialised (bare Hono)',
          fmt(bare.rps),
          bare.p50,
          bare.p99,
          fmt(bare.non2xx),
          bare.errors,
        ],
        w,
      ),
      row(['  ratio mixed / bare', fmt(mixed.rps / bare.rps, 3)], w),
      row(
        [
          'project, issue, note, update, read, list, project',
          fmt(suite.fauxlab.rps),
          suite.fauxlab.p50,
          suite.fauxlab.p99,
          fmt(suite.fauxlab.non2xx),
          suite.fauxlab.errors,
        ],
        w,
      ),
      row(
        [
          'same methods, pre-serialised (bare Hono)',
          fmt(suite.bare.rps),
          suite.bare.p50,
          suite.bare.p99,
          fmt(suite.bare.non2xx),
          suite.bare.errors,
        ],
        w,
      ),
      row(['  ratio project suite / bare', fmt(suite.fauxlab.rps / suite.bare.rps, 3)], w),
      row([`in-process fetch GET /api/v4/user, ${fmt(USERS)} users (µs)`, fmt(f.fauxlabUs, 1)], w),
      row(['bare Hono fetch, same bytes (µs)', fmt(f.bareUs, 1)], w),
    ].join('\n'),
  );
  console.log(
    JSON.stringify({ bench: 'fauxlab-mixed', node: process.version, mixed, bare, suite, fetchUser: f }),
  );
}

/** The in-process `fx.fetch` figure, measured in a fresh child. */
export const fetchUserCost = () => inChild<Awaited<ReturnType<typeof fetchCost>>>(SELF, ['--fetch-user']);

// Run as a script (or as a forked child of one); imported by run.ts and table.ts, do nothing on load.
const [mode] = process.argv[1] === SELF ? process.argv.slice(2) : [];
if (mode === '--serve-mixed') await serveMixed();
else if (mode === '--serve-suite') await serveSuite();
else if (mode === '--fetch-user') await measure(fetchCost, WATCHDOG_MS);
else if (process.argv[1] === SELF) await runMixed();
