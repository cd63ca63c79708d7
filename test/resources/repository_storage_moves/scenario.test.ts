/** Storage moves and storages in the scenario format: an export loads into the same records, and a move under way goes on. */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, type ScenarioFile } from '../../../src/index.js';
import { advance, call, movesWorld, world } from './world.js';

describe('storage moves scenario', () => {
  it('export -> load: the same moves, storages and ids; a scheduled move finishes after the load', async () => {
    const fx = world();
    await call(fx, 'POST', '/projects/acme%2Fapp/repository_storage_moves', 'root', {
      destination_storage_name: 'storage2',
    });
    await call(fx, 'POST', '/snippets/1/repository_storage_moves', 'root', {
      destination_storage_name: 'cold',
    });
    await call(fx, 'POST', '/groups/acme/repository_storage_moves', 'root', {
      destination_storage_name: 'storage2',
    });
    await advance(fx, '5s');
    await call(fx, 'POST', '/projects/acme%2Fsite/repository_storage_moves', 'root', {
      destination_storage_name: 'cold',
    });
    const file = JSON.parse(
      JSON.stringify(exportScenario(fx.state, { now: fx.clock.iso() })),
    ) as ScenarioFile;
    const again = createFauxlab({ scenario: file });
    for (const kind of ['project', 'snippet', 'group'] as const)
      expect(again.state.storage_moves[kind]).toEqual(fx.state.storage_moves[kind]);
    expect(again.state.storage_moves.storages).toEqual(fx.state.storage_moves.storages);
    expect((await call(again, 'GET', '/projects/acme%2Fapp', 'root')).body.repository_storage).toBe(
      'storage2',
    );
    expect(JSON.stringify(exportScenario(again.state, { now: again.clock.iso() }))).toBe(
      JSON.stringify(file),
    );
    await advance(again, '10s');
    expect((await call(again, 'GET', '/project_repository_storage_moves/2', 'root')).body.state).toBe(
      'finished',
    );
    expect((await call(again, 'GET', '/projects/acme%2Fsite', 'root')).body.repository_storage).toBe('cold');
  });

  it('a move of a container the file does not hold is refused', () => {
    expect(() =>
      createFauxlab({
        scenario: {
          ...movesWorld,
          repository_storage_moves: [
            { kind: 'project', container: 'acme/nope', destination_storage_name: 'cold' },
          ],
        } as ScenarioFile,
      }),
    ).toThrow(/repository_storage_moves\[0\]\.container/);
  });
});
