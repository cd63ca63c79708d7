import { describe, expect, it } from 'vitest';
import {
  p,
  parseParams,
  parseQuery,
  toQuery,
  mutuallyExclusive,
  atLeastOneOf,
} from '../../src/core/params.js';
import { ApiError } from '../../src/core/errors.js';
import { createFauxlab, parse } from '../../src/index.js';

function errorOf(fn: () => unknown): { status: number; body: unknown } {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return { status: e.status, body: e.body };
    throw e;
  }
  throw new Error('expected an ApiError');
}

describe('params', () => {
  it('parseQuery: name[] builds arrays, name[key] hashes, name[][key] arrays of hashes', () => {
    expect(parseQuery('a[]=1&a[]=2&h[x]=3&h[y][z]=4&v[][key]=K1&v[][value]=V1&v[][key]=K2')).toEqual({
      a: ['1', '2'],
      h: { x: '3', y: { z: '4' } },
      v: [{ key: 'K1', value: 'V1' }, { key: 'K2' }],
    });
  });

  it('parseQuery: a repeated plain key keeps the last value, + is a space, a bare key is empty', () => {
    expect(parseQuery('?sudo=x&sudo=y&q=a+b%20c&flag')).toEqual({ sudo: 'y', q: 'a b c', flag: '' });
  });

  it('parseQuery: invalid percent-encoding is a 400 in the platform shape', () => {
    expect(errorOf(() => parseQuery('a=%E0%A4%A'))).toEqual({
      status: 400,
      body: { message: '400 Bad request' },
    });
  });

  it('parseQuery: mixing a hash and an array under one name is a 400', () => {
    expect(errorOf(() => parseQuery('a[x]=1&a[]=2')).status).toBe(400);
  });

  it('parseQuery: nesting deeper than the limit is a 400, not a crash', () => {
    const name = 'a' + '[b]'.repeat(100);
    expect(errorOf(() => parseQuery(`${name}=1`)).status).toBe(400);
  });

  it('p.bool: true/false/1/0/True/False all coerce', () => {
    const shape = { a: p.bool(), b: p.bool(), c: p.bool(), d: p.bool(), e: p.bool(), f: p.bool() };
    expect(parseParams(shape, { a: 'true', b: 'false', c: '1', d: '0', e: 'True', f: 'False' })).toEqual({
      a: true,
      b: false,
      c: true,
      d: false,
      e: true,
      f: false,
    });
    expect(parseParams({ a: p.bool() }, { a: true })).toEqual({ a: true });
  });

  it('Grape messages: missing, invalid and not-a-valid-value are joined with ", "', () => {
    const shape = {
      title: p.str().required(),
      source_branch: p.str().required(),
      weight: p.int(),
      state: p.str().values(['opened', 'closed']),
    };
    expect(errorOf(() => parseParams(shape, { weight: 'heavy', state: 'gone' }))).toEqual({
      status: 400,
      body: {
        error:
          'title is missing, source_branch is missing, weight is invalid, state does not have a valid value',
      },
    });
  });

  it('defaults apply when absent; an empty string is no value for non-string types', () => {
    const shape = { page: p.int().default(1), name: p.str(), admin: p.bool().default(false) };
    expect(parseParams(shape, { page: '', name: '' })).toEqual({ page: 1, name: '', admin: false });
  });

  it('notBlank: an empty required string is "is empty"', () => {
    expect(errorOf(() => parseParams({ name: p.str().required().notBlank() }, { name: '' })).body).toEqual({
      error: 'name is empty',
    });
  });

  it('arrays: intArray coerces each item; a comma-separated form is accepted where declared', () => {
    expect(parseParams({ iids: p.intArray() }, { iids: ['1', '2'] })).toEqual({ iids: [1, 2] });
    expect(parseParams({ ids: p.intArray({ commaSeparated: true }) }, { ids: '3,4' })).toEqual({
      ids: [3, 4],
    });
    expect(errorOf(() => parseParams({ iids: p.intArray() }, { iids: ['1', 'x'] })).body).toEqual({
      error: 'iids is invalid',
    });
  });

  it('mutually exclusive and at least one of: the platform messages', () => {
    expect(errorOf(() => mutuallyExclusive({ a: '1', b: '2' }, 'a', 'b')).body).toEqual({
      error: 'a, b are mutually exclusive',
    });
    expect(errorOf(() => atLeastOneOf({}, 'a', 'b')).body).toEqual({
      error: 'a, b are missing, at least one parameter must be provided',
    });
  });

  it('toQuery: keys sorted, arrays as k[]=v, hashes as k[x]=v, CGI escaping', () => {
    expect(toQuery({ b: 'x y', a: ['1', '2'], h: { z: '1', y: '/' } })).toBe(
      'a[]=1&a[]=2&b=x+y&h[y]=%2F&h[z]=1'.replace(/\[/g, '%5B').replace(/\]/g, '%5D'),
    );
  });
});

describe('input merging through a route', () => {
  const fx = createFauxlab({
    routes: (r) =>
      r.post('/echo', { auth: 'optional' }, (c) => {
        const { n, flag, list, vars } = parse(c, {
          n: p.int(),
          flag: p.bool(),
          list: p.strArray(),
          vars: p.hashArray(),
        });
        return c.json({ n, flag, list, vars, raw: c.var.params });
      }),
  });

  it('POST: query, JSON body and path params merge, body winning over the query', async () => {
    const res = await fx.app.request('/api/v4/echo?n=1&flag=false', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ n: 2, list: ['a', 'b'] }),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ n: 2, flag: false, list: ['a', 'b'] });
  });

  it('POST: a form body with variables[][key] arrives as an array of hashes (Ruby clients)', async () => {
    const res = await fx.app.request('/api/v4/echo', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'variables%5B%5D%5Bkey%5D=K&variables%5B%5D%5Bvalue%5D=V&vars[][key]=A&flag=True',
    });
    const body = await res.json();
    expect(body.vars).toEqual([{ key: 'A' }]);
    expect(body.flag).toBe(true);
    expect(body.raw.variables).toEqual([{ key: 'K', value: 'V' }]);
  });

  it('POST: multipart fields and files are read with the same nesting rules', async () => {
    const form = new FormData();
    form.append('list[]', 'x');
    form.append('list[]', 'y');
    form.append('n', '7');
    form.append('file', new File(['hello'], 'a.txt', { type: 'text/plain' }));
    const res = await fx.app.request('/api/v4/echo', { method: 'POST', body: form });
    const body = await res.json();
    expect(body).toMatchObject({ n: 7, list: ['x', 'y'] });
  });

  it('POST: a malformed JSON body is a 400 and nothing runs', async () => {
    const res = await fx.app.request('/api/v4/echo', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"n":',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: 'message body does not match declared format' });
  });

  it('POST: a bad integer is answered with Grape\'s "is invalid"', async () => {
    const res = await fx.app.request('/api/v4/echo?n=abc', { method: 'POST' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'n is invalid' });
  });
});
