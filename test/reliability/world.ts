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
  { username: 'target', access_level: 'guest' },
] as const;

/**
 * The reliability tests' world: a group and a project of each visibility; users of every role, with
 * tokens of every scope and state, and `target` (id 10), the subject of the admin routes on users.
 *
 * Every project holds one record of each kind a route can address: an open issue (with an award, a note
 * and a confidential note), a confidential issue, a merge request from `feature` (with a note and an
 * award), a label, a milestone, a variable, a finished pipeline (with a variable), a project snippet of
 * the project's visibility (with a note), a deploy token, an integration and a container repository. Every group has a variable
 * and a deploy token; the owner has a personal snippet of each visibility.
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
    {
      username: 'target',
      identities: [{ provider: 'ldapmain', extern_uid: 'uid=target,ou=people' }],
      tokens: [
        { token: 'target-api', scopes: ['api'] },
        { token: 'target-imp', scopes: ['api'], impersonation: true },
      ],
    },
  ],
  groups: [
    ...VISIBILITIES.map((v) => ({
      path: `g-${v}`,
      visibility: v,
      members: [...MEMBERS],
      variables: [{ key: 'GROUP_KEY', value: 'group-variable-value' }],
      deploy_tokens: [
        { name: 'group-deploy', token: `group-deploy-${v}`, scopes: ['read_repository' as const] },
      ],
    })),
    // Groups to share the projects with.
    { path: 'g-share-a', visibility: 'public', members: [...MEMBERS] },
    { path: 'g-share-b', visibility: 'public', members: [...MEMBERS] },
  ],
  projects: VISIBILITIES.map((v) => ({
    path: `g-${v}/p`,
    visibility: v,
    creator: 'owner',
    members: [{ username: 'target', access_level: 'reporter' }],
    branches: ['feature', 'feature2'],
    labels: [{ name: 'bug' }],
    milestones: [{ title: 'm1' }],
    variables: [{ key: 'SECRET_KEY', value: 'variable-secret-value' }],
    issues: [
      {
        title: 'Open issue',
        author: 'owner',
        labels: ['bug'],
        milestone: 'm1',
        award_emoji: [{ name: 'thumbsup', user: 'owner' }],
        notes: [
          { body: 'A plain note', author: 'owner' },
          { body: 'A confidential note', author: 'owner', confidential: true },
        ],
      },
      { title: 'Confidential issue', author: 'owner', confidential: true },
    ],
    merge_requests: [
      {
        title: 'A merge request',
        author: 'owner',
        source_branch: 'feature',
        milestone: 'm1',
        merge_status: 'can_be_merged',
        award_emoji: [{ name: 'thumbsup', user: 'owner' }],
        notes: [{ body: 'A merge request note', author: 'owner' }],
      },
    ],
    snippets: [
      {
        title: 'Project snippet',
        author: 'owner',
        visibility: v,
        content: 'project snippet content',
        notes: [{ body: 'A snippet note', author: 'owner' }],
      },
    ],
    pipelines: [
      {
        status: 'success',
        variables: [{ key: 'PIPELINE_KEY', value: 'pipeline-value' }],
        jobs: [
          {
            name: 'compile',
            stage: 'build',
            artifacts: [{ path: 'out/app.txt', content: 'app' }],
            artifacts_expire_at: '2031-01-01T00:00:00Z',
          },
          { name: 'deploy', stage: 'deploy', when: 'manual' },
        ],
      },
    ],
    deploy_tokens: [
      { name: 'project-deploy', token: `project-deploy-${v}`, scopes: ['read_repository' as const] },
    ],
    integrations: [{ slug: 'emails-on-push', recipients: 'team@example.com' }],
    // One container repository each (ids 1, 2, 3 in the order of VISIBILITIES), with two tags.
    container_repositories: [
      {
        name: 'img',
        tags: [
          { name: 'v1', digest: 'a'.repeat(64), total_size: 10 },
          { name: 'v2', digest: 'b'.repeat(64), total_size: 20 },
        ],
      },
    ],
  })),
  snippets: VISIBILITIES.map((v) => ({
    author: 'owner',
    title: `Personal ${v} snippet`,
    visibility: v,
    content: `personal ${v} content`,
  })),
  topics: [{ name: 'topic-a', description: 'A topic' }],
  variables: [{ key: 'INSTANCE_KEY', value: 'instance-variable-value' }],
  oauth_applications: [
    { name: 'An app', uid: 'app-uid', secret: 'app-secret', redirect_uri: 'http://example.com/cb' },
  ],
};

export function reliabilityFx(options: FauxlabOptions = {}) {
  return createFauxlab({ scenario: reliabilityWorld, ...options });
}
