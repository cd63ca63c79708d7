import { describe, expect, test } from 'vitest';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const ROOT = { 'PRIVATE-TOKEN': 'root-api' };

describe('security: maps keyed by client input', () => {
  test('POST /api/v4/features/__proto__ (constructor, toString, hasOwnProperty): ordinary flags, listed, read and deleted', async () => {
    const fx = reliabilityFx();
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    for (const name of names) {
      const res = await fx.app.request(`/api/v4/features/${name}?value=true`, {
        method: 'POST',
        headers: ROOT,
      });
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ name, state: 'on', gates: [{ key: 'boolean', value: true }] });
    }
    const list = (await (await fx.app.request('/api/v4/features', { headers: ROOT })).json()) as {
      name: string;
    }[];
    expect(list.map((f) => f.name).sort()).toEqual([...names].sort());
    for (const name of names)
      expect(
        (await fx.app.request(`/api/v4/features/${name}`, { method: 'DELETE', headers: ROOT })).status,
      ).toBe(204);
    expect(await (await fx.app.request('/api/v4/features', { headers: ROOT })).json()).toEqual([]);
    await expectUnharmed(fx);
  });

  test('POST /api/v4/projects/:id/uploads named a.constructor or a.__proto__: a plain content type, downloadable', async () => {
    const fx = reliabilityFx();
    for (const name of ['a.constructor', 'a.__proto__', 'a.toString']) {
      const form = new FormData();
      form.append('file', new File(['hello'], name));
      const res = await fx.app.request('/api/v4/projects/g-public%2Fp/uploads', {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': 'dev-api' },
        body: form,
      });
      expect(res.status).toBe(201);
      const url = ((await res.json()) as { url: string }).url;
      const file = await fx.app.request(`/g-public/p${url}`);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('application/octet-stream');
      expect(await file.text()).toBe('hello');
    }
    await expectUnharmed(fx);
  });
});
