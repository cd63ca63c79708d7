import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { packagesWorld } from './world.js';

/**
 * The packages world plus Go modules in `acme/gomod` (private) for the host `host` (in-process requests
 * are `localhost`):
 * - c1 (2021-03-01T10:00:00Z): go.mod of `<host>/acme/gomod`, main.go, `sub/` (a nested module), `lib/`
 *   (the module `<host>/acme/gomod/lib`); tags v1.0.0 (annotated), v2.0.0 (invalid: no /v2),
 *   notsemver, and the branch v1.5.0.
 * - c2 (2021-03-02T10:00:00+02:00): main.go changed; tag v1.1.0-rc.1.
 * - c3: go.mod names another module; tag v1.2.0 (invalid).
 * The flag `go_proxy` is on unless `flag: false`.
 */
export function goWorld(host = 'localhost', o: { flag?: boolean } = {}): ScenarioFile {
  const mod = `${host}/acme/gomod`;
  return {
    ...packagesWorld,
    features: o.flag === false ? [] : [{ name: 'go_proxy', state: 'on' }],
    projects: [
      ...packagesWorld.projects!,
      {
        path: 'acme/gomod',
        visibility: 'private',
        repository: {
          commits: [
            {
              id: 'c1',
              branch: 'master',
              message: 'first',
              date: '2021-03-01T10:00:00Z',
              files: {
                'go.mod': `module ${mod}\n\ngo 1.16\n`,
                'main.go': 'package gomod\n\nconst Version = "one"\n',
                'sub/go.mod': `module ${mod}/sub\n`,
                'sub/sub.go': 'package sub\n',
                'lib/go.mod': `module ${mod}/lib\n\ngo 1.16\n`,
                'lib/lib.go': 'package lib\n\nconst Name = "lib"\n',
              },
            },
            {
              id: 'c2',
              branch: 'master',
              message: 'second',
              date: '2021-03-02T10:00:00+02:00',
              committed_date: '2021-03-02T10:00:00+02:00',
              files: { 'main.go': 'package gomod\n\nconst Version = "two"\n' },
            },
            {
              id: 'c3',
              branch: 'master',
              message: 'third',
              date: '2021-03-03T10:00:00Z',
              files: { 'go.mod': 'module example.com/other\n' },
            },
          ],
          branches: [{ name: 'v1.5.0', commit: 'c1' }],
          tags: [
            { name: 'v1.0.0', commit: 'c1', message: 'one' },
            { name: 'v2.0.0', commit: 'c1' },
            { name: 'notsemver', commit: 'c1' },
            { name: 'v1.1.0-rc.1', commit: 'c2' },
            { name: 'v1.2.0', commit: 'c3' },
          ],
        },
      },
    ],
  };
}

export const goFx = (host?: string, o?: { flag?: boolean }) => createFauxlab({ scenario: goWorld(host, o) });

export const GO = '/api/v4/projects/acme%2Fgomod/packages/go';
