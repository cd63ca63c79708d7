/**
 * Attacks on the Go proxy: prototype keys as module paths, tags and versions, names that climb out of the
 * project, pseudo-versions naming another project's commits, pathological names and versions, and a
 * module whose files would make too large a zip.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { goWorld, GO } from '../resources/packages/go-world.js';
import { reliabilityWorld } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const M = 'localhost/acme/gomod';
const auth = { 'PRIVATE-TOKEN': 'dev' };
type Fx = ReturnType<typeof createFauxlab>;
const get = (fx: Fx, path: string) => fx.app.request(`${GO}/${path}`, { headers: auth });

describe('Go proxy attacks', () => {
  it('prototype keys as module directories, tags and versions stay plain data', async () => {
    const world = goWorld();
    const gomod = world.projects!.at(-1)!;
    gomod.repository!.tags!.push({ name: '__proto__', commit: 'c1' }, { name: 'constructor', commit: 'c1' });
    const fx = createFauxlab({ scenario: world });
    for (const key of ['__proto__', 'constructor', 'prototype', 'hasOwnProperty']) {
      expect(await (await get(fx, `${M}/${key}/@v/list`)).text()).toBe('');
      expect((await get(fx, `${M}/${key}/@v/v1.0.0.info`)).status).toBe(404);
    }
    expect(await (await get(fx, `${M}/@v/list`)).text()).toBe('v1.0.0\nv1.1.0-rc.1');
    // The canary reads the reliability world (its tokens); the prototypes are checked as they are.
    await expectUnharmed(createFauxlab({ scenario: reliabilityWorld }));
  });

  it('module names that climb out of the project or name another one find nothing of it', async () => {
    const fx = createFauxlab({ scenario: goWorld() });
    for (const name of [
      `${M}/../../pkgs`,
      `${M}/%2e%2e/%2e%2e/pkgs`,
      'localhost/acme/pkgs',
      'localhost/../localhost/acme/pkgs',
      `localhost/acme/gomod/../gomodx`,
      '%2Flocalhost/acme/gomod',
    ]) {
      const r = await get(fx, `${name}/@v/list`);
      expect([name, r.status]).toEqual([name, 404]);
    }
    // The module of another project, asked through this one's id: not this project's module.
    const other = await fx.app.request(`/api/v4/projects/acme%2Fpkgs/packages/go/${M}/@v/list`, {
      headers: { 'PRIVATE-TOKEN': 'root' },
    });
    expect(other.status).toBe(404);
  });

  it("a pseudo-version naming another project's commit is not found", async () => {
    const fx = createFauxlab({ scenario: goWorld() });
    const tags = await fx.app.request('/api/v4/projects/acme%2Fapp/repository/commits?per_page=1', {
      headers: { 'PRIVATE-TOKEN': 'root' },
    });
    const [foreign] = (await tags.json()) as { id: string; committed_date: string }[];
    const stamp = foreign!.committed_date.replace(/[-T:]/g, '').slice(0, 14);
    const r = await get(fx, `${M}/@v/v0.0.0-${stamp}-${foreign!.id.slice(0, 12)}.info`);
    expect(r.status).toBe(404);
  });

  it('pathological names and versions answer quickly', async () => {
    const fx = createFauxlab({ scenario: goWorld() });
    const started = Date.now();
    const longName = `${M}/${'a/'.repeat(2000)}x`;
    expect((await get(fx, `${longName}/@v/list`)).status).toBe(200);
    const longVersion = `v1.0.0-${'0.'.repeat(3000)}20210302080000-${'a'.repeat(5000)}`;
    expect((await get(fx, `${M}/@v/${longVersion}.info`)).status).toBe(404);
    expect((await get(fx, `${M}/@v/v1.0.0-${'!'.repeat(5000)}.mod`)).status).toBe(404);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
