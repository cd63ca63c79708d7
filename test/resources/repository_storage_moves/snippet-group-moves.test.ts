/**
 * Snippet (`lib/api/snippet_repository_storage_moves.rb`) and group wiki
 * (`ee/lib/api/group_repository_storage_moves.rb`, premium) storage moves: the same model, their own
 * tables and ids, `BasicSnippet` and `BasicGroupDetails` as the container.
 */
import { describe, expect, it } from 'vitest';
import { advance, call, movesWorld, world } from './world.js';

describe('snippet repository storage moves', () => {
  it('schedule, follow, list and find; 404 Snippet Not Found', async () => {
    const fx = world();
    const made = await call(fx, 'POST', '/snippets/1/repository_storage_moves', 'root', {
      destination_storage_name: 'storage2',
    });
    expect(made.status).toBe(201);
    expect(Object.keys(made.body)).toEqual([
      'id',
      'created_at',
      'state',
      'source_storage_name',
      'destination_storage_name',
      'snippet',
    ]);
    expect(made.body.snippet).toMatchObject({
      id: 1,
      title: 'A snippet',
      visibility: 'public',
      project_id: null,
    });
    expect(made.body.snippet.author).toMatchObject({ username: 'owner' });
    expect(made.body.snippet.http_url_to_repo).toMatch(/\/snippets\/1\.git$/);
    await advance(fx, '4s');
    expect((await call(fx, 'GET', '/snippet_repository_storage_moves/1', 'root')).body.state).toBe(
      'finished',
    );
    expect((await call(fx, 'GET', '/snippets/1/repository_storage_moves', 'root')).body).toHaveLength(1);
    expect((await call(fx, 'GET', '/snippets/1/repository_storage_moves/1', 'root')).body.snippet.id).toBe(1);
    // The snippet is on storage2 now: the next move starts there.
    const next = await call(fx, 'POST', '/snippets/1/repository_storage_moves', 'root');
    expect(next.body).toMatchObject({
      id: 2,
      source_storage_name: 'storage2',
      destination_storage_name: 'default',
    });
    expect((await call(fx, 'GET', '/snippets/9/repository_storage_moves', 'root')).body).toEqual({
      message: '404 Snippet Not Found',
    });
    expect((await call(fx, 'GET', '/snippets/abc/repository_storage_moves', 'root')).status).toBe(404);
    expect((await call(fx, 'GET', '/snippets/1/repository_storage_moves', 'owner')).status).toBe(403);
    // Project moves keep their own ids.
    const p = await call(fx, 'POST', '/projects/acme%2Fapp/repository_storage_moves', 'root');
    expect(p.body.id).toBe(1);
  });

  it('the bulk move: every snippet on the source storage', async () => {
    const fx = world();
    expect(
      (
        await call(fx, 'POST', '/snippet_repository_storage_moves', 'root', {
          source_storage_name: 'default',
        })
      ).status,
    ).toBe(202);
    const all = (await call(fx, 'GET', '/snippet_repository_storage_moves', 'root')).body;
    expect(
      all.map((m: { snippet: { id: number }; destination_storage_name: string }) => [
        m.snippet.id,
        m.destination_storage_name,
      ]),
    ).toEqual([[1, 'default']]);
  });
});

describe('group repository storage moves (premium)', () => {
  it("a group's wiki moves; BasicGroupDetails; the bulk move takes groups with a wiki", async () => {
    const fx = world();
    const made = await call(fx, 'POST', '/groups/acme/repository_storage_moves', 'root', {
      destination_storage_name: 'cold',
    });
    expect(made.status).toBe(201);
    expect(made.body.group).toEqual({
      id: expect.any(Number),
      web_url: expect.stringMatching(/\/groups\/acme$/),
      name: 'acme',
    });
    await advance(fx, '4s');
    expect((await call(fx, 'GET', '/groups/acme/repository_storage_moves/1', 'root')).body.state).toBe(
      'finished',
    );
    expect(
      (await call(fx, 'POST', '/group_repository_storage_moves', 'root', { source_storage_name: 'default' }))
        .status,
    ).toBe(202);
    // acme is on `cold` now and acme/sub has no wiki: nothing more was scheduled.
    expect((await call(fx, 'GET', '/group_repository_storage_moves', 'root')).body).toHaveLength(1);
    expect(
      (await call(fx, 'POST', '/group_repository_storage_moves', 'root', { source_storage_name: 'cold' }))
        .status,
    ).toBe(202);
    expect(
      (await call(fx, 'GET', '/group_repository_storage_moves', 'root')).body.map(
        (m: { id: number }) => m.id,
      ),
    ).toEqual([2, 1]);
    expect((await call(fx, 'GET', '/groups/nope/repository_storage_moves', 'root')).body).toEqual({
      message: '404 Group Not Found',
    });
  });

  it('absent below premium', async () => {
    const fx = world({ ...movesWorld, tier: 'free' });
    expect((await call(fx, 'GET', '/group_repository_storage_moves', 'root')).body).toEqual({
      error: '404 Not Found',
    });
    expect((await call(fx, 'GET', '/projects/acme%2Fapp/repository_storage_moves', 'root')).status).toBe(200);
  });
});
