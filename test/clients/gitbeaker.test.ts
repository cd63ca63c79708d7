/**
 * @gitbeaker/rest, a real client, against fauxlab twice: in process through MSW, and over loopback HTTP
 * through @hono/node-server. The same calls must give the same results both ways (up to the host in
 * URLs), and those results must be the platform's.
 */
import { GitbeakerRequestError, Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioFile } from '../../src/scenario/schema.js';
import { CLIENT_VERSIONS, viaHttp as httpTarget, viaMsw as mswTarget, type Target } from './targets.js';
import type { Minor } from '../../src/core/versions.js';

const MSW_HOST = 'http://gitlab.test';
const USERS = 45;

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    {
      username: 'root',
      name: 'Administrator',
      admin: true,
      tokens: [{ token: 'root-token', scopes: ['api', 'sudo'] }],
    },
    { username: 'alice', name: 'Alice Liddell', tokens: [{ token: 'alice-token' }] },
    { username: 'bob', name: 'Bob Builder' },
    ...Array.from({ length: USERS - 3 }, (_, i) => ({ username: `user${String(i + 4).padStart(2, '0')}` })),
  ],
};

/** The release the running suite answers as (set by each suite of `CLIENT_VERSIONS`). */
let version: Minor = '13.12';
const viaMsw = () => mswTarget(scenario, MSW_HOST, 'error', version);
const viaHttp = () => httpTarget(scenario, version);

/** Web URLs and links carry the host the client used; everything else must match byte for byte. */
function normalise(value: unknown, host: string): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value).split(host).join('http://HOST'));
}

/** Runs the same client calls through MSW, then over HTTP (never both at once), each on a fresh world. */
async function both<T>(run: (api: Gitlab, t: Target) => Promise<T>): Promise<{ msw: T; http: T }> {
  const out: Partial<Record<'msw' | 'http', T>> = {};
  for (const [name, open] of [
    ['msw', viaMsw],
    ['http', viaHttp],
  ] as const) {
    const t = await open();
    try {
      out[name] = normalise(await run(new Gitlab({ host: t.host, token: 'root-token' }), t), t.host) as T;
    } finally {
      await t.close();
    }
  }
  expect(out.msw).toEqual(out.http);
  return out as { msw: T; http: T };
}

/** What a failed call surfaces: gitbeaker keeps the status and the body's message. */
async function failure(call: Promise<unknown>) {
  try {
    await call;
  } catch (e) {
    if (!(e instanceof GitbeakerRequestError)) throw e;
    return {
      status: e.cause?.response.status,
      contentType: e.cause?.response.headers.get('content-type'),
      description: e.cause?.description,
    };
  }
  throw new Error('the call succeeded');
}

const ids = (users: readonly { id: number }[]) => users.map((u) => u.id);
const descending = (from: number, n: number) => Array.from({ length: n }, (_, i) => from - i);

describe.each(CLIENT_VERSIONS)('@gitbeaker/rest Users against fauxlab (MSW and HTTP), GitLab %s', (at) => {
  beforeAll(() => {
    version = at;
  });

  it('Users.showCurrentUser(): the admin sees its own record', async () => {
    const { msw } = await both((api) => api.Users.showCurrentUser());
    expect(msw).toMatchObject({
      id: 1,
      username: 'root',
      name: 'Administrator',
      state: 'active',
      is_admin: true,
    });
    expect(msw).toMatchObject({ web_url: 'http://HOST/root', email: 'root@example.com' });
  });

  it('Users.all({ perPage: 2, maxPages: 2 }): two pages followed by Link, newest first', async () => {
    const { msw } = await both((api) => api.Users.all({ perPage: 2, maxPages: 2 }));
    expect(ids(msw)).toEqual(descending(USERS, 4));
  });

  it('Users.all(): walks every page by Link to the end', async () => {
    const { msw } = await both((api) => api.Users.all());
    expect(ids(msw)).toEqual(descending(USERS, USERS));
    expect(msw.find((u) => u.username === 'alice')).toMatchObject({
      id: 2,
      name: 'Alice Liddell',
      state: 'active',
    });
  });

  it('Users.all({ showExpanded }): pagination info read from the X-* headers', async () => {
    const { msw } = await both((api) => api.Users.all({ perPage: 20, maxPages: 1, showExpanded: true }));
    expect(ids(msw.data)).toEqual(descending(USERS, 20));
    expect(msw.paginationInfo).toEqual({
      total: USERS,
      next: 2,
      current: 1,
      previous: null,
      perPage: 20,
      totalPages: 3,
    });
  });

  it('Users.show(id): the admin view of one user', async () => {
    const { msw } = await both((api) => api.Users.show(2));
    expect(msw).toMatchObject({
      id: 2,
      username: 'alice',
      name: 'Alice Liddell',
      state: 'active',
      web_url: 'http://HOST/alice',
      email: 'alice@example.com',
      is_admin: false,
    });
  });

  it('Users.show(unknown id): 404 surfaces with the platform’s body', async () => {
    const { msw } = await both((api) => failure(api.Users.show(9999)));
    expect(msw).toEqual({ status: 404, contentType: 'application/json', description: '404 User Not Found' });
  });

  it('Users.create() as admin: the new user is returned and then listed', async () => {
    const { msw } = await both(async (api) => {
      const created = await api.Users.create({
        username: 'newbie',
        name: 'New Bie',
        email: 'newbie@example.com',
        password: 'correct-horse-battery',
        skipConfirmation: true,
      });
      return { created, shown: await api.Users.show(created.id), all: ids(await api.Users.all()) };
    });
    expect(msw.created).toMatchObject({
      id: USERS + 1,
      username: 'newbie',
      name: 'New Bie',
      email: 'newbie@example.com',
      state: 'active',
      is_admin: false,
      web_url: 'http://HOST/newbie',
    });
    expect(msw.shown).toMatchObject({ id: USERS + 1, username: 'newbie' });
    expect(msw.all).toEqual(descending(USERS + 1, USERS + 1));
  });

  it('Users.create() with a taken username: 409 surfaces with the platform’s message', async () => {
    const { msw } = await both((api) =>
      failure(
        api.Users.create({
          username: 'alice',
          name: 'A',
          email: 'other@example.com',
          password: 'correct-horse-battery',
        }),
      ),
    );
    expect(msw).toEqual({
      status: 409,
      contentType: 'application/json',
      description: 'Username has already been taken',
    });
  });

  it('Users.block / Users.unblock: true, the state changes, and a blocked user is refused', async () => {
    const { msw } = await both(async (api, t) => {
      const alice = new Gitlab({ host: t.host, token: 'alice-token' });
      const blocked = await api.Users.block(2);
      const afterBlock = (await api.Users.show(2)).state;
      const refused = await failure(alice.Users.showCurrentUser());
      const unblocked = await api.Users.unblock(2);
      const afterUnblock = (await api.Users.show(2)).state;
      const self = (await alice.Users.showCurrentUser()).username;
      return { blocked, afterBlock, refused, unblocked, afterUnblock, self };
    });
    expect(msw).toEqual({
      blocked: true,
      afterBlock: 'blocked',
      refused: {
        status: 403,
        contentType: 'application/json',
        description: '403 Forbidden - Your account has been blocked.',
      },
      unblocked: true,
      afterUnblock: 'active',
      self: 'alice',
    });
  });

  it('sudo: new Gitlab({ sudo: "alice" }) acts as alice', async () => {
    const { msw } = await both(async (_api, t) => {
      const asAlice = new Gitlab({ host: t.host, token: 'root-token', sudo: 'alice' });
      return asAlice.Users.showCurrentUser();
    });
    expect(msw).toMatchObject({ id: 2, username: 'alice', email: 'alice@example.com' });
    expect(msw).not.toHaveProperty('is_admin');
  });
});
