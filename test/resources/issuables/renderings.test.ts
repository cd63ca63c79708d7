import { describe, expect, it } from 'vitest';
import { createFauxlab, type Fauxlab } from '../../../src/index.js';
import { issuablesWorld, NOW } from './world.js';

const WEBSITE = '/projects/acme%2Fwebsite';
const VIEWERS = ['root-api', 'alice-api', 'gus-api', 'bob-api', undefined];

/** Status, headers and body of a GET, as one string. */
async function read(fx: Fauxlab, path: string, token?: string): Promise<string> {
  const res = await fx.fetch(`http://localhost/api/v4${path}`, {
    headers: token ? { 'PRIVATE-TOKEN': token } : {},
  });
  return `${res.status} ${JSON.stringify([...res.headers])} ${await res.text()}`;
}

const PATHS = [
  `${WEBSITE}/issues`,
  `${WEBSITE}/issues?state=opened&labels=bug`,
  `${WEBSITE}/issues?labels=bug&milestone=v1.0`,
  `${WEBSITE}/issues?labels=bug&milestone=v1.0&created_after=2000-01-01T00:00:00Z`,
  `${WEBSITE}/issues?labels=feature,docs&order_by=updated_at&sort=asc`,
  `${WEBSITE}/issues?milestone=v2.0&with_labels_details=true`,
  `${WEBSITE}/issues?state=closed&labels=bug&per_page=1&page=1`,
  `${WEBSITE}/issues/1`,
  `${WEBSITE}/issues/4`,
  `${WEBSITE}/issues/6/notes`,
  `${WEBSITE}/issues/6/notes?sort=asc`,
  '/groups/acme/issues?labels=bug',
  '/issues?scope=all&state=opened',
  `${WEBSITE}/merge_requests`,
  `${WEBSITE}/merge_requests?view=simple`,
  `${WEBSITE}/merge_requests?labels=bug&state=opened`,
  `${WEBSITE}/merge_requests/1`,
  `${WEBSITE}/merge_requests/2`,
  '/groups/acme/merge_requests?with_labels_details=true',
];

async function readAll(fx: Fauxlab): Promise<string[]> {
  const out: string[] = [];
  for (const token of VIEWERS) for (const path of PATHS) out.push(await read(fx, path, token));
  return out;
}

async function send(fx: Fauxlab, method: string, path: string, body: object, token = 'root-api') {
  const res = await fx.fetch(`http://localhost/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBeLessThan(300);
  return res;
}

const parsed = async <T>(fx: Fauxlab, path: string, token = 'root-api') => {
  const res = await fx.fetch(`http://localhost/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': token } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
};

interface IssueJson {
  iid: number;
  title: string;
  labels: string[];
  milestone: { title: string } | null;
  author: { name: string };
  user_notes_count: number;
  upvotes: number;
}

describe('issuable renderings', () => {
  it('GET issues, merge requests and notes: the same status, headers and bytes for every viewer whether renderings are kept or not', async () => {
    const kept = createFauxlab({ scenario: issuablesWorld, responseCache: false, renderCacheBytes: 1 << 24 });
    const none = createFauxlab({ scenario: issuablesWorld, responseCache: false, renderCacheBytes: 0 });
    // Run by run: renderings are kept from the second ask on, and answered from the third.
    for (let i = 0; i < 3; i++) {
      const expected = await readAll(none);
      expect(expected.filter((s) => s.startsWith('200 ')).length).toBeGreaterThan(PATHS.length * 3);
      expect(await readAll(kept)).toEqual(expected);
    }
    expect(kept.renderCache.size).toBeGreaterThan(0);
    // Confidential issues stay hidden from a guest whatever another viewer's reads left behind.
    const titles = (await parsed<IssueJson[]>(kept, `${WEBSITE}/issues`, 'gus-api')).map((x) => x.title);
    expect(titles).not.toContain('Secret vulnerability');
  });

  it('GET /projects/:id/issues/:issue_iid and lists: a kept issue gives way to an edit, a label rename, a milestone change, a new note, an award and an author rename', async () => {
    const fx = createFauxlab({ scenario: issuablesWorld, responseCache: false, renderCacheBytes: 1 << 24 });
    const issue = () => parsed<IssueJson>(fx, `${WEBSITE}/issues/1`);
    const listed = async (query = '') =>
      (await parsed<IssueJson[]>(fx, `${WEBSITE}/issues${query}`)).find((x) => x.iid === 1);
    const both = async () => {
      const one = await issue();
      expect(await listed()).toEqual(one === undefined ? one : { ...one, subscribed: undefined });
      return one;
    };
    for (let i = 0; i < 3; i++) await both();
    expect(await both()).toMatchObject({ title: 'Login button broken', labels: ['bug'], upvotes: 2 });

    await send(fx, 'PUT', `${WEBSITE}/issues/1`, { title: 'Login button fixed' });
    expect((await both()).title).toBe('Login button fixed');

    await send(fx, 'PUT', `${WEBSITE}/labels/bug`, { new_name: 'defect' });
    expect((await both()).labels).toEqual(['defect']);
    expect(await listed('?labels=defect&milestone=v1.0')).toBeDefined();
    expect(await listed('?labels=bug&milestone=v1.0')).toBeUndefined();

    const milestones = await parsed<{ id: number; title: string }[]>(fx, `${WEBSITE}/milestones?title=v1.0`);
    await send(fx, 'PUT', `${WEBSITE}/milestones/${milestones[0]!.id}`, { title: 'v1.0-final' });
    expect((await both()).milestone?.title).toBe('v1.0-final');
    expect(await listed('?labels=defect&milestone=v1.0-final')).toBeDefined();
    expect(await listed('?labels=defect&milestone=v1.0')).toBeUndefined();

    const notes = (await both()).user_notes_count;
    await send(fx, 'POST', `${WEBSITE}/issues/1/notes`, { body: 'Me too' });
    expect((await both()).user_notes_count).toBe(notes + 1);

    await send(fx, 'POST', `${WEBSITE}/issues/1/award_emoji`, { name: 'thumbsup' });
    expect((await both()).upvotes).toBe(3);

    await send(fx, 'PUT', '/users/3', { name: 'Robert Builder' });
    expect((await both()).author.name).toBe('Robert Builder');
  });

  it('GET /projects/:id/issues/:issue_iid/notes: a kept note gives way to an edit and its author rename', async () => {
    const fx = createFauxlab({ scenario: issuablesWorld, responseCache: false, renderCacheBytes: 1 << 24 });
    const notes = () =>
      parsed<{ id: number; body: string; author: { name: string } }[]>(fx, `${WEBSITE}/issues/6/notes`);
    for (let i = 0; i < 3; i++) await notes();
    const [note] = await notes();
    expect(note).toMatchObject({ body: 'Fixed locally', author: { name: 'Dave Grohl' } });
    await send(fx, 'PUT', `${WEBSITE}/issues/6/notes/${note!.id}`, { body: 'Fixed for real' }, 'dave-api');
    expect((await notes())[0]!.body).toBe('Fixed for real');
    await send(fx, 'PUT', '/users/5', { name: 'David Grohl' });
    expect((await notes())[0]!.author.name).toBe('David Grohl');
  });

  it('GET /projects/:id/merge_requests and /merge_requests/:merge_request_iid: a kept merge request gives way to an edit, a label rename and an author rename', async () => {
    const fx = createFauxlab({ scenario: issuablesWorld, responseCache: false, renderCacheBytes: 1 << 24 });
    type Mr = { iid: number; title: string; labels: string[]; author: { name: string } };
    const one = () => parsed<Mr>(fx, `${WEBSITE}/merge_requests/1`);
    const listed = async () =>
      (await parsed<Mr[]>(fx, `${WEBSITE}/merge_requests`)).find((x) => x.iid === 1)!;
    for (let i = 0; i < 3; i++) await Promise.all([one(), listed()]);
    expect(await one()).toMatchObject({ title: 'Fix login button', labels: ['bug'] });
    await send(fx, 'PUT', `${WEBSITE}/merge_requests/1`, { title: 'Fix the login button' });
    expect((await one()).title).toBe('Fix the login button');
    expect((await listed()).title).toBe('Fix the login button');
    await send(fx, 'PUT', `${WEBSITE}/labels/bug`, { new_name: 'defect' });
    expect((await one()).labels).toEqual(['defect']);
    expect((await listed()).labels).toEqual(['defect']);
    await send(fx, 'PUT', '/users/5', { name: 'David Grohl' });
    expect((await one()).author.name).toBe('David Grohl');
    expect((await listed()).author.name).toBe('David Grohl');
  });
});

describe('issuable finder', () => {
  it('GET /projects/:id/issues: filters by state, label and milestone titles find what the full predicate finds, across a group label of the same title', async () => {
    const fx = createFauxlab({ scenario: issuablesWorld, responseCache: false });
    await send(fx, 'POST', '/groups/acme/labels', { name: 'Bug', color: '#123456' });
    await send(fx, 'PUT', `${WEBSITE}/issues/2`, { add_labels: 'Bug' });
    await send(fx, 'PUT', `${WEBSITE}/issues/3`, { add_labels: 'Bug', milestone_id: 0 });
    const ids = async (query: string) =>
      (await parsed<IssueJson[]>(fx, `${WEBSITE}/issues?per_page=100&${query}`)).map((x) => x.iid);
    const seen = new Set<string>();
    for (const state of ['', 'state=opened', 'state=closed', 'state=all'])
      for (const labels of ['', 'labels=bug', 'labels=BUG,docs', 'labels=feature', 'labels=nothing'])
        for (const milestone of ['', 'milestone=v1.0', 'milestone=v2.0', 'milestone=nothing']) {
          const query = [state, labels, milestone].filter((s) => s !== '').join('&');
          // A filter that excludes nothing takes the full predicate's way.
          const full = await ids(`${query}&created_after=2000-01-01T00:00:00Z`);
          expect(await ids(query), query).toEqual(full);
          for (const order of ['order_by=updated_at&sort=asc', 'order_by=created_at&sort=asc'])
            expect(await ids(`${query}&${order}`), `${query}&${order}`).toEqual(
              await ids(`${query}&${order}&created_after=2000-01-01T00:00:00Z`),
            );
          seen.add(JSON.stringify(full));
        }
    // The combinations tell issues apart (the comparison is not of empty lists only).
    expect(seen.size).toBeGreaterThan(8);
    expect(await ids('labels=bug&state=closed')).toEqual([3]);
    expect(await ids('labels=bug')).toEqual([4, 3, 2, 1]);
  });
});

describe('issuable list pages', () => {
  const QUERIES = [
    '',
    '?state=opened',
    '?state=opened&labels=bug',
    '?labels=bug&milestone=v1.0&with_labels_details=true',
    '?per_page=1',
    '?per_page=1&page=2',
    '?per_page=2&page=2',
    '?per_page=2&page=9',
  ];

  /**
   * A project's lists as an instance that keeps renderings and one that keeps none answer them (the
   * first read 5 times: a page goes to the renderings from its second ask, is kept from its third and
   * answered from its fourth).
   */
  async function same(kept: Fauxlab, none: Fauxlab, id: number, origin = 'http://localhost') {
    const at = (fx: Fauxlab, query: string) =>
      fx
        .fetch(`${origin}/api/v4/projects/${id}/issues${query}`, { headers: { 'PRIVATE-TOKEN': 'root-api' } })
        .then(async (res) => `${res.status} ${JSON.stringify([...res.headers])} ${await res.text()}`);
    const out: string[] = [];
    for (const query of QUERIES) {
      const expected = await at(none, query);
      for (let i = 0; i < 5; i++) expect(await at(kept, query), query).toBe(expected);
      out.push(expected);
    }
    return out;
  }

  it('GET /projects/:id/issues: a kept page answers what a fresh rendering does after a project path change, a group path change, a settings change, the next days and from another origin', async () => {
    const kept = createFauxlab({ scenario: issuablesWorld, responseCache: false, renderCacheBytes: 1 << 24 });
    const none = createFauxlab({ scenario: issuablesWorld, responseCache: false, renderCacheBytes: 0 });
    const both = async (method: string, path: string, body: object) => {
      await send(kept, method, path, body);
      await send(none, method, path, body);
    };
    const id = (await parsed<{ id: number }>(kept, WEBSITE)).id;
    // A group milestone on an issue: its web_url reads the group's path.
    await both('POST', '/groups/acme/milestones', { title: 'g1', due_date: '2021-03-20' });
    const g1 = (await parsed<{ id: number }[]>(kept, '/groups/acme/milestones?title=g1'))[0]!;
    await both('PUT', `${WEBSITE}/issues/6`, { milestone_id: g1.id });

    let before = await same(kept, none, id);
    // Pages of one list are told apart.
    expect(new Set(before).size).toBe(before.length);
    const steps: [string, () => Promise<void>][] = [
      ['project path', () => both('PUT', `/projects/${id}`, { path: 'site' })],
      ['group path', () => both('PUT', '/groups/acme', { path: 'acme-inc' })],
      ['settings', () => both('PUT', '/application/settings', { gravatar_enabled: false })],
      [
        'days',
        async () => {
          kept.clock.advance(20 * 86_400_000);
          none.clock.advance(20 * 86_400_000);
        },
      ],
    ];
    for (const [what, step] of steps) {
      await step();
      const after = await same(kept, none, id);
      expect(after, what).not.toEqual(before);
      before = after;
    }
    expect(await same(kept, none, id, 'http://other.example:8080')).not.toEqual(before);
  });
  it('GET /projects/:id/issues: two instances over the same records keep their pages apart, a label rename in one leaving the other as it was', async () => {
    const a = createFauxlab({ scenario: issuablesWorld, responseCache: false, renderCacheBytes: 1 << 24 });
    const none = createFauxlab({ scenario: issuablesWorld, responseCache: false, renderCacheBytes: 0 });
    const id = (await parsed<{ id: number }>(a, WEBSITE)).id;
    const before = await same(a, none, id);
    const b = createFauxlab({ scenario: { now: NOW }, responseCache: false, renderCacheBytes: 1 << 24 });
    b.restore(a.snapshot());
    expect(await same(b, none, id)).toEqual(before);
    await send(b, 'PUT', `${WEBSITE}/labels/bug`, { new_name: 'defect' });
    await send(none, 'PUT', `${WEBSITE}/labels/bug`, { new_name: 'defect' });
    const renamed = await same(b, none, id);
    expect(renamed.some((s) => s.includes('"defect"'))).toBe(true);
    const fresh = createFauxlab({ scenario: issuablesWorld, responseCache: false, renderCacheBytes: 0 });
    expect(await same(a, fresh, id)).toEqual(before);
  });
});

describe('issue list parsing', () => {
  it('GET /projects/:id/issues: a list URL asked again is read as the first time (links, pages, refusals), whatever was asked in between', async () => {
    const fx = createFauxlab({ scenario: issuablesWorld, responseCache: false });
    const urls = [
      `${WEBSITE}/issues?state=opened&per_page=1&page=2`,
      `${WEBSITE}/issues?state=opened&per_page=2`,
      `${WEBSITE}/issues?labels=bug&not[milestone]=v1.0`,
      `${WEBSITE}/issues?author_id=3&author_username=bob`,
      `${WEBSITE}/issues?assignee_id=abc`,
      '/issues?scope=all&state=opened&per_page=1',
      '/groups/acme/issues?state=opened&per_page=1',
    ];
    const first = [];
    for (const url of urls) first.push(await read(fx, url, 'root-api'));
    expect(first[0]).toContain('state=opened');
    expect(first.filter((s) => s.startsWith('400 ')).length).toBe(2);
    for (let i = 0; i < 2; i++)
      for (const [n, url] of urls.entries()) expect(await read(fx, url, 'root-api'), url).toBe(first[n]);
    // Another viewer of the same URL: what it parses to is the same, what it finds is its own.
    const guest = await parsed<IssueJson[]>(fx, `${WEBSITE}/issues?per_page=100`, 'gus-api');
    const root = await parsed<IssueJson[]>(fx, `${WEBSITE}/issues?per_page=100`);
    expect(root.length).toBeGreaterThan(guest.length);
  });
  it('GET /projects/:id/issues: a list URL naming a user by username finds by the users as they are now, asked again after a rename', async () => {
    const fx = createFauxlab({ scenario: issuablesWorld, responseCache: false });
    const iids = async (query: string) =>
      (await parsed<IssueJson[]>(fx, `${WEBSITE}/issues?${query}`)).map((x) => x.iid);
    const queries = [
      'author_username=bob',
      'not[author_username]=bob&state=opened',
      'assignee_username=dave',
    ];
    const before = [];
    for (let i = 0; i < 2; i++) for (const q of queries) before.push(await iids(q));
    expect(before[0]).toEqual([4, 1]);
    await send(fx, 'PUT', '/users/3', { username: 'robert' });
    expect(await iids('author_username=bob')).toEqual([]);
    expect(await iids('author_username=robert')).toEqual([4, 1]);
    expect(await iids('not[author_username]=bob&state=opened')).toEqual(await iids('state=opened'));
  });
});
