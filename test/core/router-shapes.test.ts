import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { describe, expect, it } from 'vitest';
import { ApiRouter, ShapedRouter, shapeOf } from '../../src/core/router.js';
import { p, withDeclaredDefaults, type RawParams } from '../../src/core/params.js';
import { registerApi } from '../../src/resources/index.js';

type R = { match(method: string, path: string): unknown; add(method: string, path: string, h: string): void };

/** The routers' answers as plain data: each handler with its params' entries, in order. */
function answer(router: R, method: string, path: string): unknown {
  const [found, stash] = router.match(method, path) as [
    [string, Record<string, string | number>][],
    string[]?,
  ];
  return found.map(([h, params]) => [
    h,
    Object.entries(params).map(([k, v]) => [k, stash ? stash[v as number] : v]),
  ]);
}

function both(routes: readonly (readonly [string, string])[]) {
  const plain = new SmartRouter<string>({ routers: [new RegExpRouter(), new TrieRouter()] });
  const shaped = new ShapedRouter<string>();
  for (const [m, path] of routes) {
    plain.add(m, path, `${m} ${path}`);
    shaped.add(m, path, `${m} ${path}`);
  }
  return { plain, shaped };
}

/** A path for a route pattern, its params written by `fill`. */
function pathOf(pattern: string, fill: (i: number, regex: boolean) => string): string {
  let i = 0;
  return pattern
    .split('/')
    .map((seg) => (seg.startsWith(':') ? fill(i++, seg.includes('{')) : seg))
    .join('/');
}

describe('ShapedRouter', () => {
  const api = new ApiRouter();
  registerApi(api);
  const routes = api.routes.map((r) => [r.method, `/api/v4${r.path}`] as const);

  it('GET/POST/PUT/PATCH/DELETE every API route: a path of a shape seen before gets the answer of the router itself', () => {
    const { plain, shaped } = both(routes);
    const fills: ((i: number, regex: boolean) => string)[] = [
      (i) => String(i + 1),
      (i) => String((i + 7) * 1013),
      (i, regex) => (regex ? `v${i}/0${i}` : `0${i}`),
      (i) => `name-${i}`,
      (i) => (i % 2 === 0 ? '42' : 'group%2Fproject'),
      () => 'archive.zip',
    ];
    let compared = 0;
    for (const [m, pattern] of routes)
      for (const fill of fills)
        for (const method of [m, 'GET', 'DELETE']) {
          const path = pathOf(pattern, fill);
          expect(answer(shaped, method, path), `${method} ${path}`).toEqual(answer(plain, method, path));
          compared++;
        }
    // Paths that match no route, or another one than their look-alikes.
    for (const path of [
      '/api/v4/users/12/x',
      '/api/v4/12',
      '/api/v4/users/007',
      '/api/v4/users/7/',
      '/api/v4',
    ])
      for (const method of ['GET', 'POST']) {
        expect(answer(shaped, method, path)).toEqual(answer(plain, method, path));
        expect(answer(shaped, method, path)).toEqual(answer(plain, method, path));
      }
    expect(compared).toBeGreaterThan(3000);
  });

  it('GET /projects/:id/issues/:issue_iid: the second path reads its own param from the path, not the first one', () => {
    const { shaped } = both(routes);
    expect(answer(shaped, 'GET', '/api/v4/projects/1/issues/2')).toEqual([
      [
        'GET /api/v4/projects/:id/issues/:issue_iid',
        [
          ['id', '1'],
          ['issue_iid', '2'],
        ],
      ],
    ]);
    expect(answer(shaped, 'GET', '/api/v4/projects/345/issues/6789')).toEqual([
      [
        'GET /api/v4/projects/:id/issues/:issue_iid',
        [
          ['id', '345'],
          ['issue_iid', '6789'],
        ],
      ],
    ]);
  });

  it('GET: a table with a route of digits is matched plainly (a digit run is then told from another)', () => {
    const table = [
      ['GET', '/api/v4/users/1'],
      ['GET', '/api/v4/users/:id'],
      ['GET', '/api/v4/items/:n{[0-9]}'],
    ] as const;
    const { plain, shaped } = both(table);
    for (const path of [
      '/api/v4/users/2',
      '/api/v4/users/1',
      '/api/v4/users/3',
      '/api/v4/items/5',
      '/api/v4/items/55',
    ])
      expect(answer(shaped, 'GET', path), path).toEqual(answer(plain, 'GET', path));
    expect(answer(shaped, 'GET', '/api/v4/users/1')).toEqual([
      ['GET /api/v4/users/1', []],
      ['GET /api/v4/users/:id', [['id', '1']]],
    ]);
  });

  it('shapeOf: only whole segments of digits become 0', () => {
    expect(shapeOf('/api/v4/users/123')).toBe('/api/v4/users/0');
    expect(shapeOf('/api/v4/projects/12/issues/007/notes')).toBe('/api/v4/projects/0/issues/0/notes');
    expect(shapeOf('/api/v4/users/a1/1a')).toBe('/api/v4/users/a1/1a');
    expect(shapeOf('/12')).toBe('/0');
    expect(shapeOf('/')).toBe('/');
  });
});

describe('withDeclaredDefaults', () => {
  const shape = { order_by: p.str().default('id'), sort: p.str().default('desc') };
  const spread = (raw: RawParams) => ({ ...{ order_by: 'id', sort: 'desc' }, ...raw });

  it('GET params: the same keys, values and order as spreading the defaults and then the raw params', () => {
    const raw = Object.create(null) as RawParams;
    raw.page = '2';
    raw.sort = 'asc';
    raw['__proto__'] = 'x';
    raw['7'] = 'seven';
    const got = withDeclaredDefaults(shape, raw);
    expect(Object.entries(got)).toEqual(Object.entries(spread(raw)));
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.keys(got)).toEqual(['7', 'order_by', 'sort', 'page', '__proto__']);
  });

  it('GET params: a shape without defaults hands the raw params back', () => {
    const raw = Object.create(null) as RawParams;
    raw.id = '5';
    expect(withDeclaredDefaults({ id: p.str() }, raw)).toBe(raw);
  });
});
