/**
 * `POST /container_registry_event/events` (`lib/api/container_registry_event.rb`): the registry's
 * notifications, authenticated by `registry.notification_secret` alone; `handle!` changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { registryWorld } from './world.js';
import { call, world } from './world.js';

const PATH = '/container_registry_event/events';
const EVENTS = {
  events: [
    { action: 'push', target: { repository: 'acme/app', tag: 'v2', digest: 'sha256:abc' } },
    { action: 'pull', target: { repository: 'acme/app' } },
  ],
};

describe('POST /container_registry_event/events', () => {
  it('the notification secret in Authorization: 200, the status as body; nothing else is a credential', async () => {
    const fx = world();
    const ok = await call(fx, 'POST', PATH, undefined, EVENTS, { Authorization: 'registry-secret' });
    expect(ok).toMatchObject({ status: 200, body: 200 });
    expect((await call(fx, 'POST', PATH, 'root', EVENTS)).body).toEqual({ message: '401 Unauthorized' });
    expect(
      (await call(fx, 'POST', PATH, undefined, EVENTS, { Authorization: 'registry-secreT' })).status,
    ).toBe(401);
    expect(
      (await call(fx, 'POST', PATH, undefined, EVENTS, { Authorization: 'Bearer registry-secret' })).status,
    ).toBe(401);
    // The registry's own content type is JSON too.
    const res = await fx.app.request('/api/v4/container_registry_event/events', {
      method: 'POST',
      headers: {
        Authorization: 'registry-secret',
        'Content-Type': 'application/vnd.docker.distribution.events.v1+json',
      },
      body: JSON.stringify(EVENTS),
    });
    expect(res.status).toBe(200);
    // Changes nothing: acme/app still has its two repositories.
    expect((await call(fx, 'GET', '/projects/acme%2Fapp/registry/repositories', 'rep')).body).toHaveLength(2);
  });

  it('no secret configured: every notification is refused', async () => {
    const fx = world({ ...registryWorld, container_registry: undefined });
    expect((await call(fx, 'POST', PATH, undefined, EVENTS, { Authorization: '' })).status).toBe(401);
    expect((await call(fx, 'POST', PATH, undefined, EVENTS)).status).toBe(401);
  });

  it("the declared params, after the secret: Grape's messages", async () => {
    const fx = world();
    const post = (body: unknown) =>
      call(fx, 'POST', PATH, undefined, body, { Authorization: 'registry-secret' });
    expect((await post({})).body).toEqual({ error: 'events is missing' });
    expect((await post({ events: 'x' })).body).toEqual({ error: 'events is invalid' });
    expect((await post({ events: [{ action: 'mount' }, {}] })).body).toEqual({
      error: 'events[0][action] does not have a valid value, events[1][action] is missing',
    });
    expect((await post({ events: [{ action: 'push', target: { tag: ['a'] } }] })).body).toEqual({
      error: 'events[0][target][tag] is invalid',
    });
    expect(
      (await post({ events: [{ action: 'push', target: { __proto__: 'x', constructor: 1 } }] })).status,
    ).toBe(200);
    expect((await call(fx, 'POST', PATH, undefined, {}, { Authorization: 'nope' })).status).toBe(401);
  });
});
