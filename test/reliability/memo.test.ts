import fc from 'fast-check';
import { expect, test } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../src/index.js';
import { requestArb, type FuzzRequest } from './fuzz.js';
import { matrixFx, matrixScenario } from './matrix.js';

const RUNS = Number(process.env.FAUXLAB_MEMO_RUNS ?? 400);
const SEED = Number(process.env.FAUXLAB_FUZZ_SEED ?? 20_210_301);

/** Status, headers and body of one request. */
async function exchange(fx: Fauxlab, r: FuzzRequest) {
  const res = await fx.fetch(
    new Request(r.url, { method: r.method, headers: r.headers, body: r.body as BodyInit | undefined }),
  );
  return { status: res.status, headers: [...res.headers], body: await res.text() };
}

test(`response cache: ${RUNS} generated requests, each followed by entity reads, answer byte for byte as without it`, async () => {
  const { fx: built, ids } = await matrixFx();
  const snap = built.snapshot();
  const [cached, computed] = [{}, { responseCache: false as const }].map((o) => {
    const fx = createFauxlab({ scenario: matrixScenario, journal: 50, ...o });
    fx.restore(snap);
    return fx;
  }) as [Fauxlab, Fauxlab];
  // Reads the cache answers: single projects and lists, as viewers of every kind, asked again and again
  // between the generated requests (which write, fail, or read anything else).
  const reads: FuzzRequest[] = [];
  for (const token of ['root-api', 'owner-api', 'guest-api', 'outsider-api', undefined]) {
    const headers: Record<string, string> = token ? { 'PRIVATE-TOKEN': token } : {};
    for (const id of Object.values(ids.project))
      reads.push({ method: 'GET', url: `http://localhost/api/v4/projects/${id}`, headers });
    reads.push({ method: 'GET', url: 'http://localhost/api/v4/projects?per_page=3&page=2', headers });
    reads.push({ method: 'GET', url: 'http://localhost/api/v4/projects?order_by=name&sort=asc', headers });
    // The other entity routes the cache answers: users, groups, issues, merge requests, notes, pipelines.
    const api = 'http://localhost/api/v4';
    for (const path of ['/user', '/users/1', '/users/2', '/users?per_page=2&page=2', '/groups?per_page=2'])
      reads.push({ method: 'GET', url: api + path, headers });
    for (const [v, id] of Object.entries(ids.project) as [keyof typeof ids.project, number][]) {
      const p = `${api}/projects/${id}`;
      for (const path of [
        `${api}/groups/${ids.group[v]}`,
        `${p}/issues/1`,
        `${p}/issues?per_page=2`,
        `${p}/merge_requests/1`,
        `${p}/merge_requests?state=all`,
        `${p}/issues/1/notes/${ids.issueNote[v]}`,
        `${p}/issues/1/notes`,
        `${p}/pipelines/${ids.pipeline[v]}`,
        `${p}/pipelines`,
      ])
        reads.push({ method: 'GET', url: path, headers });
    }
  }
  let n = 0;
  await fc.assert(
    fc.asyncProperty(requestArb(cached.routes, ids), async (r) => {
      if (++n % 100 === 0) for (const fx of [cached, computed]) fx.restore(snap);
      // The generated request itself may answer differently only where the platform makes a random secret.
      expect((await exchange(cached, r)).status).toBe((await exchange(computed, r)).status);
      const [a, b] = [reads[n % reads.length]!, reads[(n * 7) % reads.length]!];
      for (const read of [a, a, b])
        expect(await exchange(cached, read)).toEqual(await exchange(computed, read));
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
}, 300_000);
