/**
 * `npm run load`: load with writes, then proof that nothing was lost. Soak mode: the same with
 * writes that do not grow the data, for ten minutes, to show memory stays flat.
 *
 * A fauxlab server on 127.0.0.1 (an ephemeral port, nothing else) takes 50 keep-alive connections of
 * mixed reads and writes (create issues, create notes, star/unstar, create/delete variables) for a fixed
 * duration, then stops by itself. Every acknowledged write is recorded by the client; afterwards the
 * script checks that each one is in the state, that refused ones are not, and that the counters the API
 * serves (star_count, open_issues_count, user_notes_count) and the iids (1..n, no gaps, no duplicates)
 * agree with the records. Memory (heap after GC when run with --expose-gc) is sampled throughout.
 *
 * Soak mode (FAUXLAB_LOAD_MODE=soak, default 600 s): every write is undone or overwrites a fixed record
 * (an issue created then deleted, a note created then deleted, star then unstar, a fixed set of
 * variables updated), so the state keeps its size; heap (after a full GC: run node with --expose-gc) and
 * RSS are sampled every minute, and the run reports whether they stayed flat after the first minute.
 *
 * Environment: FAUXLAB_LOAD_MODE (`load` or `soak`), FAUXLAB_LOAD_SECONDS (default 60, soak 600),
 * FAUXLAB_LOAD_CONNECTIONS (default 50). Exit code 1 if any check fails (a soak whose memory grows too).
 */
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createFauxlab } from '../src/index.js';
import { tvalues } from '../src/core/table.js';

const SOAK = process.env.FAUXLAB_LOAD_MODE === 'soak';
const SECONDS = Number(process.env.FAUXLAB_LOAD_SECONDS ?? (SOAK ? 600 : 60));
const CONNECTIONS = Number(process.env.FAUXLAB_LOAD_CONNECTIONS ?? 50);
const PROJECTS = ['load/alpha', 'load/beta', 'load/gamma', 'load/delta'];
/** Each soak worker's own variable in every project, which it only ever updates. */
const soakKey = (i: number) => `SOAK_W${i}`;

const users = Array.from({ length: CONNECTIONS }, (_, i) => ({
  username: `worker${i}`,
  tokens: [{ token: `worker${i}-token`, scopes: ['api' as const] }],
}));
const fx = createFauxlab({
  scenario: {
    users: [{ username: 'root', admin: true, tokens: [{ token: 'root-token', scopes: ['api'] }] }, ...users],
    groups: [
      {
        path: 'load',
        visibility: 'public',
        // Soak workers delete the issues they create: that is the owner's right.
        members: users.map((u) => ({
          username: u.username,
          access_level: SOAK ? ('owner' as const) : ('maintainer' as const),
        })),
      },
    ],
    projects: PROJECTS.map((path) => ({
      path,
      visibility: 'public' as const,
      ...(SOAK && {
        // A fixed issue for the notes, and a fixed variable per worker.
        issues: [{ title: 'Soak notes', author: 'root' }],
        variables: users.map((_, i) => ({ key: soakKey(i), value: 'initial' })),
      }),
    })),
  },
  // The load test's own bookkeeping is the check; a journal would only cost memory.
  journal: false,
});

const server = serve({ fetch: fx.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
const port = (server.address() as AddressInfo).port;
const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });

interface Reply {
  status: number;
  body: unknown;
}

function send(method: string, path: string, token: string, body?: unknown): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: `/api/v4${path}`,
        agent,
        headers: {
          'PRIVATE-TOKEN': token,
          ...(payload !== undefined && {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(payload),
          }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            body: text === '' ? undefined : (JSON.parse(text) as unknown),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** What the clients were told happened. */
const acked = {
  issues: [] as { project: string; id: number; iid: number }[],
  notes: [] as { project: string; iid: number; id: number }[],
  variables: new Map<string, string>(), // `${project} ${key}` -> value, for variables acknowledged and not deleted
  deletedVariables: new Set<string>(),
  /** Per `${project} ${user}`: starred after the last acknowledged star/unstar. */
  stars: new Map<string, boolean>(),
};
/** Acknowledged iids per project, and each worker's live variable keys, for picking targets cheaply. */
const iidsBy = new Map<string, number[]>(PROJECTS.map((p) => [p, []]));
const varsBy = new Map<number, string[]>();
const counts = { requests: 0, reads: 0, writes: 0, errors: 0, unexpected: [] as string[] };
/** A fixed-size uniform sample of the latencies (reservoir sampling), so that a soak does not grow it. */
const RESERVOIR = 100_000;
const latencies: number[] = [];
let latencySeen = 0;
let reservoirSeed = 12345;
function recordLatency(ms: number): void {
  latencySeen++;
  if (latencies.length < RESERVOIR) latencies.push(ms);
  else {
    reservoirSeed = (reservoirSeed * 1664525 + 1013904223) >>> 0;
    const k = reservoirSeed % latencySeen;
    if (k < RESERVOIR) latencies[k] = ms;
  }
}
/** What the soak clients were told: counts only, and the last value of each fixed variable. */
const soak = {
  issuesCreated: 0,
  issuesDeleted: 0,
  notesCreated: 0,
  notesDeleted: 0,
  variableUpdates: 0,
  variables: new Map<string, string>(), // `${project} ${key}` -> last acknowledged value
};
const enc = encodeURIComponent;
const pick = <T>(a: readonly T[], r: number) => a[Math.floor(r * a.length)]!;

/** Whether a reply has one of the statuses expected; an unexpected one is counted and the first 20 kept. */
function answered(r: Reply, ok: readonly number[], what: string): boolean {
  if (ok.includes(r.status)) return true;
  counts.errors++;
  if (counts.unexpected.length < 20) counts.unexpected.push(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return false;
}

/** One read of the mix both modes make: the project, its issues, an issue's notes or its variables. */
function readOnce(P: string, token: string, which: number): Promise<Reply> {
  if (which < 0.25) return send('GET', P, token);
  if (which < 0.5) return send('GET', `${P}/issues?per_page=20`, token);
  if (which < 0.75) return send('GET', `${P}/issues/1/notes`, token);
  return send('GET', `${P}/variables`, token);
}

/** A deterministic generator per worker, so that runs are comparable. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

async function worker(i: number, until: number): Promise<void> {
  const token = `worker${i}-token`;
  const user = `worker${i}`;
  const rand = rng(i + 1);
  let n = 0;
  const expect = (r: Reply, ok: number[], what: string) => answered(r, ok, what);
  while (Date.now() < until) {
    const project = pick(PROJECTS, rand());
    const P = `/projects/${enc(project)}`;
    const op = rand();
    const t0 = performance.now();
    if (op < 0.4) {
      counts.reads++;
      const r = await readOnce(P, token, rand());
      expect(r, [200, 404], `read ${project}`);
    } else {
      counts.writes++;
      if (op < 0.55) {
        const r = await send('POST', `${P}/issues`, token, { title: `load ${i}-${n++}` });
        if (expect(r, [201], 'create issue')) {
          const b = r.body as { id: number; iid: number };
          acked.issues.push({ project, id: b.id, iid: b.iid });
          iidsBy.get(project)!.push(b.iid);
        }
      } else if (op < 0.7) {
        const mine = iidsBy.get(project)!;
        const iid = mine.length ? pick(mine, rand()) : 0;
        if (iid === 0) continue;
        const r = await send('POST', `${P}/issues/${iid}/notes`, token, { body: `note ${i}-${n++}` });
        if (expect(r, [201], 'create note'))
          acked.notes.push({ project, iid, id: (r.body as { id: number }).id });
      } else if (op < 0.85) {
        const key = `${project} ${user}`;
        const starred = acked.stars.get(key) ?? false;
        const r = await send('POST', `${P}/${starred ? 'unstar' : 'star'}`, token);
        // 304: already in that state, which our bookkeeping says cannot happen (one user per worker).
        if (expect(r, [201], starred ? 'unstar' : 'star')) acked.stars.set(key, !starred);
      } else if (op < 0.95) {
        const key = `W${i}_${n++}`;
        const value = `v${n}`;
        const r = await send('POST', `${P}/variables`, token, { key, value });
        if (expect(r, [201], 'create variable')) {
          acked.variables.set(`${project} ${key}`, value);
          varsBy.set(i, [...(varsBy.get(i) ?? []), `${project} ${key}`]);
        }
      } else {
        const mine = varsBy.get(i) ?? [];
        if (mine.length === 0) continue;
        const k = pick(mine, rand());
        const target = `/projects/${enc(k.split(' ')[0]!)}`;
        const r = await send('DELETE', `${target}/variables/${k.split(' ')[1]}`, token);
        if (expect(r, [204], 'delete variable')) {
          varsBy.set(
            i,
            mine.filter((x) => x !== k),
          );
          acked.variables.delete(k);
          acked.deletedVariables.add(k);
        }
      }
    }
    counts.requests++;
    recordLatency(performance.now() - t0);
  }
}

/** A soak client: reads, and writes that are undone or overwrite a fixed record. */
async function soakWorker(i: number, until: number): Promise<void> {
  const token = `worker${i}-token`;
  const user = `worker${i}`;
  const rand = rng(i + 1);
  let n = 0;
  const ok = (r: Reply, want: number, what: string) => {
    counts.requests++;
    return answered(r, [want], what);
  };
  while (Date.now() < until) {
    const project = pick(PROJECTS, rand());
    const P = `/projects/${enc(project)}`;
    const op = rand();
    const t0 = performance.now();
    if (op < 0.4) {
      counts.reads++;
      const r = await readOnce(P, token, rand());
      ok(r, 200, `read ${project}`);
    } else if (op < 0.55) {
      counts.writes += 2;
      const r = await send('POST', `${P}/issues`, token, { title: `soak ${i}-${n++}` });
      if (ok(r, 201, 'create issue')) {
        soak.issuesCreated++;
        const iid = (r.body as { iid: number }).iid;
        if (ok(await send('DELETE', `${P}/issues/${iid}`, token), 204, 'delete issue')) soak.issuesDeleted++;
      }
    } else if (op < 0.7) {
      counts.writes += 2;
      const r = await send('POST', `${P}/issues/1/notes`, token, { body: `note ${i}-${n++}` });
      if (ok(r, 201, 'create note')) {
        soak.notesCreated++;
        const id = (r.body as { id: number }).id;
        if (ok(await send('DELETE', `${P}/issues/1/notes/${id}`, token), 204, 'delete note'))
          soak.notesDeleted++;
      }
    } else if (op < 0.85) {
      counts.writes++;
      const key = `${project} ${user}`;
      const starred = acked.stars.get(key) ?? false;
      const r = await send('POST', `${P}/${starred ? 'unstar' : 'star'}`, token);
      if (ok(r, 201, starred ? 'unstar' : 'star')) acked.stars.set(key, !starred);
    } else {
      counts.writes++;
      const value = `v${i}-${n++}`;
      const r = await send('PUT', `${P}/variables/${soakKey(i)}`, token, { value });
      if (ok(r, 200, 'update variable')) {
        soak.variableUpdates++;
        soak.variables.set(`${project} ${soakKey(i)}`, value);
      }
    }
    recordLatency(performance.now() - t0);
  }
}

const gc = (globalThis as { gc?: () => void }).gc;
/**
 * The heap after a full GC, once the finalizers it queued have run: every request's AbortController is
 * released through a FinalizationRegistry (undici's Request following the connection's signal), a task
 * after the GC, so a heap read right after `gc()` counts the last second's requests as live.
 */
async function heapMiB(): Promise<number> {
  if (gc) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
    gc();
  }
  return Math.round(process.memoryUsage().heapUsed / 1024 / 1024);
}
/** Samples under load (`run`), and one after the workers stopped (`idle`). */
const memory: { s: number; phase: 'run' | 'idle'; heapMiB: number; rssMiB: number; externalMiB: number }[] =
  [];
const t0 = Date.now();
const sample = async (phase: 'run' | 'idle' = 'run') => {
  const s = Math.round((Date.now() - t0) / 1000);
  const heap = await heapMiB();
  const m = process.memoryUsage();
  memory.push({
    s,
    phase,
    heapMiB: heap,
    rssMiB: Math.round(m.rss / 1024 / 1024),
    externalMiB: Math.round(m.external / 1024 / 1024),
  });
};
// A soak samples every minute; a load run a dozen times.
const sampler = setInterval(() => void sample(), SOAK ? 60_000 : Math.max(1000, (SECONDS * 1000) / 12));
// A watchdog: the run ends even if a request hangs.
const watchdog = setTimeout(
  () => {
    console.error('load: the run did not finish in time');
    process.exit(2);
  },
  (SECONDS + 60) * 1000,
);

console.log(`${SOAK ? 'soak' : 'load'}: ${CONNECTIONS} connections for ${SECONDS} s on 127.0.0.1:${port}`);
const startSizes = {
  issues: tvalues(fx.state.issuables.issues).length,
  notes: tvalues(fx.state.issuables.notes).length,
};
await sample();
const until = Date.now() + SECONDS * 1000;
await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => (SOAK ? soakWorker : worker)(i, until)));
const elapsed = (Date.now() - t0) / 1000;
clearInterval(sampler);
await sample('idle');

// ------------------------------------------------------------------------------------------------
// Nothing lost: every acknowledged write is in the state, and the counters agree with the records.
const failures: string[] = [];
const check = (ok: boolean, msg: string) => {
  if (!ok && failures.length < 50) failures.push(msg);
};
const st = fx.state;
const projectId = new Map(tvalues(st.projects).map((p) => [p.path_with_namespace, p.id]));
const issues = tvalues(st.issuables.issues);
const notes = tvalues(st.issuables.notes);
const issueIds = new Set(issues.map((x) => x.id));
const noteIds = new Set(notes.map((x) => x.id));
for (const a of acked.issues)
  check(issueIds.has(a.id), `acknowledged issue ${a.project}#${a.iid} is missing`);
for (const a of acked.notes)
  check(noteIds.has(a.id), `acknowledged note ${a.id} on ${a.project}#${a.iid} is missing`);
const pathOf = new Map([...projectId].map(([path, id]) => [id, path]));
const vars = new Map(tvalues(st.variables).map((v) => [`${pathOf.get(v.project_id)} ${v.key}`, v.value]));
const notesPer = new Map<number, number>();
for (const x of notes)
  if (x.noteable_type === 'Issue' && !x.system)
    notesPer.set(x.noteable_id, (notesPer.get(x.noteable_id) ?? 0) + 1);
const ackedNotesPer = new Map<string, number>();
for (const a of acked.notes)
  ackedNotesPer.set(`${a.project}#${a.iid}`, (ackedNotesPer.get(`${a.project}#${a.iid}`) ?? 0) + 1);
for (const [k, v] of acked.variables)
  check(vars.get(k) === v, `acknowledged variable ${k} is missing or changed`);
for (const k of acked.deletedVariables) check(!vars.has(k), `deleted variable ${k} is still there`);

for (const path of PROJECTS) {
  const pid = projectId.get(path)!;
  const mine = issues.filter((x) => x.project_id === pid);
  const iids = mine.map((x) => x.iid).sort((a, b) => a - b);
  check(
    iids.every((iid, k) => iid === k + 1),
    `${path}: iids are not 1..${iids.length} without gaps or duplicates`,
  );
  const api = (await send('GET', `/projects/${enc(path)}`, 'root-token')).body as {
    star_count: number;
    open_issues_count: number;
  };
  const starRecords = tvalues(st.stars).filter((s) => s.project_id === pid).length;
  const expectedStars = [...acked.stars].filter(([k, on]) => on && k.startsWith(`${path} `)).length;
  check(
    api.star_count === starRecords,
    `${path}: star_count ${api.star_count} but ${starRecords} star records`,
  );
  check(
    starRecords === expectedStars,
    `${path}: ${starRecords} star records but ${expectedStars} acknowledged`,
  );
  const open = mine.filter((x) => x.state === 'opened').length;
  check(
    api.open_issues_count === open,
    `${path}: open_issues_count ${api.open_issues_count} but ${open} open issues`,
  );
  // A soak deletes every issue it creates: only the fixed one stays.
  const expectedIssues = SOAK ? 1 : acked.issues.filter((a) => a.project === path).length;
  check(mine.length === expectedIssues, `${path}: ${mine.length} issues but ${expectedIssues} expected`);
  for (const issue of mine) {
    const recorded = notesPer.get(issue.id) ?? 0;
    const ackedNotes = ackedNotesPer.get(`${path}#${issue.iid}`) ?? 0;
    check(
      issue.user_notes_count === recorded,
      `${path}#${issue.iid}: user_notes_count ${issue.user_notes_count} but ${recorded} notes`,
    );
    check(recorded === ackedNotes, `${path}#${issue.iid}: ${recorded} notes but ${ackedNotes} acknowledged`);
  }
}
// The count the API serves for one issue, too (the records' counter is what it renders).
const noted = acked.issues.find((a) => acked.notes.some((n) => n.project === a.project && n.iid === a.iid));
if (noted) {
  const r = await send('GET', `/projects/${enc(noted.project)}/issues/${noted.iid}`, 'root-token');
  const n = acked.notes.filter((x) => x.project === noted.project && x.iid === noted.iid).length;
  check(
    (r.body as { user_notes_count: number }).user_notes_count === n,
    'user_notes_count served by the API differs',
  );
}

if (SOAK) {
  check(soak.issuesCreated === soak.issuesDeleted, 'an acknowledged issue create was not deleted');
  check(soak.notesCreated === soak.notesDeleted, 'an acknowledged note create was not deleted');
  check(
    notes.length === startSizes.notes,
    `${notes.length} notes after the soak, ${startSizes.notes} before`,
  );
  check(
    issues.length === startSizes.issues,
    `${issues.length} issues after the soak, ${startSizes.issues} before`,
  );
  for (const [k, v] of soak.variables)
    check(vars.get(k) === v, `variable ${k} lost its last acknowledged value`);
}

/**
 * Flat memory, over the samples under load after a minute of warm-up: the mean of the last third may
 * exceed the mean of the first third by at most 3 MiB or 10 % of the heap after a full GC, and by at most
 * 32 MiB or 15 % of RSS (which moves with buffers in flight and the allocator, so single samples are noisy).
 */
const running = memory.filter((m) => m.phase === 'run');
const settled = running.filter((m) => m.s >= 60).length >= 3 ? running.filter((m) => m.s >= 60) : running;
const third = Math.max(1, Math.ceil(settled.length / 3));
const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length));
const early = {
  heap: mean(settled.slice(0, third).map((m) => m.heapMiB)),
  rss: mean(settled.slice(0, third).map((m) => m.rssMiB)),
};
const late = {
  heap: mean(settled.slice(-third).map((m) => m.heapMiB)),
  rss: mean(settled.slice(-third).map((m) => m.rssMiB)),
};
const warm = settled[0]!;
const last = settled[settled.length - 1]!;
const flat = {
  from: `${warm.s} s`,
  to: `${last.s} s`,
  heapMiB: { early: early.heap, late: late.heap, growth: late.heap - early.heap },
  rssMiB: { early: early.rss, late: late.rss, growth: late.rss - early.rss },
  heapFlat: late.heap - early.heap <= Math.max(3, early.heap * 0.1),
  rssFlat: late.rss - early.rss <= Math.max(32, early.rss * 0.15),
};
if (SOAK) {
  check(!!gc, 'a soak needs node --expose-gc to measure the heap after a full GC');
  check(flat.heapFlat, `the heap grew by ${flat.heapMiB.growth} MiB (${flat.from} to ${flat.to})`);
  check(flat.rssFlat, `RSS grew by ${flat.rssMiB.growth} MiB (${flat.from} to ${flat.to})`);
}

clearTimeout(watchdog);
agent.destroy();
server.close();
latencies.sort((a, b) => a - b);
const q = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(1);
console.log(
  JSON.stringify(
    {
      seconds: Math.round(elapsed),
      connections: CONNECTIONS,
      requests: counts.requests,
      perSecond: Math.round(counts.requests / elapsed),
      reads: counts.reads,
      writes: counts.writes,
      unexpectedStatuses: counts.errors,
      latencyMs: { p50: q(0.5), p99: q(0.99), max: q(1) },
      acknowledged: SOAK
        ? {
            issuesCreatedAndDeleted: soak.issuesDeleted,
            notesCreatedAndDeleted: soak.notesDeleted,
            variableUpdates: soak.variableUpdates,
            starred: [...acked.stars.values()].filter(Boolean).length,
          }
        : {
            issues: acked.issues.length,
            notes: acked.notes.length,
            variablesKept: acked.variables.size,
            variablesDeleted: acked.deletedVariables.size,
            starred: [...acked.stars.values()].filter(Boolean).length,
          },
      records: { before: startSizes, after: { issues: issues.length, notes: notes.length } },
      memory,
      ...(SOAK && { flat }),
      gc: gc
        ? 'heap after a full GC'
        : 'heap without forced GC (run node with --expose-gc for flat-memory figures)',
    },
    null,
    2,
  ),
);
for (const u of counts.unexpected) console.log(`unexpected: ${u}`);
if (failures.length || counts.errors) {
  for (const f of failures) console.log(`FAIL ${f}`);
  process.exit(1);
}
console.log(
  SOAK
    ? `soak: every write acknowledged and undone; memory flat from ${flat.from} to ${flat.to} (heap ${flat.heapMiB.early} -> ${flat.heapMiB.late} MiB, RSS ${flat.rssMiB.early} -> ${flat.rssMiB.late} MiB)`
    : 'load: every acknowledged write is in the state; the counters agree with the records',
);
process.exit(0);
