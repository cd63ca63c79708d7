/**
 * The default configuration first (`npm run bench`, or `FAUXLAB_BENCH_ONLY=journal`): a 100,000-project
 * world served as the CLI serves it (the request journal of 1,000 entries on, the response cache on),
 * each figure beside the same build with the journal off over the same state, a naive Hono handler over
 * the same records (`JSON.stringify` of the stored records per request) and a bare server sending one
 * answer's bytes, all in the same run and the same process; then the serving process's RSS with the
 * journal full. Random pages 1..2,500 and random ids, a new URL for every request.
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  fmt,
  forkSelf,
  gc,
  listen,
  loadSet,
  mb,
  row,
  stopChild,
  type Load,
  type LoadTarget,
} from './report.js';
import { randomIn } from './mixed.js';
import { fauxlab, listenBare, listenFauxlab, projectRecords, targetHttp } from './target.js';

const PHASE_SECONDS = Number(process.env.FAUXLAB_BENCH_SECONDS ?? 5);
const PROJECTS = Number(process.env.FAUXLAB_BENCH_PROJECTS ?? 100_000);
const ROUNDS = Math.max(1, Number(process.env.FAUXLAB_BENCH_ROUNDS ?? 5));
const CONNECTIONS = 50;
const PER_PAGE = 20;
const NOW = '2021-03-01T12:00:00.000Z';
const ADMIN_TOKEN = 'bench-admin-token';
const AUTH = { 'PRIVATE-TOKEN': ADMIN_TOKEN };
const ADMIN = { username: 'root', name: 'Administrator', admin: true, tokens: [{ token: ADMIN_TOKEN }] };
const JSON_TYPE = { 'Content-Type': 'application/json' };
const WATCHDOG_MS = (PHASE_SECONDS * 40 + 300) * 1000;
const SELF = fileURLToPath(import.meta.url);

interface Ready {
  projects: number;
  rssBuilt: number;
  ports: { defaults: number; off: number; naive: number; bare: number };
}

interface Memory {
  rss: number;
  entries: number;
}

/** Child: the world, its two instances, the naive handler and the bare server. */
async function serve(): Promise<void> {
  setTimeout(() => process.exit(3), WATCHDOG_MS).unref();
  process.on('disconnect', () => process.exit(0));
  const { createFauxlab } = await fauxlab();
  const fx = createFauxlab({
    scenario: { now: NOW, users: [ADMIN], generate: { users: 5_000, groups: 1_000, projects: PROJECTS } },
  });
  // The same world with the journal off: a snapshot is the (immutable) state itself.
  const off = createFauxlab({ scenario: { now: NOW }, journal: false });
  off.restore(fx.snapshot());
  const records = await projectRecords(fx.state);
  // The API's order for an admin's list: newest first.
  const newest = [...records.values()].reverse();
  const http = await targetHttp();
  const naive = new http.Hono();
  naive.get('/api/v4/projects/:id', (c) => {
    const rec = records.get(Number(c.req.param('id')));
    return rec
      ? c.body(JSON.stringify(rec), 200, JSON_TYPE)
      : c.body('{"message":"404 Project Not Found"}', 404, JSON_TYPE);
  });
  naive.get('/api/v4/projects', (c) => {
    const page = Math.max(1, Number(c.req.query('page') ?? 1));
    const per = Math.max(1, Number(c.req.query('per_page') ?? 20));
    return c.body(JSON.stringify(newest.slice((page - 1) * per, page * per)), 200, {
      ...JSON_TYPE,
      'X-Page': String(page),
      'X-Per-Page': String(per),
      'X-Total': String(newest.length),
    });
  });
  const get = async (path: string) => (await off.app.request(path, { headers: AUTH })).text();
  const a = await listenFauxlab(fx.app.fetch);
  const o = await listenFauxlab(off.app.fetch);
  const n = await listen(naive.fetch, http.serve);
  const b = await listenBare({
    page: await get(`http://127.0.0.1:${a.port}/api/v4/projects?per_page=${PER_PAGE}&page=7`),
    project: await get(`http://127.0.0.1:${a.port}/api/v4/projects/4242`),
  });
  gc();
  const servers = [a.server, o.server, n.server, b.server];
  process.send!({
    projects: records.size,
    rssBuilt: process.memoryUsage().rss,
    ports: { defaults: a.port, off: o.port, naive: n.port, bare: b.port },
  } satisfies Ready);
  process.on('message', (m) => {
    if (m === 'memory') {
      gc();
      process.send!({ rss: process.memoryUsage().rss, entries: fx.requests.size } satisfies Memory);
    }
    if (m !== 'stop') return;
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
    process.exit(0);
  });
}

const load = (l: Load) => `${fmt(l.rps)} req/s, p99 ${l.p99} ms${l.non2xx || l.errors ? ' (ERR)' : ''}`;
const ratio = (a: Load, b: Load) => fmt(a.rps / b.rps, 2);

/** The part's lines and figures. */
export async function runJournal(): Promise<{ lines: string[]; json: unknown }> {
  const load0 = loadavg()[0]!;
  const { child, message: ready } = await forkSelf<Ready>(SELF, ['--serve-journal']);
  let lists: Load[];
  let singles: Load[];
  let memory: Memory;
  try {
    const { defaults, off, naive, bare } = ready.ports;
    const pages = Math.min(Math.ceil(ready.projects / PER_PAGE), 50_000 / PER_PAGE);
    const page = randomIn(pages, 0x51ed);
    const id = randomIn(ready.projects, 0x1d5);
    const pagePath = () => `/api/v4/projects?per_page=${PER_PAGE}&page=${page()}`;
    const idPath = () => `/api/v4/projects/${id()}`;
    const set = (targets: LoadTarget[]) =>
      loadSet({ connections: CONNECTIONS, seconds: PHASE_SECONDS, rounds: ROUNDS }, targets);
    lists = await set([
      { name: 'defaults', port: defaults, nextPath: pagePath, headers: AUTH, warm: pages },
      { name: 'journal off', port: off, nextPath: pagePath, headers: AUTH, warm: pages },
      { name: 'naive', port: naive, nextPath: pagePath },
      { name: 'bare', port: bare, nextPath: () => '/page' },
    ]);
    singles = await set([
      { name: 'defaults', port: defaults, nextPath: idPath, headers: AUTH },
      { name: 'journal off', port: off, nextPath: idPath, headers: AUTH },
      { name: 'naive', port: naive, nextPath: idPath },
      { name: 'bare', port: bare, nextPath: () => '/project' },
    ]);
    child.send('memory');
    memory = await new Promise<Memory>((resolve) => child.once('message', (m) => resolve(m as Memory)));
  } finally {
    await stopChild(child);
  }
  const load1 = loadavg()[0]!;
  const [l, lOff, lNaive, lBare] = lists as [Load, Load, Load, Load];
  const [s, sOff, sNaive, sBare] = singles as [Load, Load, Load, Load];
  const w = [44, 30, 30, 30, 30];
  const lines = [
    `defaults (journal of 1,000 on, response cache on), ${fmt(ready.projects)} projects, load average ${fmt(load0, 1)}-${fmt(load1, 1)}:`,
    row(['', 'defaults', 'journal off', 'naive Hono handler', 'bare pre-serialised'], w),
    row([`GET /projects?per_page=${PER_PAGE}&page=N`, load(l), load(lOff), load(lNaive), load(lBare)], w),
    row(['GET /projects/:id', load(s), load(sOff), load(sNaive), load(sBare)], w),
    row(
      ['  ratio defaults / journal off (target 0.9)', `pages ${ratio(l, lOff)}`, `ids ${ratio(s, sOff)}`],
      w,
    ),
    row(
      ['  ratio defaults / naive (target 2 / 1)', `pages ${ratio(l, lNaive)}`, `ids ${ratio(s, sNaive)}`],
      w,
    ),
    row(['  ratio defaults / bare', `pages ${ratio(l, lBare)}`, `ids ${ratio(s, sBare)}`], w),
    `  RSS ${mb(ready.rssBuilt)} MB built, ${mb(memory.rss)} MB after the phases with ${fmt(memory.entries)} journal entries (target 700)`,
  ];
  return {
    lines,
    json: {
      loadAverage: [load0, load1],
      lists: Object.fromEntries(lists.map((x) => [x.name, x])),
      singles: Object.fromEntries(singles.map((x) => [x.name, x])),
      rssBuiltMB: mb(ready.rssBuilt),
      rssAfterMB: mb(memory.rss),
      journalEntries: memory.entries,
    },
  };
}

if (process.argv[2] === '--serve-journal') void serve();
