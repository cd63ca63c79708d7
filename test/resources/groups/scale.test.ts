import { beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../../src/index.js';
import { tvalues } from '../../../src/core/table.js';
import type { Group } from '../../../src/resources/groups/model.js';

/** A world of 10,000 groups: lists stay one pass over prepared keys, cached by table identity. */
describe('GET /groups at scale', () => {
  let fx: Fauxlab;
  const get = async (path: string, token = 'adm') => {
    const res = await fx.app.request(`http://localhost/api/v4${path}`, {
      headers: { 'PRIVATE-TOKEN': token },
    });
    return { res, body: (await res.json()) as any };
  };
  beforeAll(() => {
    fx = createFauxlab({
      scenario: {
        users: [
          { username: 'root', admin: true, tokens: [{ token: 'adm' }] },
          { username: 'u', tokens: [{ token: 'u' }] },
        ],
        generate: { users: 500, groups: 10_000 },
      },
    });
  }, 60_000);

  it('GET /groups at scale: an admin list is ordered by name exactly as a full sort gives', async () => {
    const all = tvalues(fx.state.groups) as Group[];
    const expected = all
      .slice()
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id))
      .slice(100, 200)
      .map((g) => g.id);
    const { res, body } = await get('/groups?per_page=100&page=2');
    expect(body.map((g: any) => g.id)).toEqual(expected);
    expect(res.headers.get('X-Total')).toBe(String(all.length));
  });

  it('GET /groups at scale: one write recomputes the index without a full rebuild stall', async () => {
    const res = await fx.app.request('http://localhost/api/v4/groups', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'adm', 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'AAA first', path: 'aaa-first' }),
    });
    expect(res.status).toBe(201);
    const { body } = await get('/groups?per_page=1');
    expect(body[0].name).toBe('AAA first');
  });
});
