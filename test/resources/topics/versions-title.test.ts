/** A topic's `title` (15.0, topics/versions.ts): at 14.10 neither shown nor taken; from 15.0 required on create. */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { Minor } from '../../../src/core/versions.js';

const at = (version: Minor) =>
  createFauxlab({
    version,
    scenario: {
      users: [
        { username: 'root', admin: true, tokens: [{ token: 'root-api' }] },
        { username: 'alice', tokens: [{ token: 'alice-api' }] },
      ],
      projects: [{ path: 'root/app', tag_list: ['ruby'] }],
    },
  });
const send = async (fx: ReturnType<typeof at>, method: string, path: string, body?: unknown) => {
  const res = await fx.app.request(`/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('topic title by release', () => {
  it('14.10: no title in the entity; POST without one is 201', async () => {
    const fx = at('14.10');
    const made = await send(fx, 'POST', '/topics', { name: 'go', title: 'Go' });
    expect(made.status).toBe(201);
    expect(Object.keys(made.body)).toEqual([
      'id',
      'name',
      'description',
      'total_projects_count',
      'avatar_url',
    ]);
  });

  it('15.0: title after name, required on POST, set by PUT; a tag_list topic shows its name', async () => {
    const fx = at('15.0');
    expect(await send(fx, 'POST', '/topics', { name: 'go' })).toEqual({
      status: 400,
      body: { error: 'title is missing' },
    });
    const made = await send(fx, 'POST', '/topics', { name: 'go', title: 'Go', description: 'd' });
    expect(made.status).toBe(201);
    expect(Object.keys(made.body)).toEqual([
      'id',
      'name',
      'title',
      'description',
      'total_projects_count',
      'avatar_url',
    ]);
    expect(made.body.title).toBe('Go');
    const put = await send(fx, 'PUT', `/topics/${String(made.body.id)}`, { title: 'Golang' });
    expect([put.status, put.body.title]).toEqual([200, 'Golang']);
    const list = await fx.app.request('/api/v4/topics?search=ruby');
    expect(((await list.json()) as { title: string }[]).map((t) => t.title)).toEqual(['ruby']);
  });
});

describe('POST /topics/merge by release', () => {
  it('15.3: no such route; 15.4: the source topic goes, its projects take the target', async () => {
    expect(
      (await send(at('15.3'), 'POST', '/topics/merge', { source_topic_id: 1, target_topic_id: 2 })).status,
    ).toBe(404);
    const fx = at('15.4');
    const asAlice = await fx.app.request('/api/v4/topics/merge', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'alice-api', 'Content-Type': 'application/json' },
      body: JSON.stringify({ source_topic_id: 1, target_topic_id: 2 }),
    });
    expect(asAlice.status).toBe(403);
    const go = await send(fx, 'POST', '/topics', { name: 'go', title: 'Go' });
    const ruby = (await send(fx, 'GET', '/topics?search=ruby')).body as unknown as { id: number }[];
    const same = await send(fx, 'POST', '/topics/merge', {
      source_topic_id: ruby[0]!.id,
      target_topic_id: ruby[0]!.id,
    });
    expect(same).toEqual({
      status: 400,
      body: { message: 'The source topic and the target topic are identical.' },
    });
    const merged = await send(fx, 'POST', '/topics/merge', {
      source_topic_id: ruby[0]!.id,
      target_topic_id: go.body.id,
    });
    expect([merged.status, merged.body.name, merged.body.total_projects_count]).toEqual([201, 'go', 1]);
    expect((await send(fx, 'GET', `/topics/${ruby[0]!.id}`)).status).toBe(404);
    const project = await send(fx, 'GET', '/projects/root%2Fapp');
    expect([project.body.tag_list, project.body.topics]).toEqual([['go'], ['go']]);
  });
});
