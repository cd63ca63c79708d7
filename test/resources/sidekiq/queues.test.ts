import { describe, expect, it } from 'vitest';
import { body, call, world } from '../ci/world.js';

const path = (q: string, query = '?user=root') => `/admin/sidekiq/queues/${q}${query}`;

describe('DELETE /admin/sidekiq/queues/:queue_name', () => {
  it('drops the matching jobs: {completed, deleted_jobs}; fauxlab`s queues hold none waiting', async () => {
    const fx = world();
    const res = await call(fx, 'DELETE', path('default'), 'root');
    expect([res.status, await body(res)]).toEqual([200, { completed: true, deleted_jobs: 0 }]);
    const more = await call(fx, 'DELETE', path('mailers', '?project=acme/app&caller_id=X'), 'root');
    expect(await body(more)).toEqual({ completed: true, deleted_jobs: 0 });
  });

  it('needs at least one context key, none blank: 400 in Grape`s words', async () => {
    const fx = world();
    expect(await body(await call(fx, 'DELETE', path('default', ''), 'root'))).toEqual({
      error:
        'user, project, root_namespace, subscription_plan, caller_id, feature_category are missing, at least one parameter must be provided',
    });
    expect(await body(await call(fx, 'DELETE', path('default', '?user='), 'root'))).toEqual({
      error: 'user is empty',
    });
  });

  it('an unknown queue is 404 named after it', async () => {
    const fx = world();
    for (const q of ['nope', '__proto__', 'constructor']) {
      const res = await call(fx, 'DELETE', path(q), 'root');
      expect([res.status, await body(res)]).toEqual([404, { message: `404 ${q} Not Found` }]);
    }
  });

  it('admins only, before the params: 401 anonymous, 403 others', async () => {
    const fx = world();
    expect((await call(fx, 'DELETE', path('default', ''))).status).toBe(401);
    expect(await body(await call(fx, 'DELETE', path('default', ''), 'owner'))).toEqual({
      message: '403 Forbidden',
    });
  });
});
