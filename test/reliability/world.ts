import { createFauxlab, type FauxlabOptions } from '../../src/index.js';
import type { ScenarioFile } from '../../src/scenario/schema.js';

/** The visibilities every group and project of the reliability world comes in. */
export const VISIBILITIES = ['private', 'internal', 'public'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** Members of every group (`g-<visibility>`) and so of its project (`g-<visibility>/p`). */
const MEMBERS = [
  { username: 'owner', access_level: 'owner' },
  { username: 'maint', access_level: 'maintainer' },
  { username: 'dev', access_level: 'developer' },
  { username: 'rep', access_level: 'reporter' },
  { username: 'guest', access_level: 'guest' },
  { username: 'blocked', access_level: 'developer' },
] as const;

/**
 * The reliability tests' world: a group and a project of each visibility, each project with an open
 * issue (with a note and a confidential note), a confidential issue, a milestone and a variable; users of
 * every role, with tokens of every scope and state.
 */
export const reliabilityWorld: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    {
      username: 'root',
      admin: true,
      password: 'root-password-123',
      tokens: [
        { token: 'root-api', scopes: ['api'] },
        { token: 'root-sudo', scopes: ['api', 'sudo'] },
      ],
    },
    { username: 'owner', tokens: [{ token: 'owner-api' }] },
    { username: 'maint', tokens: [{ token: 'maint-api' }] },
    {
      username: 'dev',
      tokens: [
        { token: 'dev-api', scopes: ['api'] },
        { token: 'dev-read', scopes: ['read_api'] },
        { token: 'dev-user', scopes: ['read_user'] },
        { token: 'dev-expired', scopes: ['api'], expires_at: '2021-02-01' },
        { token: 'dev-revoked', scopes: ['api'], revoked: true },
      ],
    },
    { username: 'rep', tokens: [{ token: 'rep-api' }] },
    { username: 'guest', tokens: [{ token: 'guest-api' }] },
    { username: 'outsider', tokens: [{ token: 'outsider-api' }] },
    { username: 'ext', external: true, tokens: [{ token: 'ext-api' }] },
    { username: 'blocked', state: 'blocked', tokens: [{ token: 'blocked-api' }] },
  ],
  groups: VISIBILITIES.map((v) => ({ path: `g-${v}`, visibility: v, members: [...MEMBERS] })),
  projects: VISIBILITIES.map((v) => ({
    path: `g-${v}/p`,
    visibility: v,
    creator: 'owner',
    milestones: [{ title: 'm1' }],
    variables: [{ key: 'SECRET_KEY', value: 'variable-secret-value' }],
    issues: [
      {
        title: 'Open issue',
        author: 'owner',
        notes: [
          { body: 'A plain note', author: 'owner' },
          { body: 'A confidential note', author: 'owner', confidential: true },
        ],
      },
      { title: 'Confidential issue', author: 'owner', confidential: true },
    ],
  })),
};

export function reliabilityFx(options: FauxlabOptions = {}) {
  return createFauxlab({ scenario: reliabilityWorld, ...options });
}
