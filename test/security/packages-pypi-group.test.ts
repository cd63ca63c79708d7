/**
 * Attacks on the group-level PyPI registry: prototype keys as package names and group ids, index and
 * file paths that climb out of the registry.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { reliabilityWorld } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const auth = { 'PRIVATE-TOKEN': 'root-api' };
type Fx = ReturnType<typeof createFauxlab>;

async function upload(fx: Fx, name: string) {
  const f = new FormData();
  f.set('name', name);
  f.set('version', '1.0');
  f.set('requires_python', '');
  f.set('content', new Blob([new Uint8Array([1, 2, 3])]), `${name}-1.0.tar.gz`);
  const res = await fx.app.request('/api/v4/projects/g-public%2Fp/packages/pypi', {
    method: 'POST',
    headers: auth,
    body: f,
  });
  expect(res.status).toBe(201);
}

describe('group PyPI registry attacks', () => {
  it('prototype keys as names are plain data; as group ids they are 400', async () => {
    const fx = createFauxlab({ scenario: reliabilityWorld });
    const group = (await (await fx.app.request('/api/v4/groups/g-public', { headers: auth })).json()) as {
      id: number;
    };
    for (const name of ['__proto__', 'constructor', 'toString']) {
      await upload(fx, name);
      const normal = name.replace(/[-_.]+/g, '-').toLowerCase();
      const res = await fx.app.request(`/api/v4/groups/${group.id}/-/packages/pypi/simple/${normal}`, {
        headers: auth,
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain(`>${name}-1.0.tar.gz</a>`);
      const asId = await fx.app.request(`/api/v4/groups/${name}/-/packages/pypi/simple/${normal}`, {
        headers: auth,
      });
      expect([asId.status, await asId.json()]).toEqual([400, { error: 'id is invalid' }]);
    }
    await expectUnharmed(fx);
  });

  it('index and file paths with .. are refused as paths', async () => {
    const fx = createFauxlab({ scenario: reliabilityWorld });
    const group = (await (await fx.app.request('/api/v4/groups/g-public', { headers: auth })).json()) as {
      id: number;
    };
    const base = `/api/v4/groups/${group.id}/-/packages/pypi`;
    const index = await fx.app.request(`${base}/simple/..%2F..%2Fprojects`, { headers: auth });
    expect([index.status, await index.json()]).toEqual([
      400,
      { error: 'package_name should be a valid file path' },
    ]);
    const file = await fx.app.request(`${base}/files/${'0'.repeat(64)}/..%2F..%2Fetc%2Fpasswd`, {
      headers: auth,
    });
    expect([file.status, await file.json()]).toEqual([
      400,
      { error: 'file_identifier should be a valid file path' },
    ]);
    await expectUnharmed(fx);
  });
});
