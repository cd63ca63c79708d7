import { beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../../src/index.js';
import type { UserRecord } from '../../../src/core/state.js';
import { tvalues } from '../../../src/core/table.js';
import { json } from './world.js';

/** A 100k-user world: lists must stay one filter pass over prepared keys, and exact. */
describe('GET /users at scale', () => {
  let fx: Fauxlab;
  const get = async (path: string, token = 'u') => {
    const res = await fx.app.request(`http://localhost/api/v4${path}`, {
      headers: { 'PRIVATE-TOKEN': token },
    });
    return { res, body: await json(res) };
  };
  const ids = (list: { id: number }[]) => list.map((u) => u.id);
  /** The platform's matching, written the slow obvious way. */
  const matches = (u: UserRecord, q: string) => {
    const words = q.split(' ').filter((w) => w.length >= 3);
    const field = (s: string) =>
      words.length ? words.every((w) => s.toLowerCase().includes(w)) : s.toLowerCase() === q;
    return field(u.name) || field(u.username) || u.email === q;
  };

  beforeAll(() => {
    fx = createFauxlab({
      scenario: {
        users: [
          { username: 'root', admin: true, tokens: [{ token: 'adm' }] },
          { username: 'u', tokens: [{ token: 'u' }] },
        ],
        generate: { users: 100_000 },
      },
    });
  }, 60_000);

  it('GET /users at scale: the first page has no counts past 10,000 rows and links to the next', async () => {
    const { res, body } = await get('/users');
    expect(body).toHaveLength(20);
    expect(body[0].id).toBe(100_002);
    expect(res.headers.get('X-Total')).toBeNull();
    expect(res.headers.get('X-Next-Page')).toBe('2');
    expect(res.headers.get('Link')).not.toContain('rel="last"');
  });

  it('GET /users at scale: a filtered deep page is the same rows a full scan gives', async () => {
    const expected = tvalues(fx.state.users)
      .filter((u) => u.state === 'active')
      .reverse()
      .slice(30 * 100, 31 * 100)
      .map((u) => u.id);
    const { res, body } = await get('/users?active=true&per_page=100&page=31');
    expect(ids(body)).toEqual(expected);
    expect(res.headers.get('X-Next-Page')).toBe('32');
  });

  it('GET /users at scale: search finds exactly what the platform\u2019s matching finds', async () => {
    const all = tvalues(fx.state.users);
    const sample = all[4242]!;
    const first = sample.name.split(' ')[0]!.toLowerCase();
    const two = sample.name.toLowerCase();
    for (const q of [first, two, sample.email, sample.username.slice(0, 2)]) {
      const expected = all
        .filter((u) => matches(u, q))
        .reverse()
        .map((u) => u.id);
      const { body } = await get(`/users?search=${encodeURIComponent(q)}&per_page=100`, 'adm');
      expect(ids(body), q).toEqual(expected.slice(0, 100));
    }
  });

  it('GET /users at scale: the search keys follow writes', async () => {
    await get('/users?search=zanzibar');
    const put = await fx.app.request('http://localhost/api/v4/users/777', {
      method: 'PUT',
      headers: { 'PRIVATE-TOKEN': 'adm', 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Zanzibar Quux' }),
    });
    expect(put.status).toBe(200);
    expect(ids((await get('/users?search=zanzibar')).body)).toEqual([777]);
  });
});
