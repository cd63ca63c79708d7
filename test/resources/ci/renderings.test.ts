import { describe, expect, it } from 'vitest';
import { APP, body, call, world } from './world.js';

type Fx = ReturnType<typeof world>;

const VIEWERS = ['root', 'owner', 'dev', 'rep', 'guest', 'outsider', undefined];
const QUERIES = [
  '',
  '?sort=asc',
  '?per_page=2&page=2',
  '?scope=running',
  '?scope=finished',
  '?order_by=updated_at',
];

/** Every list as every viewer: status, headers and the body as sent. */
async function readAll(fx: Fx): Promise<string[]> {
  const out: string[] = [];
  for (const token of VIEWERS)
    for (const q of QUERIES) {
      const res = await call(fx, 'GET', `${APP}/pipelines${q}`, token);
      const headers = [...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
      out.push(`${token} ${q} ${res.status}\n${headers}\n${await res.text()}`);
    }
  return out;
}

interface Item {
  id: number;
  status: string;
  web_url: string;
  updated_at: string;
}

/** The owner's list, read often enough for every rendering to be kept. */
async function listed(fx: Fx, project: string): Promise<Item[]> {
  let items: Item[] = [];
  for (let i = 0; i < 3; i++)
    items = (await body(await call(fx, 'GET', `${project}/pipelines`, 'owner'))) as Item[];
  return items;
}

describe('pipeline renderings', () => {
  it('GET /projects/:id/pipelines: the same answers whether renderings are kept or not, for every viewer, as the clock moves the pipelines on', async () => {
    const kept = world({ responseCache: false, renderCacheBytes: 1024 * 1024 });
    const none = world({ responseCache: false, renderCacheBytes: 0 });
    for (const step of [0, 0, 1000, 90_000, 5 * 60_000, 0]) {
      kept.clock.advance(step);
      none.clock.advance(step);
      const expected = await readAll(none);
      expect(expected.filter((s) => / 200\n/.test(s)).length).toBeGreaterThan(QUERIES.length * 3);
      expect(await readAll(kept)).toEqual(expected);
    }
    expect(kept.renderCache.size).toBeGreaterThan(0);
  });

  it('GET /projects/:id/pipelines: a kept item follows the clock, a cancel and a project rename', async () => {
    const fx = world({ responseCache: false, renderCacheBytes: 1024 * 1024 });
    const { id: projectId } = (await body(await call(fx, 'GET', APP, 'owner'))) as { id: number };
    const item = async (id: number) =>
      (await listed(fx, `/api/v4/projects/${projectId}`)).find((p) => p.id === id)!;
    expect(await item(5)).toMatchObject({ status: 'pending' });
    fx.clock.advance(1000);
    expect(await item(5)).toMatchObject({ status: 'running', updated_at: '2021-03-01T12:00:00.000Z' });
    expect((await call(fx, 'POST', `${APP}/pipelines/5/cancel`, 'owner')).status).toBe(200);
    expect(await item(5)).toMatchObject({ status: 'canceled' });
    expect((await call(fx, 'PUT', APP, 'owner', { path: 'renamed' })).status).toBe(200);
    expect((await item(5)).web_url).toBe('http://localhost/acme/renamed/-/pipelines/5');
  });
});
