/**
 * `fauxlab scenario capture` reads a server it does not control: its token goes nowhere else (no
 * redirect, next-page link or clone URL to another origin is followed), answers are bounded in size,
 * a next-page link back to itself ends the capture, and keys such as `__proto__` in answers are data.
 */
import { describe, expect, it } from 'vitest';
import { capture } from '../../src/capture/capture.js';
import { MAX_ANSWER_BYTES } from '../../src/capture/client.js';

const BASE = 'http://gitlab.test';
const json = (body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status: 200,
    headers: { 'Content-Type': 'application/json', ...headers },
  });

/** A fake source: `routes` by path (without /api/v4); records every request's URL and token. */
function source(routes: Record<string, () => Response>) {
  const seen: { url: string; token: string | null }[] = [];
  const f: typeof fetch = async (input, init) => {
    const url = String(input);
    const token = new Headers(init?.headers).get('private-token');
    seen.push({ url, token });
    const u = new URL(url);
    if (u.origin !== BASE) return new Response('elsewhere', { status: 200 });
    const path = u.pathname.replace(/^\/api\/v4/, '');
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
    return route ? route() : json([]);
  };
  return { f, seen };
}

const me = () => json({ id: 1, username: 'root', is_admin: false });

describe('capture: a hostile source', () => {
  it('a redirect to another origin is not followed, and the token never leaves the instance', async () => {
    const s = source({
      '/user': () => new Response(null, { status: 302, headers: { Location: 'http://evil.test/x' } }),
    });
    await expect(capture({ url: BASE, token: 'secret', fetch: s.f })).rejects.toThrow(
      'GET /api/v4/user redirects to http://evil.test/x; not followed (the token would go with it)',
    );
    expect(s.seen.every((r) => r.url.startsWith(BASE))).toBe(true);
  });

  it('a next-page link to another origin is not followed; one back to the same page ends the capture', async () => {
    const away = source({
      '/user': me,
      '/projects': () => json([], { Link: '<http://evil.test/api/v4/projects?page=2>; rel="next"' }),
    });
    await capture({ url: BASE, token: 'secret', fetch: away.f });
    expect(away.seen.filter((r) => !r.url.startsWith(BASE))).toEqual([]);
    const loop = source({
      '/user': me,
      '/groups': () =>
        json([], { Link: `<${BASE}/api/v4/groups?min_access_level=10&per_page=100>; rel="next"` }),
    });
    await expect(capture({ url: BASE, token: 'secret', fetch: loop.f })).rejects.toThrow(
      /GET \/groups: the next page links back to/,
    );
  });

  it('a page refused after the first ends the capture rather than writing a list cut short', async () => {
    const s = source({
      '/user': me,
      '/projects': () => json([{ id: 1 }], { Link: `<${BASE}/api/v4/projects?page=2>; rel="next"` }),
    });
    const f: typeof fetch = async (input, init) =>
      String(input).includes('page=2')
        ? new Response('{"message":"403 Forbidden"}', {
            status: 403,
            headers: { 'Content-Type': 'application/json' },
          })
        : s.f(input, init);
    await expect(capture({ url: BASE, token: 'secret', fetch: f })).rejects.toThrow(
      'GET /projects answered 403: 403 Forbidden',
    );
  });

  it('an answer past the size bound ends the capture before it is all read', async () => {
    let sent = 0;
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    const huge = () =>
      new Response(
        new ReadableStream({
          pull(c) {
            sent += chunk.length;
            if (sent > MAX_ANSWER_BYTES * 4) c.close();
            else c.enqueue(chunk);
          },
        }),
        { status: 200, headers: { 'Content-Type': 'application/json' } },
      );
    const s = source({ '/user': huge });
    await expect(capture({ url: BASE, token: 'secret', fetch: s.f })).rejects.toThrow(
      'GET /api/v4/user: the answer is larger than 64 MiB',
    );
    expect(sent).toBeLessThan(MAX_ANSWER_BYTES * 2);
  });

  it('a clone URL on another origin is not cloned; __proto__ keys in answers stay data', async () => {
    const project = JSON.parse(
      `{"id": 7, "path_with_namespace": "root/app", "name": "app", "visibility": "private", "default_branch": "main",
        "http_url_to_repo": "http://evil.test/root/app.git", "namespace": {"kind": "user"},
        "owner": {"id": 1, "username": "root", "__proto__": {"polluted": true}}}`,
    ) as unknown;
    const s = source({
      '/user': me,
      '/projects/root%2Fapp': () => json(project),
      '/projects/7': () => json(project),
      '/projects/7/labels': () =>
        new Response('[{"id": 1, "name": "x", "color": "#fff", "__proto__": {"polluted": true}}]', {
          headers: { 'Content-Type': 'application/json' },
        }),
    });
    const got = await capture({
      url: BASE,
      token: 'secret',
      projects: ['root/app'],
      git: '/usr/bin/git',
      fetch: s.f,
    });
    expect(got.warnings).toContain(
      `project root/app: repository not captured (its URL http://evil.test/root/app.git is not on ${BASE})`,
    );
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(s.seen.every((r) => r.url.startsWith(BASE))).toBe(true);
  });
});
