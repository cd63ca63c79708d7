import { describe, expect, test } from 'vitest';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const ROOT = { 'PRIVATE-TOKEN': 'root-api' };
const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

const form = (fx: ReturnType<typeof reliabilityFx>, method: string, fields: Record<string, string>) =>
  fx.app.request('/api/v4/runners', {
    method,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

describe('security: runner tokens', () => {
  test('registration and authentication tokens named like prototype keys match nothing: 403, nothing made', async () => {
    const fx = reliabilityFx();
    for (const token of [...NAMES, '', ' ']) {
      expect((await form(fx, 'POST', { token })).status, token).toBe(403);
      expect((await form(fx, 'DELETE', { token })).status, token).toBe(403);
    }
    const all = await fx.app.request('/api/v4/runners/all', { headers: ROOT });
    expect(all.headers.get('X-Total')).toBe('0');
    await expectUnharmed(fx);
  });

  test('tags named like prototype keys are ordinary tags, listed and matched', async () => {
    const fx = reliabilityFx();
    const made = await form(fx, 'POST', { token: 'fauxlab-runners-registration', tag_list: NAMES.join(',') });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: number };
    const r = (await (await fx.app.request(`/api/v4/runners/${id}`, { headers: ROOT })).json()) as {
      tag_list: string[];
    };
    expect(r.tag_list).toEqual(NAMES);
    const hit = await fx.app.request('/api/v4/runners/all?tag_list=__proto__,constructor', { headers: ROOT });
    expect(((await hit.json()) as { id: number }[]).map((x) => x.id)).toEqual([id]);
    const miss = await fx.app.request('/api/v4/runners/all?tag_list=isPrototypeOf', { headers: ROOT });
    expect(await miss.json()).toEqual([]);
    await expectUnharmed(fx);
  });
});
