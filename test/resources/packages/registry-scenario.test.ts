/**
 * Scenario export and load of the newer registries: RubyGems packages (their files, platform and
 * dependency links) come back the same, and a Go module is served the same from an exported repository.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, loadScenario, ScenarioError } from '../../../src/index.js';
import { body, call } from './world.js';
import { gem, gemFx, GEMS } from './gem-world.js';
import { GO, goFx } from './go-world.js';

const reload = (fx: ReturnType<typeof createFauxlab>) =>
  createFauxlab({ scenario: exportScenario(fx.state, { now: fx.clock.iso() }) });

describe('registries in scenarios', () => {
  it('RubyGems packages: export, load, export is the same; files and dependencies served alike', async () => {
    const fx = gemFx();
    for (const [name, version] of [
      ['hello', '1.0.0'],
      ['hello', '1.1.0'],
    ])
      await fx.app.request(`${GEMS}/api/v1/gems`, {
        method: 'POST',
        headers: { Authorization: 'dev' },
        body: new Uint8Array(gem(name!, version!, [['rake', '~>', '13.0']])),
      });
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    const entry = out
      .projects!.find((p) => p.path === 'acme/pkgs')!
      .packages!.find((p) => p.name === 'hello');
    expect(entry).toMatchObject({
      package_type: 'rubygems',
      version: '1.0.0',
      rubygems: { platform: 'ruby', dependencies: [['rake', '~> 13.0']] },
    });
    const again = reload(fx);
    expect(exportScenario(again.state, { now: again.clock.iso() })).toEqual(out);
    for (const path of ['api/v1/dependencies?gems=hello', 'gems/hello-1.1.0.gem']) {
      const [a, b] = await Promise.all(
        [fx, again].map(async (x) =>
          Buffer.from(
            await (
              await x.app.request(`${GEMS}/${path}`, { headers: { Authorization: 'dev' } })
            ).arrayBuffer(),
          ),
        ),
      );
      expect(a!.equals(b!), path).toBe(true);
    }
    const list = (await body(
      await call(again, 'GET', '/projects/acme%2Fpkgs/packages?package_type=rubygems', 'rep'),
    )) as { name: string; version: string; package_type: string }[];
    expect(list.map((p) => [p.name, p.version, p.package_type])).toEqual([
      ['hello', '1.0.0', 'rubygems'],
      ['hello', '1.1.0', 'rubygems'],
    ]);
  });

  it("a gem's name is checked with package_name_regex, a generic package cannot carry gem data", () => {
    let problems: string[] = [];
    try {
      loadScenario({
        projects: [
          {
            path: 'a/p',
            packages: [
              { name: 'bad name', version: '1', package_type: 'rubygems' },
              { name: 'tool', version: '1.0.0', rubygems: { platform: 'ruby' } },
            ],
          },
        ],
      });
    } catch (e) {
      problems = e instanceof ScenarioError ? e.problems : [];
    }
    expect(problems.join('\n')).toMatch(/packages\[0\]\.name: must be a valid rubygems package name/);
    expect(problems.join('\n')).toMatch(/packages\[1\]\.rubygems: only for package_type rubygems/);
  });

  it('a Go module is served the same after export and load of its repository', async () => {
    const fx = goFx();
    const again = reload(fx);
    for (const path of ['@v/list', '@v/v1.0.0.info', '@v/v1.0.0.zip']) {
      const [a, b] = await Promise.all(
        [fx, again].map(async (x) =>
          Buffer.from(
            await (
              await x.app.request(`${GO}/localhost/acme/gomod/${path}`, {
                headers: { 'Private-Token': 'dev' },
              })
            ).arrayBuffer(),
          ),
        ),
      );
      expect([path, a!.equals(b!)]).toEqual([path, true]);
    }
  });
});
