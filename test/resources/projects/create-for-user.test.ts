/**
 * `POST /projects/user/:user_id`: an admin creates a project in a user's namespace, the user its
 * creator; `name` required; 401, 403 for non-admins, `404 User Not Found`.
 */
import { describe, expect, it } from 'vitest';
import { projectsFx, send } from './world.js';

const idOf = async (fx: ReturnType<typeof projectsFx>, username: string) =>
  ((await send(fx, 'GET', `/users?username=${username}`, 'root-api')).body as { id: number }[])[0]!.id;

describe('POST /projects/user/:user_id', () => {
  it("POST /projects/user/:user_id: 201, the project in the user's namespace, the user its creator and owner", async () => {
    const fx = projectsFx();
    const bob = await idOf(fx, 'bob');
    const r = await send(fx, 'POST', `/projects/user/${bob}`, 'root-api', {
      name: 'Made For Bob',
      visibility: 'internal',
    });
    expect(r.res.status).toBe(201);
    expect(r.body).toMatchObject({
      name: 'Made For Bob',
      path: 'made-for-bob',
      path_with_namespace: 'bob/made-for-bob',
      visibility: 'internal',
      creator_id: bob,
      namespace: { kind: 'user', path: 'bob' },
    });
    // Bob sees it as his own.
    const mine = await send(fx, 'GET', '/projects?owned=true', 'bob-api');
    expect((mine.body as { path_with_namespace: string }[]).map((p) => p.path_with_namespace)).toContain(
      'bob/made-for-bob',
    );
    // The user's namespace is taken like any other: the same name again is the model's 400.
    const again = await send(fx, 'POST', `/projects/user/${bob}`, 'root-api', { name: 'Made For Bob' });
    expect(again.res.status).toBe(400);
  });

  it('POST /projects/user/:user_id: name required, admins only, a missing user is 404', async () => {
    const fx = projectsFx();
    const bob = await idOf(fx, 'bob');
    expect(await send(fx, 'POST', `/projects/user/${bob}`, 'root-api', { path: 'x' })).toMatchObject({
      res: { status: 400 },
      body: { error: 'name is missing' },
    });
    expect((await send(fx, 'POST', `/projects/user/${bob}`, 'alice-api', { name: 'X' })).res.status).toBe(
      403,
    );
    expect((await send(fx, 'POST', `/projects/user/${bob}`, undefined, { name: 'X' })).res.status).toBe(401);
    expect(await send(fx, 'POST', '/projects/user/99999', 'root-api', { name: 'X' })).toMatchObject({
      res: { status: 404 },
      body: { message: '404 User Not Found' },
    });
    expect((await send(fx, 'POST', '/projects/user/__proto__', 'root-api', { name: 'X' })).res.status).toBe(
      400,
    );
    // Nothing was made for bob by the refused requests.
    const mine = await send(fx, 'GET', '/projects?owned=true', 'bob-api');
    expect((mine.body as { name: string }[]).map((p) => p.name)).not.toContain('X');
  });
});
