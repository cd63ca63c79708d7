import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import {
  keysetPage,
  paginate,
  paginationParams,
  sendPage,
  sendPageBytes,
  sendPageJson,
} from '../../src/core/pagination.js';
import { madeOf } from '../../src/core/respond.js';
import { p } from '../../src/core/params.js';
import { json } from '../helpers.js';

function listOf(n: number) {
  return Array.from({ length: n }, (_, i) => ({ id: i + 1 }));
}

function instance(n: number, features: { name: string; state: 'on' | 'off' }[] = []) {
  const items = listOf(n);
  return createFauxlab({
    scenario: { features },
    routes: (r) => {
      r.get(
        '/items',
        { params: { ...paginationParams, order_by: p.str().default('id'), simple: p.bool().default(false) } },
        (c) => paginate(c, items, (x) => x),
      );
      r.get('/keyset', { params: { ...paginationParams, id_after: p.int() } }, (c, params) => {
        const rest = items.filter((x) => params.id_after === undefined || x.id > params.id_after);
        return sendPage(
          c,
          keysetPage(c, rest, (x) => x.id, 'asc'),
          (x) => x,
        );
      });
    },
  });
}

const fx = instance(45);
const get = (path: string) => fx.app.request(`http://gitlab.test:8080${path}`);

describe('offset pagination', () => {
  it('GET list: default page of 20 with every header', async () => {
    const res = await get('/api/v4/items');
    expect((await json(res)).length).toBe(20);
    expect(res.headers.get('x-per-page')).toBe('20');
    expect(res.headers.get('x-page')).toBe('1');
    expect(res.headers.get('x-next-page')).toBe('2');
    expect(res.headers.get('x-prev-page')).toBe('');
    expect(res.headers.get('x-total')).toBe('45');
    expect(res.headers.get('x-total-pages')).toBe('3');
  });

  it('GET list: Link has next, first, last with every declared param, keys sorted, on the client host', async () => {
    const res = await get('/api/v4/items?per_page=20&extra=x%20y');
    expect(res.headers.get('link')).toBe(
      [
        '<http://gitlab.test:8080/api/v4/items?extra=x+y&order_by=id&page=2&per_page=20&simple=false>; rel="next"',
        '<http://gitlab.test:8080/api/v4/items?extra=x+y&order_by=id&page=1&per_page=20&simple=false>; rel="first"',
        '<http://gitlab.test:8080/api/v4/items?extra=x+y&order_by=id&page=3&per_page=20&simple=false>; rel="last"',
      ].join(', '),
    );
  });

  it('GET list: X-Next-Page is empty on the last page and prev points back', async () => {
    const res = await get('/api/v4/items?page=3');
    expect((await json(res)).length).toBe(5);
    expect(res.headers.get('x-next-page')).toBe('');
    expect(res.headers.get('x-prev-page')).toBe('2');
    expect(res.headers.get('link')).toMatch(
      /^<[^>]*page=2[^>]*>; rel="prev", <[^>]*page=1[^>]*>; rel="first"/,
    );
  });

  it('GET list: an out-of-range page is empty with neither next nor prev', async () => {
    const res = await get('/api/v4/items?page=9');
    expect(await json(res)).toEqual([]);
    expect(res.headers.get('x-next-page')).toBe('');
    expect(res.headers.get('x-prev-page')).toBe('');
    expect(res.headers.get('x-page')).toBe('9');
  });

  it('GET list: per_page above 100 is clamped, negative is ignored, page <= 0 is page 1', async () => {
    const big = instance(150);
    let res = await big.app.request('/api/v4/items?per_page=500');
    expect(res.headers.get('x-per-page')).toBe('100');
    expect((await json(res)).length).toBe(100);
    res = await big.app.request('/api/v4/items?per_page=-5');
    expect(res.headers.get('x-per-page')).toBe('20');
    res = await big.app.request('/api/v4/items?page=0');
    expect(res.headers.get('x-page')).toBe('1');
  });

  it('GET list: a non-integer page or per_page is 400 "page is invalid"', async () => {
    let res = await get('/api/v4/items?page=abc');
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({ error: 'page is invalid' });
    res = await get('/api/v4/items?per_page=1.5');
    expect(await json(res)).toEqual({ error: 'per_page is invalid' });
  });

  it('GET list: an empty list has one page and no next', async () => {
    const empty = instance(0);
    const res = await empty.app.request('/api/v4/items');
    expect(res.headers.get('x-total')).toBe('0');
    expect(res.headers.get('x-total-pages')).toBe('1');
    expect(res.headers.get('x-next-page')).toBe('');
  });

  it('GET list: the configured base URL replaces the client host in Link', async () => {
    const local = createFauxlab({
      baseUrl: 'https://gitlab.example.com/',
      routes: (r) => r.get('/items', { params: paginationParams }, (c) => paginate(c, listOf(30), (x) => x)),
    });
    const res = await local.app.request('http://127.0.0.1:4000/api/v4/items');
    expect(res.headers.get('link')).toContain(
      '<https://gitlab.example.com/api/v4/items?page=2&per_page=20>; rel="next"',
    );
  });

  it('GET list: above 10,000 rows counts and rel="last" are omitted while api_kaminari_count_with_limit is on', async () => {
    const huge = instance(10_001);
    let res = await huge.app.request('/api/v4/items?page=2');
    expect(res.headers.get('x-total')).toBeNull();
    expect(res.headers.get('x-total-pages')).toBeNull();
    expect(res.headers.get('link')).not.toContain('rel="last"');
    expect(res.headers.get('x-next-page')).toBe('3');
    res = await huge.app.request('/api/v4/items?page=501');
    expect(res.headers.get('x-next-page')).toBe('');

    const off = instance(10_001, [{ name: 'api_kaminari_count_with_limit', state: 'off' }]);
    res = await off.app.request('/api/v4/items');
    expect(res.headers.get('x-total')).toBe('10001');
  });
});

describe('keyset pagination', () => {
  it('keyset: next link carries id_after of the last row, the deprecated Links too, none at the end', async () => {
    let res = await get('/api/v4/keyset?per_page=20&pagination=keyset');
    const first = await json(res);
    expect(first.length).toBe(20);
    const link = res.headers.get('link')!;
    expect(link).toBe(
      '<http://gitlab.test:8080/api/v4/keyset?id_after=20&pagination=keyset&per_page=20>; rel="next"',
    );
    expect(res.headers.get('links')).toBe(link);
    expect(res.headers.get('x-total')).toBeNull();
    const seen = [...first];
    let url: string | undefined = link.slice(1, link.indexOf('>'));
    while (url) {
      res = await fx.app.request(url);
      seen.push(...(await json(res)));
      const l = res.headers.get('link');
      url = l ? l.slice(1, l.indexOf('>')) : undefined;
    }
    expect(seen.map((x: { id: number }) => x.id)).toEqual(listOf(45).map((x) => x.id));
  });
});

describe('pages of renderings', () => {
  const page = (items: (string | Buffer<ArrayBuffer>)[]) => ({ items, headers: { 'X-Page': '1' } });

  it('sendPageJson: strings make one string body, strings and bytes one byte body, both the same JSON as sendPageBytes', async () => {
    const strings = ['{"a":"é"}', '{"b":2}', '{"c":[1,2]}'];
    const mixed = [strings[0]!, Buffer.from(strings[1]!), strings[2]!];
    const expected = `[${strings.join(',')}]`;
    const asString = sendPageJson(page(strings), (x) => x);
    expect(madeOf(asString)!.body).toBe(expected);
    expect(asString.headers.get('x-page')).toBe('1');
    expect(await asString.text()).toBe(expected);
    const asBytes = sendPageJson(page(mixed), (x) => x);
    const body = madeOf(asBytes)!.body as Uint8Array;
    expect(Buffer.from(body).toString()).toBe(expected);
    expect(body.length).toBe(Buffer.byteLength(expected));
    const reference = sendPageBytes({ items: strings.map((s) => Buffer.from(s)), headers: {} }, (x) => x);
    expect(await asBytes.text()).toBe(await reference.text());
    expect(madeOf(sendPageJson(page([]), (x) => x))!.body).toBe('[]');
  });
});
