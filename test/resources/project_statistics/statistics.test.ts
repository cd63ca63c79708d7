/**
 * `GET /projects/:id/statistics`: the last 30 days of HTTP fetches (`ProjectDailyStatistic`), counted
 * by each `git-upload-pack` request, newest day first; developers and up.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import { FLUSH } from '../../../src/resources/git_http/pktline.js';
import { call, world, type World } from '../repository/world.js';

const SITE = '/projects/acme%2Fsite';

/** One fetch of acme/site over HTTP (a request of no wants: upload-pack's flush). */
async function fetchOnce(fx: World) {
  await fx.app.request('/acme/site.git/git-upload-pack', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-git-upload-pack-request' },
    body: new Uint8Array(FLUSH),
  });
}

describe('GET /projects/:id/statistics', () => {
  it('GET /projects/:id/statistics: each upload-pack counts on its day; 30 days, newest first', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${SITE}/statistics`, 'dev')).body).toEqual({
      fetches: { total: 0, days: [] },
    });
    await fetchOnce(fx);
    await fetchOnce(fx);
    fx.clock.advance(86_400_000);
    await fetchOnce(fx);
    const r = await call(fx, 'GET', `${SITE}/statistics`, 'dev');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      fetches: {
        total: 3,
        days: [
          { count: 1, date: '2021-03-02' },
          { count: 2, date: '2021-03-01' },
        ],
      },
    });
    // Thirty days on, the first day has left the window (`of_last_30_days`).
    fx.clock.advance(29 * 86_400_000);
    expect((await call(fx, 'GET', `${SITE}/statistics`, 'dev')).body.fetches).toEqual({
      total: 1,
      days: [{ count: 1, date: '2021-03-02' }],
    });
  });

  it('GET /projects/:id/statistics: developers and up; 401, 403, 404', async () => {
    const fx = world();
    expect((await call(fx, 'GET', `${SITE}/statistics`)).status).toBe(401);
    expect((await call(fx, 'GET', `${SITE}/statistics`, 'rep')).status).toBe(403);
    expect((await call(fx, 'GET', `${SITE}/statistics`, 'outsider')).status).toBe(403);
    expect((await call(fx, 'GET', '/projects/acme%2Fapp/statistics', 'outsider')).status).toBe(404);
    expect((await call(fx, 'GET', `${SITE}/statistics`, 'maint')).status).toBe(200);
  });

  it('GET /projects/:id/statistics: the counts survive export and load', async () => {
    const fx = world();
    await fetchOnce(fx);
    const file = exportScenario(fx.state, { now: fx.clock.iso() });
    const site = file.projects!.find((p) => p.path === 'acme/site')!;
    expect((site as Record<string, unknown>).fetch_statistics).toEqual([{ date: '2021-03-01', count: 1 }]);
    const again = createFauxlab({ scenario: file });
    expect((await call(again, 'GET', `${SITE}/statistics`, 'dev')).body).toEqual(
      (await call(fx, 'GET', `${SITE}/statistics`, 'dev')).body,
    );
  });
});
