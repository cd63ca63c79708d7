/**
 * What every security test checks after its attack: nothing reached `Object.prototype`, and other
 * users (on the attacked instance and on a fresh one) are served as before, without a reset.
 */
import { expect } from 'vitest';
import type { Fauxlab } from '../../src/index.js';
import { reliabilityFx } from '../reliability/world.js';

const BASELINE = Object.getOwnPropertyNames(Object.prototype).sort();

async function behaves(fx: Fauxlab): Promise<void> {
  const me = await fx.app.request('/api/v4/user', { headers: { 'PRIVATE-TOKEN': 'dev-api' } });
  expect(me.status).toBe(200);
  expect(((await me.json()) as { username: string }).username).toBe('dev');
  const anon = await fx.app.request('/api/v4/projects?per_page=2');
  expect(anon.status).toBe(200);
  expect(((await anon.json()) as unknown[]).length).toBe(1);
  const denied = await fx.app.request('/api/v4/users/10', {
    method: 'PUT',
    headers: { 'PRIVATE-TOKEN': 'dev-api', 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'x' }),
  });
  expect(denied.status).toBe(403);
  const created = await fx.app.request('/api/v4/projects/g-public%2Fp/issues', {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': 'dev-api', 'Content-Type': 'application/json' },
    body: JSON.stringify({ title: 'canary' }),
  });
  expect(created.status).toBe(201);
}

/** The canary: `Object.prototype` as it was, `fx` and a fresh instance serving other users as before. */
export async function expectUnharmed(fx: Fauxlab): Promise<void> {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(BASELINE);
  for (const k of ['sudo', 'polluted', 'per_page', 'x', 'admin'])
    expect((Object.prototype as Record<string, unknown>)[k]).toBeUndefined();
  await behaves(fx);
  await behaves(reliabilityFx());
}
