import type { Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { serveNode } from '../../../src/host/node-server.js';
import { createFauxlab } from '../../../src/index.js';
import { PROJECT_DEFAULTS, type Project } from '../../../src/resources/projects/model.js';
import {
  IS_DEFAULT,
  SHARED_FIELDS,
  SHARED_PIECES,
  isDefault,
} from '../../../src/resources/projects/render-parts.js';
import { DAY, dayAfter, isoTime } from '../../../src/resources/projects/statistics.js';
import { localServers } from '../../helpers.js';
import { projectsWorld } from './world.js';

const outcome = (f: () => string | null) => {
  try {
    return f();
  } catch (e) {
    return `throws ${(e as Error).name}`;
  }
};

const slowDayAfter = (s: string) => new Date(Date.parse(s) + DAY).toISOString();
const slowIsoTime = (s: string | null) => {
  if (s === null || /\.\d{3}Z$/.test(s)) return s;
  const t = Date.parse(s);
  return Number.isNaN(t) ? s : new Date(t).toISOString();
};

const ODD_TIMES = [
  '2021-03-05T10:00:00Z',
  '2021-03-05T10:00:00.000+02:00',
  '2021-03-05',
  '2021-03-05T10:00:00.5Z',
  '2021-02-28T23:59:59.999Z',
  '2020-02-28T12:00:00.000Z',
  '2021-12-31T23:59:59.999Z',
  '2021-13-05T00:00:00.000Z',
  '2021-02-00T00:00:00.000Z',
  '2021-02-05T24:00:00.000Z',
  '2021-02-05T23:60:00.000Z',
  '2021-02-05T23:00:60.000Z',
  '2021-02-05T23:00:00.000z',
  '2021-02-05 23:00:00.000Z',
  '+002021-02-05T23:00:00.000Z',
  '9999-12-27T23:59:59.999Z',
  '0000-01-01T00:00:00.000Z',
  'nope',
  '',
];

describe('project renderings', () => {
  it('dayAfter: the time a day later, as Date computes it, for every day of every month and odd forms', () => {
    for (const year of [0, 1, 1969, 1970, 2000, 2020, 2021, 2100, 9999])
      for (let month = 0; month < 12; month++)
        for (let day = 1; day <= 31; day++) {
          const t = Date.UTC(year, month, day, (day * 7) % 24, (day * 13) % 60, (day * 17) % 60, day * 31);
          const d = new Date(t);
          d.setUTCFullYear(year);
          if (d.getUTCMonth() !== month) continue;
          const s = d.toISOString();
          expect(dayAfter(s), s).toBe(slowDayAfter(s));
        }
    for (const s of ODD_TIMES)
      expect(
        outcome(() => dayAfter(s)),
        s,
      ).toBe(outcome(() => slowDayAfter(s)));
  });

  it('isoTime: the same as the pattern it stands for', () => {
    for (const s of [
      ...ODD_TIMES,
      null,
      '.123Z',
      'x.12aZ',
      '2021-03-05T10:00:00.١٢٣Z',
      '2021-03-05T10:00:00.123Z',
    ])
      expect(isoTime(s), String(s)).toBe(slowIsoTime(s));
  });

  it('IS_DEFAULT: agrees with the piece fields compared one by one, whichever field differs', () => {
    const d = PROJECT_DEFAULTS as Record<string, unknown>;
    const other = (v: unknown) =>
      typeof v === 'boolean' ? !v : typeof v === 'number' ? v + 1 : v === null ? 'set' : `${String(v)}-x`;
    for (const piece of SHARED_PIECES) {
      expect(IS_DEFAULT[piece](d as unknown as Project), piece).toBe(true);
      for (const field of Object.keys(d)) {
        const p = { ...d, [field]: other(d[field]) } as unknown as Project;
        const fields: readonly string[] = SHARED_FIELDS[piece];
        expect(IS_DEFAULT[piece](p), `${piece} ${field}`).toBe(isDefault(p, fields));
        expect(IS_DEFAULT[piece](p), `${piece} ${field}`).toBe(!fields.includes(field));
      }
    }
    expect(new Set(SHARED_PIECES)).toEqual(new Set(Object.keys(IS_DEFAULT)));
  });

  it('GET /projects/:id: URLs and _links from a base URL that JSON escapes are the joined URL escaped', async () => {
    const base = 'http://gitlab.example/a"b\\c';
    const plain = createFauxlab({ scenario: projectsWorld });
    const fx = createFauxlab({ scenario: projectsWorld, baseUrl: base, responseCache: false });
    const read = async (f: typeof fx, id: number) =>
      (
        await f.fetch(`http://localhost/api/v4/projects/${id}`, { headers: { 'PRIVATE-TOKEN': 'root-api' } })
      ).text();
    for (const id of [1, 2, 3]) {
      const path = (JSON.parse(await read(plain, id)) as { path_with_namespace: string }).path_with_namespace;
      const text = await read(fx, id);
      expect(text).toContain(`"ssh_url_to_repo":${JSON.stringify(`git@gitlab.example:${path}.git`)}`);
      expect(text).toContain(`"http_url_to_repo":${JSON.stringify(`${base}/${path}.git`)}`);
      expect(text).toContain(`"web_url":${JSON.stringify(`${base}/${path}`)}`);
      const links = (JSON.parse(text) as { _links: Record<string, string> })._links;
      expect([links.self, links.members]).toEqual([
        `${base}/api/v4/projects/${id}`,
        `${base}/api/v4/projects/${id}/members`,
      ]);
    }
  });

  it('GET /projects/:id: a project read once keeps no rendering; read again, it is kept and served the same', async () => {
    const fx = createFauxlab({ scenario: projectsWorld, responseCache: false });
    const read = async () =>
      (
        await fx.fetch('http://localhost/api/v4/projects/1', { headers: { 'PRIVATE-TOKEN': 'root-api' } })
      ).text();
    const first = await read();
    expect(fx.renderCache.size).toBe(0);
    const second = await read();
    expect(fx.renderCache.size).toBe(1);
    const third = await read();
    expect([second, third]).toEqual([first, first]);
  });

  it('GET /projects: a page of kept and fresh renderings in any mix is the same bytes as one built afresh', async () => {
    const kept = createFauxlab({ scenario: projectsWorld, responseCache: false });
    const none = createFauxlab({ scenario: projectsWorld, responseCache: false, renderCacheBytes: 0 });
    const get = async (fx: typeof kept, path: string, token: string) =>
      (await fx.fetch(`http://localhost/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': token } })).text();
    for (const token of ['root-api', 'alice-api']) {
      const page = '/projects?per_page=100&order_by=id&sort=asc';
      const expected = await get(none, page, token);
      expect(await get(kept, page, token)).toBe(expected);
      // Some kept (each read twice), some not: runs of both between kept renderings.
      for (const id of [2, 4, 5])
        await get(kept, page.replace('per_page=100', `per_page=1&page=${id}`), token);
      expect(kept.renderCache.size).toBeGreaterThan(0);
      expect(await get(kept, page, token)).toBe(expected);
      expect(await get(kept, page, token)).toBe(expected);
    }
  });
});

describe('project renderings as UTF-8', () => {
  it('GET /projects/:id and GET /projects: text beyond ASCII is sent as UTF-8, ASCII as it is', async () => {
    const names = ['Café Ünïcødé', 'Ǆemal 😀 ☃', 'plain ascii'];
    const fx = createFauxlab({
      scenario: {
        ...projectsWorld,
        groups: [...(projectsWorld.groups ?? []), { path: 'zurich', name: 'Zürich', visibility: 'public' }],
        projects: names.map((name, i) => ({
          path: `zurich/p${i}`,
          name,
          visibility: 'public' as const,
          description: `${name} — ✓ \ud800`,
        })),
      },
      responseCache: false,
      renderCacheBytes: 0,
    });
    const get = async (path: string) => {
      const res = await fx.fetch(`http://localhost/api/v4${path}`, {
        headers: { 'PRIVATE-TOKEN': 'root-api' },
      });
      const bytes = Buffer.from(await res.arrayBuffer());
      return { bytes, text: bytes.toString('utf8') };
    };
    type Shown = { name: string; description: string; name_with_namespace: string };
    for (let id = 1; id <= names.length; id++) {
      const { bytes, text } = await get(`/projects/${id}`);
      const p = JSON.parse(text) as Shown;
      expect([p.name, p.description, p.name_with_namespace]).toEqual([
        names[id - 1],
        `${names[id - 1]} — ✓ \ud800`,
        `Zürich / ${names[id - 1]}`,
      ]);
      expect(bytes.equals(Buffer.from(text, 'utf8'))).toBe(true);
    }
    const { bytes, text } = await get('/projects?order_by=id&sort=asc');
    expect((JSON.parse(text) as Shown[]).map((p) => p.name)).toEqual(names);
    expect(bytes.equals(Buffer.from(text, 'utf8'))).toBe(true);
  });
});

describe('project renderings over HTTP', () => {
  const served = localServers();
  const ours: Server[] = [];
  afterAll(() => {
    for (const s of ours) {
      s.closeAllConnections();
      s.close();
    }
  });

  it('GET /projects/:id and GET /projects over HTTP: first reads (string bodies) and kept ones (bytes) send the same bytes and length', async () => {
    const names = ['Café Ünïcødé', 'Ǆemal 😀 ☃', 'plain ascii'];
    const scenario = {
      ...projectsWorld,
      groups: [
        ...(projectsWorld.groups ?? []),
        { path: 'zurich', name: 'Zürich', visibility: 'public' as const },
      ],
      projects: names.map((name, i) => ({
        path: `zurich/p${i}`,
        name,
        visibility: 'public' as const,
        description: `${name} — ✓ \ud800`,
      })),
    };
    const kept = createFauxlab({ scenario, responseCache: false });
    const none = createFauxlab({ scenario, responseCache: false, renderCacheBytes: 0 });
    const viaServeNode = await new Promise<string>((resolve) => {
      const s = serveNode({ fetch: kept.app.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => {
        resolve(`http://127.0.0.1:${info.port}`);
      });
      ours.push(s);
    });
    const bases = [viaServeNode, await served(kept.fetch)];
    const noneBase = await served(none.fetch);
    const read = async (base: string, id: number) => {
      const res = await fetch(`${base}/api/v4/projects/${id}`, { headers: { 'PRIVATE-TOKEN': 'root-api' } });
      return { length: res.headers.get('content-length'), bytes: Buffer.from(await res.arrayBuffer()) };
    };
    for (let id = 1; id <= names.length; id++) {
      const expected = await read(noneBase, id);
      // Bodies name each server's own base URL: compared with it replaced, byte for byte (latin1).
      const rebased = (bytes: Buffer, from: string) => bytes.toString('latin1').replaceAll(from, 'BASE');
      expect(Number(expected.length)).toBe(expected.bytes.length);
      expect(expected.bytes.equals(Buffer.from(expected.bytes.toString('utf8'), 'utf8'))).toBe(true);
      for (const base of bases)
        for (let n = 0; n < 3; n++) {
          const got = await read(base, id);
          expect(Number(got.length)).toBe(got.bytes.length);
          expect(rebased(got.bytes, base), `project ${id}, read ${n + 1} on ${base}`).toBe(
            rebased(expected.bytes, noneBase),
          );
        }
    }
    expect(kept.renderCache.size).toBeGreaterThan(0);
    // A page on a fresh instance: its first read has no kept rendering (one string), the second keeps
    // them (bytes), the third serves the kept views.
    const pages = createFauxlab({ scenario, responseCache: false });
    const pageBase = await served(pages.fetch);
    for (let n = 0; n < 3; n++) {
      const query = '/api/v4/projects?order_by=id&sort=asc&per_page=100';
      const [got, want] = await Promise.all(
        [pageBase + query, noneBase + query].map(async (url) => {
          const res = await fetch(url, { headers: { 'PRIVATE-TOKEN': 'root-api' } });
          return { length: res.headers.get('content-length'), bytes: Buffer.from(await res.arrayBuffer()) };
        }),
      );
      expect(Number(got!.length)).toBe(got!.bytes.length);
      expect(got!.bytes.toString('latin1').replaceAll(pageBase, 'BASE'), `page read ${n + 1}`).toBe(
        want!.bytes.toString('latin1').replaceAll(noneBase, 'BASE'),
      );
      expect(pages.renderCache.size).toBe(n === 0 ? 0 : names.length);
    }
  });
});

describe('project namespaces after writes', () => {
  it('GET /projects/:id and GET /projects: a renamed group, parent group or owner shows at once, twice read before', async () => {
    const fx = createFauxlab({ scenario: projectsWorld, responseCache: false });
    const none = createFauxlab({ scenario: projectsWorld, responseCache: false, renderCacheBytes: 0 });
    const get = async (f: typeof fx, path: string) =>
      (await f.fetch(`http://localhost/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': 'root-api' } })).text();
    const put = async (path: string, body: unknown) => {
      for (const f of [fx, none]) {
        const res = await f.fetch(`http://localhost/api/v4${path}`, {
          method: 'PUT',
          headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.status).toBe(200);
      }
    };
    const paths = ['/projects/3', '/projects/4', '/projects?order_by=id&sort=asc'];
    const same = async () => {
      for (const path of paths) {
        const want = await get(none, path);
        for (let i = 0; i < 3; i++) expect(await get(fx, path)).toBe(want);
      }
    };
    await same();
    const rocket = () => get(fx, '/projects/3').then((t) => JSON.parse(t) as Record<string, unknown>);
    const acme = (JSON.parse(await get(fx, '/groups/acme')) as { id: number }).id;
    const labs = (JSON.parse(await get(fx, `/groups/${encodeURIComponent('acme/labs')}`)) as { id: number })
      .id;
    await put(`/groups/${labs}`, { name: 'Laboratories' });
    expect((await rocket()).name_with_namespace).toBe('Acme / Laboratories / Rocket');
    await same();
    await put(`/groups/${acme}`, { name: 'Acme Corp' });
    expect((await rocket()).name_with_namespace).toBe('Acme Corp / Laboratories / Rocket');
    await same();
    const bob = (JSON.parse(await get(fx, '/users?username=bob')) as { id: number }[])[0]!.id;
    await put(`/users/${bob}`, { name: 'Robert Builder' });
    const notes = JSON.parse(await get(fx, '/projects/4')) as {
      owner: { name: string };
      namespace: { name: string };
    };
    expect([notes.owner.name, notes.namespace.name]).toEqual(['Robert Builder', 'Robert Builder']);
    await same();
  });
});

describe('project renderings over a generated world', () => {
  it('GET /projects and GET /projects/:id: kept or built afresh, the same bytes for every project, an admin and a user', async () => {
    const scenario = {
      now: '2021-03-01T12:00:00.000Z',
      users: [
        { username: 'root', name: 'Administrator', admin: true, tokens: [{ token: 'root-api' }] },
        { username: 'alice', name: 'Alice Liddell', tokens: [{ token: 'alice-api' }] },
      ],
      generate: { users: 60, groups: 12, projects: 240 },
    };
    const kept = createFauxlab({ scenario, responseCache: false });
    const none = createFauxlab({ scenario, responseCache: false, renderCacheBytes: 0 });
    const get = async (f: typeof kept, path: string, token: string) => {
      const res = await f.fetch(`http://localhost/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': token } });
      return `${res.status} ${await res.text()}`;
    };
    for (const token of ['root-api', 'alice-api']) {
      for (let page = 1; page <= 3; page++) {
        const path = `/projects?per_page=100&page=${page}`;
        const want = await get(none, path, token);
        for (let i = 0; i < 3; i++) expect(await get(kept, path, token)).toBe(want);
      }
      for (let id = 1; id <= 240; id += 7) {
        const want = await get(none, `/projects/${id}`, token);
        for (let i = 0; i < 3; i++) expect(await get(kept, `/projects/${id}`, token)).toBe(want);
      }
    }
    expect(kept.renderCache.size).toBeGreaterThan(0);
  });
});

describe('project orders after writes', () => {
  it('GET /projects?order_by=name|path: after projects are created and renamed, the order a full sort gives', async () => {
    // More projects than one leaf bucket holds, so that a write leaves some buckets (and keys) as they were.
    const fx = createFauxlab({
      scenario: {
        now: '2021-03-01T12:00:00.000Z',
        users: [{ username: 'root', name: 'Administrator', admin: true, tokens: [{ token: 'root-api' }] }],
        generate: { users: 20, groups: 5, projects: 300 },
      },
      responseCache: false,
    });
    interface Row {
      id: number;
      name: string;
      path: string;
    }
    const call = async (method: string, path: string, body?: unknown) =>
      fx.fetch(`http://localhost/api/v4${path}`, {
        method,
        headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const all = async (query: string) => {
      const out: Row[] = [];
      for (let page = 1; ; page++) {
        const rows = (await (
          await call('GET', `/projects?per_page=100&page=${page}&${query}`)
        ).json()) as Row[];
        if (rows.length === 0) return out;
        out.push(...rows);
      }
    };
    const order = async (by: string, sort: string) =>
      (await all(`order_by=${by}&sort=${sort}`)).map((p) => p.id);
    const expected = async (by: 'name' | 'path', sort: string) => {
      const rows = await all('order_by=id&sort=asc');
      const byte = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      const dir = sort === 'asc' ? 1 : -1;
      return rows.sort((a, b) => dir * (byte(a[by], b[by]) || a.id - b.id)).map((p) => p.id);
    };
    const orders = [
      ['name', 'asc'],
      ['name', 'desc'],
      ['path', 'asc'],
      ['path', 'desc'],
    ] as const;
    for (const [by, sort] of orders) expect(await order(by, sort)).toEqual(await expected(by, sort));
    const names = ['Aardvark', 'Zebra', 'Website', 'middle', 'Intranet'];
    for (let i = 0; i < names.length; i++) {
      const made = await call('POST', '/projects', { name: names[i], path: `made-${names.length - i}` });
      expect(made.status).toBe(201);
      const renamed = await call('PUT', `/projects/${i * 60 + 1}`, {
        name: `${names[names.length - 1 - i]} renamed`,
      });
      expect(renamed.status).toBe(200);
      for (const [by, sort] of orders)
        expect(await order(by, sort), `${by} ${sort} ${i}`).toEqual(await expected(by, sort));
    }
  });
});
