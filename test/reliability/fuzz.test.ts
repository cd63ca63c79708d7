import fc from 'fast-check';
import { expect, test } from 'vitest';
import { write } from '../../src/core/context.js';
import { badRequest } from '../../src/core/errors.js';
import { requestArb, sendAndCheck } from './fuzz.js';
import { reliabilityFx } from './world.js';

/**
 * A seeded slice of the fuzz run. `npm run fuzz` runs the full 100,000 requests (FAUXLAB_FUZZ_RUNS), with
 * another seed through FAUXLAB_FUZZ_SEED.
 */
const RUNS = Number(process.env.FAUXLAB_FUZZ_RUNS ?? 3_000);
const SEED = Number(process.env.FAUXLAB_FUZZ_SEED ?? 20_210_301);

test(`fuzz: ${RUNS} generated requests over every route: no 5xx, platform error shapes, failures write nothing`, async () => {
  const crashes: unknown[] = [];
  const fx = reliabilityFx({ journal: 50, logger: (_m, e) => crashes.push(e) });
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(requestArb(fx.routes), async (r) => {
      const out = await sendAndCheck(fx, r, crashes);
      statuses.set(out.status, (statuses.get(out.status) ?? 0) + 1);
      if (out.problem) throw new Error(`${r.method} ${r.url.slice(0, 300)}: ${out.problem}`);
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  if (process.env.FAUXLAB_FUZZ_RUNS)
    console.log('fuzz statuses', Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])));
  // The run reached the handlers: some requests succeeded and some were refused.
  expect([...statuses.keys()].some((s) => s < 300)).toBe(true);
  expect([...statuses.keys()].some((s) => s === 400)).toBe(true);
  expect(crashes).toEqual([]);
}, 600_000);

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
