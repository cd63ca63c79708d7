/**
 * @gitbeaker/rest, a real client, walking the projects API through MSW: offset pages by Link with
 * `maxPages`, keyset pages by the `Link` URL, and the project operations a client needs.
 */
import { GitbeakerRequestError, Gitlab } from '@gitbeaker/rest';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { fauxlabHandlers } from '../../src/msw/index.js';
import { CLIENT_VERSIONS } from './targets.js';

const PROJECTS = 137;
const ids = (list: readonly { id: number }[]) => list.map((p) => p.id);

describe.each(CLIENT_VERSIONS)('@gitbeaker/rest Projects against fauxlab (MSW), GitLab %s', (version) => {
  // A host per release: the suites' MSW servers never answer for each other.
  const HOST = `http://gitlab.projects-${version}.test`;
  const fx = createFauxlab({
    version,
    scenario: {
      now: '2021-03-01T12:00:00.000Z',
      users: [
        { username: 'root', name: 'Administrator', admin: true, tokens: [{ token: 'root-token' }] },
        { username: 'alice', name: 'Alice Liddell', tokens: [{ token: 'alice-token' }] },
      ],
      generate: { users: 10, groups: 5, projects: PROJECTS },
    },
  });
  const server = setupServer(...fauxlabHandlers(fx, { baseUrl: HOST }));
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => fx.reset());
  afterAll(() => server.close());
  const api = new Gitlab({ host: HOST, token: 'root-token' });

  it('Projects.all({ maxPages, perPage }): stops after maxPages pages, newest first', async () => {
    const list = await api.Projects.all({ perPage: 20, maxPages: 3, simple: true });
    expect(list).toHaveLength(60);
    const all = ids(await api.Projects.all({ perPage: 100, simple: true }));
    expect(ids(list)).toEqual(all.slice(0, 60));
  });

  it('Projects.all(): walks every offset page by Link to the end', async () => {
    const list = await api.Projects.all({ perPage: 50, orderBy: 'id', sort: 'asc' });
    expect(ids(list)).toEqual(Array.from({ length: PROJECTS }, (_, i) => i + 1));
  });

  it('Projects.all({ pagination: keyset, orderBy: id }): walks keyset pages to the end', async () => {
    const list = await api.Projects.all({ pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 40 });
    expect(ids(list)).toEqual(Array.from({ length: PROJECTS }, (_, i) => i + 1));
    const desc = await api.Projects.all({ pagination: 'keyset', orderBy: 'id', sort: 'desc', perPage: 40 });
    expect(ids(desc)).toEqual(Array.from({ length: PROJECTS }, (_, i) => PROJECTS - i));
  });

  it('Projects.all({ pagination: keyset, maxPages }): keyset with a page bound', async () => {
    const list = await api.Projects.all({
      pagination: 'keyset',
      orderBy: 'id',
      sort: 'asc',
      perPage: 25,
      maxPages: 2,
    });
    expect(ids(list)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('Projects.all({ pagination: keyset }) without orderBy id: the 405 surfaces', async () => {
    try {
      await api.Projects.all({ pagination: 'keyset', perPage: 20 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(GitbeakerRequestError);
      expect((e as GitbeakerRequestError).cause?.response.status).toBe(405);
      expect((e as GitbeakerRequestError).cause?.description).toBe(
        'Keyset pagination is not yet available for this type of request',
      );
    }
  });

  it('Projects.create, show, edit, star, fork, archive, remove', async () => {
    const alice = new Gitlab({ host: HOST, token: 'alice-token' });
    const created = await alice.Projects.create({ name: 'Client Made', description: 'from gitbeaker' });
    expect(created).toMatchObject({ path_with_namespace: 'alice/client-made', visibility: 'private' });
    const shown = await alice.Projects.show(created.id);
    expect(shown.permissions).toEqual({
      project_access: { access_level: 40, notification_level: 3 },
      group_access: null,
    });
    const edited = await alice.Projects.edit(created.id, { description: 'edited', visibility: 'public' });
    expect(edited).toMatchObject({ description: 'edited', visibility: 'public' });
    const starred = await api.Projects.star(created.id);
    expect(starred.star_count).toBe(1);
    const fork = await api.Projects.fork(created.id, { path: 'mine', name: 'Mine' });
    expect(fork).toMatchObject({ path_with_namespace: 'root/mine', forked_from_project: { id: created.id } });
    expect((await alice.Projects.archive(created.id)).archived).toBe(true);
    await alice.Projects.remove(created.id);
    await expect(alice.Projects.show(created.id)).rejects.toThrow(GitbeakerRequestError);
  });
});
