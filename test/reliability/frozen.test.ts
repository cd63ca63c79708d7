import fc from 'fast-check';
import { expect, test } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { requestArb, type FuzzRequest } from './fuzz.js';
import { matrixFx, matrixScenario } from './matrix.js';

const RUNS = Number(process.env.FAUXLAB_FROZEN_RUNS ?? 400);
const SEED = Number(process.env.FAUXLAB_FUZZ_SEED ?? 20_210_301);
/** Requests between two walks of the whole state. */
const CHECK_EVERY = 40;

/**
 * Every plain object or array reachable from `value` that is not frozen, by path (the first few).
 * Class instances (the repository's object store) are outside immer's drafting and freezing by design.
 */
function unfrozen(value: unknown, path: string, out: string[], seen: Set<object>): void {
  if (typeof value !== 'object' || value === null || seen.has(value) || out.length >= 5) return;
  seen.add(value);
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== null && proto !== Object.prototype && proto !== Array.prototype) return;
  if (!Object.isFrozen(value)) out.push(path);
  for (const k of Object.keys(value))
    unfrozen((value as Record<string, unknown>)[k], `${path}.${k}`, out, seen);
}

async function send(fx: ReturnType<typeof createFauxlab>, r: FuzzRequest): Promise<void> {
  const res = await fx.fetch(
    new Request(r.url, { method: r.method, headers: r.headers, body: r.body as BodyInit | undefined }),
  );
  await res.arrayBuffer();
}

test(`store: after ${RUNS} generated requests over every route, the state is frozen through`, async () => {
  const { fx: built, ids } = await matrixFx();
  const fx = createFauxlab({ scenario: matrixScenario, journal: 50 });
  fx.restore(built.snapshot());
  const before = fx.state;
  let n = 0;
  await fc.assert(
    fc.asyncProperty(requestArb(fx.routes, ids), async (r) => {
      await send(fx, r);
      if (++n % CHECK_EVERY !== 0) return;
      const out: string[] = [];
      unfrozen(fx.state, '$', out, new Set());
      expect(out).toEqual([]);
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  // The requests wrote: what was checked is the work of the writes, not the world as loaded.
  expect(fx.state).not.toBe(before);
}, 300_000);
