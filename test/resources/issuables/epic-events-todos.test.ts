/** Epic label events and marking an epic as a todo (EE). */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { acmeWithReaders, get, issuablesWorld, refused, send } from './world.js';

const world = () =>
  createFauxlab({
    tier: 'premium',
    scenario: {
      ...issuablesWorld,
      groups: acmeWithReaders.map((g) =>
        g.path === 'acme' ? { ...g, labels: [{ name: 'roadmap', color: '#0000FF' }] } : g,
      ),
      epics: [
        { group: 'acme', title: 'One', author: 'alice' },
        { group: 'acme', title: 'Secret', author: 'alice', confidential: true },
      ],
    } as never,
  });
type Fx = ReturnType<typeof world>;
const epicId = async (fx: Fx, iid: number) =>
  ((await get(fx, `/groups/acme/epics/${iid}`, 'alice-api')).body as { id: number }).id;

describe('epic resource label events', () => {
  it('GET /groups/:id/epics/:eventable_id/resource_label_events: add and remove events of group labels', async () => {
    const fx = world();
    const id = await epicId(fx, 1);
    await send(fx, 'PUT', '/groups/acme/epics/1', 'erin-api', { labels: 'roadmap,unknown' });
    await send(fx, 'PUT', '/groups/acme/epics/1', 'erin-api', { labels: 'unknown' });
    const res = await get(fx, `/groups/acme/epics/${id}/resource_label_events`, 'gus-api');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject([
      {
        resource_type: 'Epic',
        resource_id: id,
        action: 'add',
        label: { name: 'roadmap' },
        user: { username: 'erin' },
      },
      { resource_type: 'Epic', resource_id: id, action: 'remove', label: { name: 'roadmap' } },
    ]);
    const first = (res.body as { id: number }[])[0]!.id;
    const one = await get(fx, `/groups/acme/epics/${id}/resource_label_events/${first}`, 'gus-api');
    expect(one).toMatchObject({ status: 200, body: { id: first, action: 'add' } });
  });

  it('creating an epic with labels records add events; refusals', async () => {
    const fx = world();
    const made = await send(fx, 'POST', '/groups/acme/epics', 'erin-api', {
      title: 'New',
      labels: 'roadmap',
    });
    const id = (made.body as { id: number }).id;
    expect((await get(fx, `/groups/acme/epics/${id}/resource_label_events`, 'erin-api')).body).toMatchObject([
      { action: 'add', label: { name: 'roadmap' } },
    ]);
    expect((await get(fx, `/groups/acme/epics/${id}/resource_label_events`)).status).toBe(401);
    expect(await get(fx, `/groups/acme/epics/${id}/resource_label_events/99999`, 'erin-api')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    // A confidential epic is hidden from guests like its notes.
    const secret = await epicId(fx, 2);
    expect((await get(fx, `/groups/acme/epics/${secret}/resource_label_events`, 'gus-api')).status).toBe(404);
    expect((await get(fx, `/groups/acme/epics/__proto__/resource_label_events`, 'erin-api')).status).toBe(
      400,
    );
  });
});

describe('epic todos', () => {
  it('POST /groups/:id/epics/:epic_iid/todo: 201 with the group and the epic; 304 while pending; listed in /todos', async () => {
    const fx = world();
    const res = await send(fx, 'POST', '/groups/acme/epics/1/todo', 'gus-api');
    expect(res.status).toBe(201);
    const body = res.body as Record<string, unknown>;
    expect(body).not.toHaveProperty('project');
    expect(body).toMatchObject({
      group: { path: 'acme', kind: 'group', full_path: 'acme', web_url: 'http://localhost/groups/acme' },
      author: { username: 'gus' },
      action_name: 'marked',
      target_type: 'Epic',
      target: { iid: 1, title: 'One', reference: '&1' },
      target_url: 'http://localhost/groups/acme/-/epics/1',
      body: 'One',
      state: 'pending',
    });
    expect(Object.keys(body).slice(0, 4)).toEqual(['id', 'group', 'author', 'action_name']);
    await refused(fx, 'POST', '/groups/acme/epics/1/todo', 'gus-api', undefined, 304, undefined);
    const todos = await get(fx, '/todos', 'gus-api');
    expect(todos.body).toMatchObject([{ target_type: 'Epic', target: { iid: 1 } }]);
    expect(
      (await get(fx, `/todos?group_id=${(body.group as { id: number }).id}`, 'gus-api')).body,
    ).toHaveLength(1);
    await send(fx, 'POST', `/todos/${body.id as number}/mark_as_done`, 'gus-api');
    expect((await send(fx, 'POST', '/groups/acme/epics/1/todo', 'gus-api')).status).toBe(201);
  });

  it('POST /groups/:id/epics/:epic_iid/todo: 401 anonymous, 403 missing or confidential for guests; deleting the epic drops it', async () => {
    const fx = world();
    await refused(fx, 'POST', '/groups/acme/epics/1/todo', undefined, undefined, 401, {
      message: '401 Unauthorized',
    });
    await refused(fx, 'POST', '/groups/acme/epics/2/todo', 'gus-api', undefined, 403, {
      message: '403 Forbidden',
    });
    await refused(fx, 'POST', '/groups/acme/epics/77/todo', 'gus-api', undefined, 403, {
      message: '403 Forbidden',
    });
    await refused(fx, 'POST', '/groups/nope/epics/1/todo', 'gus-api', undefined, 404, {
      message: '404 Group Not Found',
    });
    await send(fx, 'POST', '/groups/acme/epics/1/todo', 'alice-api');
    expect((await send(fx, 'DELETE', '/groups/acme/epics/1', 'alice-api')).status).toBe(204);
    expect((await get(fx, '/todos', 'alice-api')).body).toEqual([]);
  });
});
