import { describe, expect, it } from 'vitest';
import { send, world } from '../metadata/world.js';

describe('GET /groups/:id/descendant_groups', () => {
  it('GET /groups/:id/descendant_groups: every group below at any depth that the caller sees', async () => {
    const fx = world();
    const sub = await send(fx, 'POST', '/groups', 'owner', {
      name: 'Sub',
      path: 'sub',
      parent_id: 6,
      visibility: 'public',
    });
    const deep = await send(fx, 'POST', '/groups', 'owner', {
      name: 'Deep',
      path: 'deep',
      parent_id: sub.body.id,
      visibility: 'private',
    });
    expect(deep.status).toBe(201);
    const owner = await send(fx, 'GET', '/groups/acme/descendant_groups', 'owner');
    expect(owner.body.map((g: any) => g.full_path)).toEqual(['acme/sub/deep', 'acme/sub']);
    expect(owner.res.headers.get('X-Total')).toBe('2');
    // The subgroups list stops at the children.
    expect(
      (await send(fx, 'GET', '/groups/acme/subgroups', 'owner')).body.map((g: any) => g.full_path),
    ).toEqual(['acme/sub']);
    const outsider = await send(fx, 'GET', '/groups/acme/descendant_groups?all_available=true', 'outsider');
    expect(outsider.body.map((g: any) => g.full_path)).toEqual(['acme/sub']);
    const search = await send(fx, 'GET', '/groups/acme/descendant_groups?search=deep', 'owner');
    expect(search.body.map((g: any) => g.path)).toEqual(['deep']);
    expect((await send(fx, 'GET', '/groups/nope/descendant_groups')).status).toBe(404);
  });
});
