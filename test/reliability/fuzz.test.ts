import fc from 'fast-check';
import { expect, test } from 'vitest';
import { write } from '../../src/core/context.js';
import { badRequest } from '../../src/core/errors.js';
import { createFauxlab } from '../../src/index.js';
import { isPlatformErrorBody, requestArb, sendAndCheck, type FuzzKind } from './fuzz.js';
import { matrixFx, matrixScenario } from './matrix.js';
import { reliabilityFx } from './world.js';

/**
 * A seeded slice of the fuzz run. `npm run fuzz` runs the full 100,000 requests (FAUXLAB_FUZZ_RUNS), with
 * another seed through FAUXLAB_FUZZ_SEED, and prints the share of each status class per kind of request.
 */
const RUNS = Number(process.env.FAUXLAB_FUZZ_RUNS ?? 3_000);
const SEED = Number(process.env.FAUXLAB_FUZZ_SEED ?? 20_210_301);
/** Requests between restores of the world, so that deletes do not leave it empty for the rest. */
const RESTORE_EVERY = 250;

test(`fuzz: ${RUNS} generated requests over every route: no 5xx, platform error shapes, failures write nothing`, async () => {
  const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
  const crashes: unknown[] = [];
  const logger = (_m: string, e: unknown) => crashes.push(e);
  // The matrix world with its set-up records, in an instance with a logger and a short journal.
  const { fx: built, ids } = await matrixFx();
  const fx = createFauxlab({ scenario: matrixScenario, journal: 50, logger });
  fx.restore(built.snapshot());
  const start = fx.snapshot();
  const counts = new Map<FuzzKind, Map<number, number>>();
  let n = 0;
  await fc.assert(
    fc.asyncProperty(requestArb(fx.routes, ids), async (r) => {
      if (++n % RESTORE_EVERY === 0) fx.restore(start);
      const out = await sendAndCheck(fx, r, crashes);
      const byStatus = counts.get(r.kind ?? 'garbage') ?? new Map<number, number>();
      byStatus.set(out.status, (byStatus.get(out.status) ?? 0) + 1);
      counts.set(r.kind ?? 'garbage', byStatus);
      if (out.problem) throw new Error(`${r.method} ${r.url.slice(0, 300)}: ${out.problem}`);
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  const share = (m: Map<number, number>, lo: number, hi: number) => {
    const total = [...m.values()].reduce((a, b) => a + b, 0);
    const hit = [...m].filter(([s]) => s >= lo && s < hi).reduce((a, [, k]) => a + k, 0);
    return total === 0 ? 0 : hit / total;
  };
  const all = new Map<number, number>();
  for (const m of counts.values()) for (const [s, k] of m) all.set(s, (all.get(s) ?? 0) + k);
  const line = (name: string, m: Map<number, number>) =>
    `${name}: ${[...m.values()].reduce((a, b) => a + b, 0)} requests, 2xx ${pct(share(m, 200, 300))}, ` +
    `3xx ${pct(share(m, 300, 400))}, 4xx ${pct(share(m, 400, 500))}, 5xx ${pct(share(m, 500, 600))}`;
  if (process.env.FAUXLAB_FUZZ_RUNS) {
    console.log(
      [
        `fuzz (seed ${SEED})`,
        line('  all', all),
        ...[...counts].map(([k, m]) => line(`  ${k}`, m)),
        `  statuses ${JSON.stringify(Object.fromEntries([...all].sort((a, b) => a[0] - b[0])))}`,
      ].join('\n'),
    );
  }
  // The run gets past validation into the handlers: a fair share of requests succeed, most of the
  // valid ones do, and some are refused.
  expect(share(all, 200, 300)).toBeGreaterThan(0.3);
  expect(share(counts.get('valid')!, 200, 300)).toBeGreaterThan(0.6);
  expect(all.get(400) ?? 0).toBeGreaterThan(0);
  expect(crashes).toEqual([]);
  // Prototype keys in names, bodies and maps reached nothing shared.
  fx.requests();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
}, 900_000);

/** A journal filter or fault path a client may send: glob syntax, regex syntax, long runs of both. */
const pathPattern = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '*',
        '**',
        '/',
        ':id',
        'a',
        'b',
        '.',
        '(',
        ')',
        '[',
        ']',
        '\\',
        '+',
        '?',
        '^',
        '$',
        '|',
        '{2}',
      ),
      fc.constantFrom('/**a'.repeat(20), '*a'.repeat(200), '('.repeat(100), '*'.repeat(1_100)),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

test(`fuzz: journal filters and fault paths (regex-like, long, nested): 200 or 400, never a 5xx`, async () => {
  const fx = reliabilityFx({ journal: 20 });
  for (let i = 0; i < 20; i++) await fx.app.request(`/api/v4/${'a'.repeat(2_000)}b/${i}`);
  const runs = Math.max(50, Math.min(RUNS / 10, 2_000));
  await fc.assert(
    fc.asyncProperty(pathPattern, async (p) => {
      const list = await fx.app.request(`/__fauxlab/requests?path=${encodeURIComponent(p)}`);
      expect([200, 400]).toContain(list.status);
      const fault = await fx.app.request('/__fauxlab/faults', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ path: p, status: 503, times: 0 }),
      });
      expect([201, 400]).toContain(fault.status);
      fx.faults.clear();
    }),
    { seed: SEED, numRuns: runs, endOnFailure: true },
  );
}, 300_000);

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

test('fuzz: the platform error shapes, including Grape errors given an array (the projects limit)', () => {
  expect(isPlatformErrorBody(403, { error: ['Personal project creation is not allowed.'] })).toBe(true);
  expect(isPlatformErrorBody(400, { error: 'name is missing' })).toBe(true);
  expect(isPlatformErrorBody(404, { message: '404 Not found' })).toBe(true);
  expect(isPlatformErrorBody(400, { message: { name: ["can't be blank"] } })).toBe(true);
  expect(isPlatformErrorBody(403, { error: [1] })).toBe(false);
  expect(isPlatformErrorBody(422, { oops: true })).toBe(false);
});

test('fuzz: the invariants catch a failed request that wrote, a crash and an error of no platform shape', async () => {
  const crashes: unknown[] = [];
  const fx = reliabilityFx({
    logger: (_m, e) => crashes.push(e),
    routes: (r) => {
      r.post('/wrote-then-failed', (c) => {
        write(c, (d) => {
          d.settings = { ...d.settings, home_page_url: 'http://changed.example' };
        });
        throw badRequest('too late');
      });
      r.get('/crash', () => {
        throw new Error('boom');
      });
      r.get('/odd-error', (c) => c.json({ oops: true }, 422));
    },
  });
  const req = (method: string, path: string) => ({
    method,
    url: `http://localhost/api/v4${path}`,
    headers: { 'PRIVATE-TOKEN': 'root-api' },
  });
  expect((await sendAndCheck(fx, req('POST', '/wrote-then-failed'), crashes)).problem).toMatch(
    /state changed/,
  );
  expect((await sendAndCheck(fx, req('GET', '/crash'), crashes)).problem).toMatch(/^status 500/);
  expect((await sendAndCheck(fx, req('GET', '/odd-error'), crashes)).problem).toMatch(/no platform shape/);
});
