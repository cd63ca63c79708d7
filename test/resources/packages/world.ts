import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { jobsWorld } from '../jobs/world.js';

export { body, call, NOW } from '../ci/world.js';

/**
 * The jobs world plus the registry's projects:
 * - `acme/pkgs` (private): deploy tokens `pkg-read` (read_package_registry), `pkg-write`
 *   (write_package_registry, username `pusher`), `pkg-revoked`; packages: 1 `tool 1.0.0` (two files,
 *   one binary), 2 `tool 2.0.0`, 3 `secret-tool 1.0.0` (hidden).
 * - `acme/open` (public): 4 `lib 0.1.0`.
 * - `acme/nopkgs` (public, packages off).
 * - group `acme/sub` with `acme/sub/inner` (internal): 5 `inner 1.0.0`.
 * The group `acme` has a group deploy token `group-write` (write_package_registry).
 */
export const packagesWorld: ScenarioFile = {
  ...jobsWorld,
  groups: [
    {
      ...jobsWorld.groups![0]!,
      deploy_tokens: [{ name: 'group', token: 'group-write', scopes: ['write_package_registry'] }],
    },
    { path: 'acme/sub', visibility: 'internal' },
  ],
  projects: [
    ...(jobsWorld.projects ?? []),
    {
      path: 'acme/pkgs',
      visibility: 'private',
      deploy_tokens: [
        { name: 'read', token: 'pkg-read', scopes: ['read_package_registry'] },
        { name: 'write', token: 'pkg-write', username: 'pusher', scopes: ['write_package_registry'] },
        { name: 'gone', token: 'pkg-revoked', scopes: ['write_package_registry'], revoked: true },
        { name: 'repo', token: 'pkg-repo', scopes: ['read_repository'] },
      ],
      packages: [
        {
          name: 'tool',
          version: '1.0.0',
          created_at: '2021-03-01T09:00:00Z',
          files: [
            { file_name: 'tool.txt', content: 'hello tool\n' },
            { file_name: 'tool.bin', content_base64: Buffer.from([0, 255, 1, 254]).toString('base64') },
          ],
        },
        {
          name: 'tool',
          version: '2.0.0',
          created_at: '2021-03-01T10:00:00Z',
          files: [{ file_name: 'tool.txt', content: 'tool two\n' }],
        },
        {
          name: 'secret-tool',
          version: '1.0.0',
          status: 'hidden',
          created_at: '2021-03-01T08:00:00Z',
          files: [{ file_name: 's.txt', content: 'shh' }],
        },
      ],
    },
    {
      path: 'acme/open',
      visibility: 'public',
      packages: [{ name: 'lib', version: '0.1.0', files: [{ file_name: 'lib.tgz', content: 'lib' }] }],
    },
    { path: 'acme/nopkgs', visibility: 'public', packages_enabled: false },
    {
      path: 'acme/sub/inner',
      visibility: 'internal',
      packages: [{ name: 'inner', version: '1.0.0', files: [{ file_name: 'i.txt', content: 'inner' }] }],
    },
  ],
};

export const packagesFx = () => createFauxlab({ scenario: packagesWorld });

export const PKGS = '/api/v4/projects/acme%2Fpkgs';
export const GENERIC = `${PKGS}/packages/generic`;
