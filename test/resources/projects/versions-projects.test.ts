/**
 * The project fields and params that later releases add (src/resources/projects/versions.ts): each at
 * the release before it and at its own.
 */
import { describe, expect, it } from 'vitest';
import type { Minor } from '../../../src/core/versions.js';
import { projectsFx, send } from './world.js';

const at = (version: Minor) => projectsFx({ version });
const keys = (body: Record<string, unknown>) => Object.keys(body);

describe('project topics by release', () => {
  it('topics: absent at 13.12 (the param ignored as any unknown one); from 14.0 after tag_list, the same names', async () => {
    const old = at('13.12');
    const made = await send(old, 'POST', '/projects', 'frank-api', { name: 'Old', topics: 'a,b' });
    expect(made.res.status).toBe(201);
    expect([made.body.tag_list, keys(made.body)]).toEqual([[], expect.not.arrayContaining(['topics'])]);

    const fx = at('14.0');
    const created = await send(fx, 'POST', '/projects', 'frank-api', { name: 'New', topics: 'b,a' });
    expect(created.res.status).toBe(201);
    expect([created.body.tag_list, created.body.topics]).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ]);
    expect(keys(created.body)[keys(created.body).indexOf('tag_list') + 1]).toBe('topics');
    // Every shape shows it: the single project, lists, simple lists.
    const id = created.body.id as number;
    const shown = await send(fx, 'GET', `/projects/${id}`, 'frank-api');
    const listed = await send(fx, 'GET', '/projects?owned=true', 'frank-api');
    const simple = await send(fx, 'GET', '/projects?owned=true&simple=true', 'frank-api');
    for (const body of [shown.body, listed.body[0], simple.body[0]]) expect(body.topics).toEqual(['a', 'b']);
    // The deprecated tag_list still sets them; topics wins when both are given.
    const tagged = await send(fx, 'PUT', `/projects/${id}`, 'frank-api', { tag_list: ['c'] });
    expect(tagged.body.topics).toEqual(['c']);
    const both = await send(fx, 'PUT', `/projects/${id}`, 'frank-api', { tag_list: ['x'], topics: ['y'] });
    expect([both.body.tag_list, both.body.topics]).toEqual([['y'], ['y']]);
  });

  it('PUT /projects/:id with topics only: 400 at 13.12 (no attribute given), an update from 14.0', async () => {
    const old = at('13.12');
    const oldId = (await send(old, 'POST', '/projects', 'frank-api', { name: 'Old' })).body.id as number;
    const refused = await send(old, 'PUT', `/projects/${oldId}`, 'frank-api', { topics: ['a'] });
    expect(refused.res.status).toBe(400);
    expect(refused.body.error).toMatch(/are missing, at least one parameter must be provided$/);
    expect(refused.body.error).not.toMatch(/topics/);

    const fx = at('14.0');
    const id = (await send(fx, 'POST', '/projects', 'frank-api', { name: 'New' })).body.id as number;
    const missing = await send(fx, 'PUT', `/projects/${id}`, 'frank-api', {});
    expect(missing.body.error).toMatch(/, topics(,| are missing)/);
    const updated = await send(fx, 'PUT', `/projects/${id}`, 'frank-api', { topics: 'q' });
    expect([updated.res.status, updated.body.topics]).toEqual([200, ['q']]);
  });
});
