import { describe, expect, it } from 'vitest';
import { send, world } from './world.js';

const INVALID = {
  message: 'The license key is invalid. Make sure it is exactly as you received it from GitLab Inc.',
};

describe('POST /license', () => {
  it('refuses a key that is not a license with 13.12 message, and keeps the license', async () => {
    const fx = world({ tier: 'premium' });
    const before = fx.state;
    const out = await send(fx, 'POST', '/license', 'root', { license: 'GA!89-)GaRBAGE' });
    expect([out.status, out.body]).toEqual([400, INVALID]);
    expect(fx.state).toBe(before);
    expect((await send(fx, 'GET', '/license', 'root')).body.plan).toBe('premium');
  });

  it('an empty key is still a key to check; a missing one is Grape 400', async () => {
    const fx = world({ tier: 'ultimate' });
    expect((await send(fx, 'POST', '/license', 'root', { license: '' })).body).toEqual(INVALID);
    const missing = await send(fx, 'POST', '/license', 'root', {});
    expect([missing.status, missing.body]).toEqual([400, { error: 'license is missing' }]);
  });

  it('admins only, checked before the params (`before { authenticated_as_admin! }`)', async () => {
    const fx = world({ tier: 'premium' });
    expect((await send(fx, 'POST', '/license', undefined, {})).status).toBe(401);
    const out = await send(fx, 'POST', '/license', 'owner', {});
    expect([out.status, out.body]).toEqual([403, { message: '403 Forbidden' }]);
  });

  it('does not exist on the free tier', async () => {
    const out = await send(world(), 'POST', '/license', 'root', { license: 'x' });
    expect([out.status, out.body]).toEqual([404, { error: '404 Not Found' }]);
  });
});

describe('GET /geo_nodes', () => {
  it('answers an empty page to an admin of a paid tier', async () => {
    const fx = world({ tier: 'premium' });
    const out = await send(fx, 'GET', '/geo_nodes', 'root');
    expect([out.status, out.body]).toEqual([200, []]);
    expect(out.res.headers.get('x-total')).toBe('0');
    expect(out.res.headers.get('x-page')).toBe('1');
  });

  it('admins only; no route on the free tier', async () => {
    const paid = world({ tier: 'premium' });
    expect((await send(paid, 'GET', '/geo_nodes')).status).toBe(401);
    expect((await send(paid, 'GET', '/geo_nodes', 'owner')).status).toBe(403);
    expect((await send(world(), 'GET', '/geo_nodes', 'root')).status).toBe(404);
  });
});

describe('GET /geo_nodes/status', () => {
  it('answers an empty page to an admin of a paid tier (no node, no status); admins only; free has none', async () => {
    const fx = world({ tier: 'premium' });
    const out = await send(fx, 'GET', '/geo_nodes/status', 'root');
    expect([out.status, out.body]).toEqual([200, []]);
    expect(out.res.headers.get('x-total')).toBe('0');
    expect((await send(fx, 'GET', '/geo_nodes/status', 'owner')).status).toBe(403);
    expect((await send(world(), 'GET', '/geo_nodes/status', 'root')).status).toBe(404);
  });
});
