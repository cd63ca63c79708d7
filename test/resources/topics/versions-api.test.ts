/** The Topics API by release (topics/versions.ts): its routes from 14.5, deleting a topic from 14.9. */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { Minor } from '../../../src/core/versions.js';

const at = (version: Minor) =>
  createFauxlab({
    version,
    scenario: {
      users: [{ username: 'root', admin: true, tokens: [{ token: 'root-api' }] }],
      projects: [{ path: 'root/app', tag_list: ['ruby'] }],
    },
  });
const send = async (fx: ReturnType<typeof at>, method: string, path: string, body?: unknown) => {
  const res = await fx.app.request(`/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
};
const NO_ROUTE = { status: 404, body: { error: '404 Not Found' } };

describe('Topics API by release', () => {
  it('14.4: no topic routes (the catch-all 404); the tag list stays', async () => {
    const fx = at('14.4');
    expect(await send(fx, 'GET', '/topics')).toEqual(NO_ROUTE);
    expect(await send(fx, 'GET', '/topics/1')).toEqual(NO_ROUTE);
    expect(await send(fx, 'POST', '/topics', { name: 'go' })).toEqual(NO_ROUTE);
    expect(await send(fx, 'PUT', '/topics/1', { description: 'd' })).toEqual(NO_ROUTE);
    expect(await send(fx, 'DELETE', '/topics/1')).toEqual(NO_ROUTE);
    expect((await send(fx, 'GET', '/projects/root%2Fapp')).body.tag_list).toEqual(['ruby']);
  });

  it('14.5: list, show, create and update; DELETE /topics/:id still a missing route', async () => {
    const fx = at('14.5');
    const listed = await send(fx, 'GET', '/topics');
    expect([listed.status, listed.body.map((t: { name: string }) => t.name)]).toEqual([200, ['ruby']]);
    expect((await send(fx, 'GET', '/topics/1')).body).toMatchObject({ id: 1, name: 'ruby' });
    expect((await send(fx, 'POST', '/topics', { name: 'go' })).status).toBe(201);
    expect((await send(fx, 'PUT', '/topics/2', { description: 'd' })).body).toMatchObject({
      description: 'd',
    });
    expect(await send(fx, 'DELETE', '/topics/2')).toEqual(NO_ROUTE);
  });

  it('14.8 / 14.9: DELETE /topics/:id from 14.9', async () => {
    expect(await send(at('14.8'), 'DELETE', '/topics/1')).toEqual(NO_ROUTE);
    const fx = at('14.9');
    expect(await send(fx, 'DELETE', '/topics/1')).toEqual({ status: 204, body: null });
    expect((await send(fx, 'GET', '/topics')).body).toEqual([]);
  });
});
