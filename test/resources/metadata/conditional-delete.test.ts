import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { BEFORE_WORLD, call, gpgKey, send, setupWorld, sshKey, type Fx } from './world.js';

/** The set-up world with one of every record a delete route with an `updated_at` can remove. */
const scenario: ScenarioFile = {
  ...setupWorld,
  users: [
    ...setupWorld.users!,
    {
      username: 'ldap',
      identities: [{ provider: 'ldapmain', extern_uid: 'uid=ldap' }],
      tokens: [{ token: 'ldap-imp', impersonation: true }],
    },
  ],
  groups: [...setupWorld.groups!, { path: 'partners' }],
  projects: [
    {
      ...setupWorld.projects![0]!,
      members: [{ username: 'outsider', access_level: 'reporter' }],
      shared_with: [{ group: 'partners', group_access: 'developer' }],
      milestones: [{ title: 'v1' }],
      issues: [
        {
          title: 'Broken',
          author: 'dev',
          notes: [{ body: 'Confirmed', author: 'dev' }],
          award_emoji: [{ name: 'thumbsup', user: 'dev' }],
        },
      ],
      merge_requests: [{ title: 'Fix', source_branch: 'fix', author: 'dev' }],
      branches: ['fix'],
      pipelines: [{ ref: 'master', status: 'success', user: 'owner' }],
    },
    ...setupWorld.projects!.slice(1),
  ],
  snippets: [{ author: 'dev', title: 'Personal', content: 'hello' }],
};

/** Records only the API makes: a group milestone, e-mails, SSH and GPG keys (id 1 each, of dev). */
async function fresh(): Promise<Fx> {
  const fx = createFauxlab({ scenario });
  const made = [
    await send(fx, 'POST', '/groups/acme/milestones', 'owner', { title: 'group ms' }),
    await send(fx, 'POST', '/user/emails', 'dev', { email: 'dev2@example.com' }),
    await send(fx, 'POST', '/user/keys', 'dev', { title: 'k', key: sshKey(1) }),
    await send(fx, 'POST', '/user/gpg_keys', 'dev', { key: gpgKey('k') }),
  ];
  for (const m of made) expect(m.status).toBe(201);
  return fx;
}

const APP = '/projects/acme%2Fapp';

/** Every DELETE route of a resource with an `updated_at`, with a caller allowed to use it. */
const ROUTES: [path: string, token: string][] = [
  ['/users/5', 'root'],
  ['/users/6/identities/ldapmain', 'root'],
  ['/users/6/impersonation_tokens/8', 'root'],
  ['/groups/acme', 'owner'],
  ['/groups/acme/members/4', 'owner'],
  ['/groups/acme/milestones/2', 'owner'],
  ['/groups/acme/variables/GROUP_TOKEN', 'owner'],
  ['/groups/acme/deploy_tokens/1', 'owner'],
  [APP, 'owner'],
  [`${APP}/members/5`, 'owner'],
  [`${APP}/share/{partners}`, 'owner'],
  [`${APP}/issues/1`, 'owner'],
  [`${APP}/issues/1/notes/1`, 'dev'],
  [`${APP}/issues/1/award_emoji/1`, 'dev'],
  [`${APP}/merge_requests/1`, 'owner'],
  [`${APP}/milestones/1`, 'owner'],
  [`${APP}/pipelines/1`, 'owner'],
  ['/snippets/1', 'dev'],
  ['/user/emails/1', 'dev'],
  ['/user/keys/1', 'dev'],
  ['/user/gpg_keys/1', 'dev'],
  ['/users/4/emails/1', 'root'],
  ['/users/4/keys/1', 'root'],
  ['/users/4/gpg_keys/1', 'root'],
];

describe('DELETE with If-Unmodified-Since', () => {
  it.each(ROUTES)(
    'DELETE %s: 412 when the resource changed after If-Unmodified-Since; nothing is deleted',
    async (path, token) => {
      const fx = await fresh();
      path = path.replace('{partners}', String((await send(fx, 'GET', '/groups/partners', 'root')).body.id));
      const stale = await call(fx, 'DELETE', path, token, undefined, BEFORE_WORLD);
      expect(stale.status).toBe(412);
      expect(await stale.json()).toEqual({ message: '412 Precondition Failed' });
      // Still there: the same delete now succeeds, and a later date does not stand in its way.
      const ok = await call(fx, 'DELETE', path, token, undefined, {
        'If-Unmodified-Since': 'Wed, 03 Mar 2021 00:00:00 GMT',
      });
      expect([202, 204]).toContain(ok.status);
    },
  );
});
