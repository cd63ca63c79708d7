/** The registry's scenario fields: `container_registry`, a project's `container_repositories`; export and load. */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, type ScenarioFile } from '../../../src/index.js';
import { call, registryWorld, world } from './world.js';

describe('container registry scenario', () => {
  it('an export loads into the same records, after a delete and the registry switched off', async () => {
    const fx = world();
    await call(fx, 'DELETE', '/projects/acme%2Fapp/registry/repositories/1/tags/v1.1', 'dev');
    await call(fx, 'PUT', '/projects/acme%2Fsite', 'owner', { container_registry_enabled: false });
    const file = JSON.parse(
      JSON.stringify(exportScenario(fx.state, { now: fx.clock.iso() })),
    ) as ScenarioFile;
    const again = createFauxlab({ scenario: file });
    const { cleanupLeases: _a, ...idx } = fx.state.container_registry.idx;
    const { cleanupLeases: _b, ...idx2 } = again.state.container_registry.idx;
    expect(again.state.container_registry.repositories).toEqual(fx.state.container_registry.repositories);
    expect(idx2).toEqual(idx);
    expect(again.state.container_registry.config).toEqual(fx.state.container_registry.config);
    expect((await call(again, 'GET', '/projects/acme%2Fsite/registry/repositories', 'root')).status).toBe(
      403,
    );
    const twice = JSON.stringify(exportScenario(again.state, { now: again.clock.iso() }));
    expect(twice).toBe(JSON.stringify(file));
  });

  it("refuses what the registry would not hold: taken names, bad digests, prototype-like tags' duplicates", () => {
    const bad = (projects: unknown) => () =>
      createFauxlab({ scenario: { ...registryWorld, projects } as unknown as ScenarioFile });
    expect(bad([{ path: 'acme/z', container_repositories: [{ name: 'a' }, { name: 'a' }] }])).toThrow(
      /container_repositories\[1\]\.name: has already been taken/,
    );
    expect(
      bad([{ path: 'acme/z', container_repositories: [{ tags: [{ name: 'x', digest: 'nothex' }] }] }]),
    ).toThrow(/digest/);
    expect(bad([{ path: 'acme/z', container_repositories: [{ name: 'Upper' }] }])).toThrow(/image name/);
    expect(
      bad([
        {
          path: 'acme/z',
          container_repositories: [
            {
              tags: [
                { name: '__proto__', digest: 'a'.repeat(64) },
                { name: '__proto__', digest: 'b'.repeat(64) },
              ],
            },
          ],
        },
      ]),
    ).toThrow(/is listed twice/);
  });
});
