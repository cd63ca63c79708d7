import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/app.js';
import { knownBody, lightRequest } from '../../src/core/fetch.js';
import { journalBodyKept, journalBodyText } from '../../src/testing/journal.js';

// No server adapter in this file: one replaces the global Request, and the light request then stays off.
const ROOT = { 'PRIVATE-TOKEN': 'root-token' };
const world = (journal?: { bodyLimit?: number; responseBodies?: 'errors' | 'all' | 'none' }) =>
  createFauxlab({
    scenario: { users: [{ username: 'root', admin: true, tokens: [{ token: 'root-token' }] }] },
    journal,
    explain: true,
  });

describe('light requests', () => {
  it.each([
    ['the default journal', {}],
    ['every response body, cut at 40 characters', { bodyLimit: 40, responseBodies: 'all' as const }],
    ['bodies cut at 2 characters', { bodyLimit: 2 }],
  ])(
    'fx.fetch: a URL and a plain init answer as the same native Request does, journal entries included (%s)',
    async (_, journal) => {
      // A native request's write goes through the middleware and its entry is recorded at once; a light
      // one's is answered by the lean table and its entry made when the journal is read.
      const a = world(journal);
      const b = world(journal);
      const init = (body: string, type = 'application/json') => ({
        method: 'POST',
        headers: { ...ROOT, 'Content-Type': type },
        body,
      });
      const cases: [string, RequestInit][] = [
        ['http://x.test/api/v4/user', { headers: ROOT }],
        [
          'http://x.test/api/v4/users',
          init(JSON.stringify({ username: 'a1', name: 'A', email: 'a1@example.com', password: 'password1' })),
        ],
        ['http://x.test/api/v4/users', init('{not json')],
        ['http://x.test/api/v4/users', init('')],
        [
          'http://x.test/api/v4/users',
          init(
            'username=f1&name=F&email=f1%40example.com&password=password1',
            'application/x-www-form-urlencoded',
          ),
        ],
        ['http://x.test/api/v4/users', { method: 'POST', headers: ROOT, body: 'username=t1' }],
        [
          'http://x.test/api/v4/users/2',
          { ...init(JSON.stringify({ bio: 'lone \ud800 surrogate' })), method: 'PUT' },
        ],
        ['http://x.test/api/v4/nowhere', init(JSON.stringify({ password: 'secret' }))],
        [
          'http://x.test/api/v4/users?private_token=root-token&x=1',
          init(
            JSON.stringify({
              username: 'q1',
              name: 'Q',
              email: 'q1@example.com',
              password: 'password1',
              nested: { token: 't', list: [1, 2] },
            }),
          ),
        ],
        ['http://x.test/api/v4/users', init('just text', 'text/plain')],
        ['http://x.test/api/v4/users/3', { method: 'DELETE', headers: ROOT }],
        // The same username again (409), a route that is not there for PUT (404), a c.json answer.
        [
          'http://x.test/api/v4/users',
          init(JSON.stringify({ username: 'a1', name: 'A', email: 'a9@example.com', password: 'password1' })),
        ],
        ['http://x.test/api/v4/user', { method: 'PUT', headers: ROOT, body: '{}' }],
        ['http://x.test/api/v4/users/2/block', { method: 'POST', headers: ROOT }],
        ['http://x.test/api/v4/users/2/unblock', { method: 'POST', headers: ROOT, body: '' }],
        ['http://x.test/api/v4/projects', init(JSON.stringify({ name: 'p1' }))],
        ['http://x.test/api/v4/projects/1/issues', init(JSON.stringify({ title: 'i1' }))],
        [
          'http://x.test/api/v4/projects/1/issues/1',
          { ...init(JSON.stringify({ state_event: 'close' })), method: 'PUT' },
        ],
        // Far past the journal's cap: its entry shows the start, as an eager one does.
        [
          'http://x.test/api/v4/projects/1/issues',
          init(JSON.stringify({ password: 's', title: 'big', description: 'é'.repeat(200_000) })),
        ],
        [
          'http://x.test/api/v4/users',
          init(`password=p&${'a=b&'.repeat(30_000)}`, 'application/x-www-form-urlencoded'),
        ],
        ['http://x.test/api/v4/users', init('t'.repeat(100_000), 'text/plain')],
      ];
      for (const [url, req] of cases) {
        const light = await a.fetch(url, req);
        const native = await b.fetch(new Request(url, req));
        expect([light.status, [...light.headers], await light.text()]).toEqual([
          native.status,
          [...native.headers],
          await native.text(),
        ]);
      }
      // As JSON: the fields' order counts too.
      const entries = (fx: ReturnType<typeof world>) =>
        JSON.stringify(fx.requests().map((e) => ({ ...e, durationMs: 0 })));
      expect(entries(a)).toBe(entries(b));
      expect(a.state.users).toEqual(b.state.users);
    },
  );

  it('fx.app.request: a string body over maxBodySize is refused (413) as a streamed one is, and one within it is read', async () => {
    const fx = createFauxlab({
      scenario: { users: [{ username: 'root', admin: true, tokens: [{ token: 'root-token' }] }] },
      maxBodySize: 200,
    });
    const post = (body: string) =>
      fx.app.request('/api/v4/users', {
        method: 'POST',
        headers: { ...ROOT, 'Content-Type': 'application/json' },
        body,
      });
    const fields = { username: 'u1', email: 'u1@example.com', password: 'password1' };
    // 100 characters of three UTF-8 bytes each: 300 bytes, over the cap though the string is short.
    const over = await post(JSON.stringify({ ...fields, name: '\u20ac'.repeat(100) }));
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({ message: '413 Request Entity Too Large' });
    expect(fx.requests.last()).toMatchObject({ status: 413, truncated: ['body'] });
    expect(fx.state.users.size).toBe(1);
    // 40 of them: 120 bytes, within it.
    const within = await post(JSON.stringify({ ...fields, name: '\u20ac'.repeat(40) }));
    expect(within.status).toBe(201);
    expect(((await within.json()) as { name: string }).name).toBe('\u20ac'.repeat(40));
  });

  it('lightRequest: reads as a native Request (instanceof, defaults, one read, stream, clone, form data)', async () => {
    const req = lightRequest('http://x.test/a?b=1', { method: 'POST', body: 'x=1&y=%C3%A9' })!;
    expect(req).toBeInstanceOf(Request);
    const native = new Request('http://x.test/a?b=1', { method: 'POST', body: 'x=1&y=%C3%A9' });
    expect([req.url, req.method, [...req.headers]]).toEqual([native.url, native.method, [...native.headers]]);
    expect(knownBody(req)).toBe('x=1&y=%C3%A9');
    expect(await req.clone().text()).toBe('x=1&y=%C3%A9');
    expect(req.bodyUsed).toBe(false);
    expect(await req.text()).toBe('x=1&y=%C3%A9');
    expect(req.bodyUsed).toBe(true);
    await expect(req.text()).rejects.toThrow(TypeError);
    // What only the native request has is the native request's.
    const streamed = lightRequest('http://x.test/', {
      method: 'PUT',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    })!;
    expect(streamed.signal.aborted).toBe(false);
    expect(new TextDecoder().decode((await streamed.body!.getReader().read()).value)).toBe('a=1');
    expect(streamed.bodyUsed).toBe(true);
    const form = await lightRequest('http://x.test/', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1&b=%C3%A9',
    })!.formData();
    expect([...form.entries()]).toEqual([
      ['a', '1'],
      ['b', '\u00e9'],
    ]);
    expect(await lightRequest('http://x.test/', { method: 'POST', body: 'bad \udc00' })!.text()).toBe(
      await new Request('http://x.test/', { method: 'POST', body: 'bad \udc00' }).text(),
    );
    const get = lightRequest('http://x.test/')!;
    expect([get.method, get.body, knownBody(get), await get.text()]).toEqual(['GET', null, null, '']);
    // Anything the native constructor refuses or would change is left to it.
    for (const init of [
      { method: 'get' },
      { method: 'TRACE' },
      { method: 'GET', body: 'x' },
      { body: new Uint8Array(1), method: 'POST' },
      { signal: new AbortController().signal },
    ] as RequestInit[])
      expect(lightRequest('http://x.test/', init)).toBeUndefined();
    // The platform takes it where it takes a Request, as it takes the native one.
    const init = { method: 'POST', headers: { a: 'b' }, body: 'copied' };
    const read = async (r: Request) => [r.url, r.method, [...r.headers], await r.text()];
    expect(await read(new Request(lightRequest('http://x.test/s', init)!, { headers: { c: 'd' } }))).toEqual(
      await read(new Request(new Request('http://x.test/s', init), { headers: { c: 'd' } })),
    );
    expect(await read(new Request(lightRequest('http://x.test/s', init)!))).toEqual(
      await read(new Request(new Request('http://x.test/s', init))),
    );
    expect(lightRequest('/relative')).toBeUndefined();
    expect(lightRequest('http://user:pw@x.test/')).toBeUndefined();
    expect(knownBody(native)).toBeUndefined();
  });

  it('lightRequest: an init member it leaves to the native request is seen however the init holds it (own, hidden, inherited, behind a proxy)', () => {
    const post = { method: 'POST', headers: ROOT, body: '{}' };
    const hidden = { ...post };
    Object.defineProperty(hidden, 'cache', { value: 'no-store', enumerable: false });
    class Init {
      method = 'POST';
      body = '{}';
      get keepalive() {
        return true;
      }
    }
    const inits: object[] = [
      { ...post, signal: new AbortController().signal },
      { ...post, priority: 'high' },
      hidden,
      Object.assign(Object.create({ redirect: 'manual' }) as object, post),
      new Init(),
      new Proxy({ ...post }, { get: (t, k) => (k === 'mode' ? 'cors' : Reflect.get(t, k)) }),
    ];
    for (const init of inits) expect(lightRequest('http://x.test/api/v4/users', init)).toBeUndefined();
    // Members set to undefined are not set; nor is anything else the init has.
    for (const init of [
      { ...post },
      { ...post, signal: undefined, window: undefined },
      { ...post, extra: 1 },
    ])
      expect(knownBody(lightRequest('http://x.test/api/v4/users', init)!)).toBe('{}');
  });

  it('fx.fetch: a Request and an object with any init member (own, hidden or inherited) is read as an init, anything else as bindings', async () => {
    const fx = world();
    const req = () => new Request('http://x.test/api/v4/user', { headers: ROOT });
    // As an init, `method: 'HEAD'` makes a HEAD request: no body. As bindings, the GET's body.
    const hidden = {};
    Object.defineProperty(hidden, 'method', { value: 'HEAD', enumerable: false });
    for (const init of [{ method: 'HEAD' }, hidden, Object.create({ method: 'HEAD' }) as object])
      expect(await (await fx.fetch(req(), init)).text()).toBe('');
    for (const env of [{}, { incoming: undefined, outgoing: undefined }])
      expect(JSON.parse(await (await fx.fetch(req(), env)).text())).toMatchObject({ username: 'root' });
  });

  it('lightRequest: its URL is the one the native Request makes, whether it is parsed or taken as it is', () => {
    const urls = [
      'http://localhost/api/v4/users',
      'http://localhost/',
      'http://localhost',
      'http://LOCALHOST/x',
      'http://x.test/a/./b',
      'http://x.test/a/../b',
      'http://x.test/a/%2e%2E/b',
      'http://x.test/a/.b',
      "http://x.test/a?b='c",
      'http://x.test/a?b=%zz&c=%41',
      'http://x.test/a%20b',
      'http://x.test/a b',
      'http://127.1/x',
      'http://x.0x7f/x',
      'http://a.b.c/x?y=1&z=[1]',
      'http://x.test/a?q=a/b?c',
      'https://x.test:443/a',
      'http://x.test:80/a',
      'http://x.test/a#frag',
      'http://x.test/a\\b',
      'http://x.test/\u00e4',
      'http://x.test/a|b',
      'http://x.test/a?x=`',
      'http://x.test//a',
      'http://x.test/a/..',
      'http://x.test/a/.',
      'http://x-y.z9/a;b=c',
      'http://9x.test/~user/@a:b',
      'http://x.test/a?',
      'http://x.test/a?%2e',
    ];
    const native = (url: string) => {
      try {
        return new Request(url).url;
      } catch {
        return undefined;
      }
    };
    for (const url of urls) expect([url, lightRequest(url)?.url]).toEqual([url, native(url)]);
  });

  it('journalBodyKept: a pending entry keeps a bounded start of a large body, from which its entry is the same', () => {
    const bodies = [
      '',
      '{"a":1}',
      JSON.stringify({ password: 'p', x: 'y'.repeat(100_000) }),
      `token=t&${'k=v&'.repeat(50_000)}`,
      'z'.repeat(1_000_000),
      `{"x":"${'"'.repeat(10)}`,
    ];
    const types = ['application/json', 'application/x-www-form-urlencoded', 'text/plain', ''];
    for (const limit of [0, 2, 40, 4096])
      for (const text of bodies)
        for (const type of types) {
          const kept = journalBodyKept(text, limit);
          expect(kept.length).toBeLessThanOrEqual(Math.max(limit * 16 + 1, limit + 1024, 4096) + 1);
          expect(journalBodyText(kept, type, limit)).toEqual(journalBodyText(text, type, limit));
        }
  });
});
