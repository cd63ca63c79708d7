import { describe, expect, it } from 'vitest';
import { ScenarioError, loadScenario } from '../../../src/scenario/index.js';
import { json, oauthFx, oauthWorld, tokenRequest } from './world.js';

const problems = (scenario: Parameters<typeof loadScenario>[0]) => {
  try {
    loadScenario(scenario);
  } catch (e) {
    if (e instanceof ScenarioError) return e.problems;
    throw e;
  }
  return [];
};

describe('scenario: oauth_applications and group SAML', () => {
  it('scenario: applications take scopes as a string or a list; unknown scopes are refused', () => {
    expect(
      problems({
        oauth_applications: [
          { name: 'a', uid: 'u', secret: 's', redirect_uri: 'https://a.example/cb', scopes: 'api wat' },
        ],
      }),
    ).toEqual([
      'oauth_applications[0].scopes: may contain only api, read_user, read_api, read_repository, write_repository, read_registry, write_registry, sudo, openid, profile, email',
    ]);
  });

  it('scenario: cross-references: duplicate uids, unknown owners, SCIM without SAML or users', () => {
    expect(
      problems({
        users: [{ username: 'alice' }],
        groups: [
          { path: 'g', scim_token: 't', scim_identities: [{ username: 'nobody', extern_uid: 'x' }] },
          { path: 'h', saml: true, scim_token: 't' },
        ],
        oauth_applications: [
          { name: 'a', uid: 'same', secret: 's', redirect_uri: 'https://a.example/cb', owner: 'ghost' },
          { name: 'b', uid: 'same', secret: 's', redirect_uri: 'https://b.example/cb' },
        ],
      }),
    ).toEqual([
      'oauth_applications[0].owner: no user "ghost"',
      'oauth_applications[1].uid: "same" is used twice',
      "groups[0].scim_token: SCIM needs the group's saml",
      "groups[0].scim_identities[0]: SCIM identities need the group's saml",
      'groups[0].scim_identities[0].username: no user "nobody"',
      'groups[1].scim_token: the same token is given twice',
    ]);
  });

  it('scenario: the SAML fields stay off the group record', async () => {
    const fx = oauthFx();
    fx.load({
      ...oauthWorld,
      groups: [
        {
          path: 'acme',
          saml: true,
          scim_token: 'tok',
          members: [{ username: 'alice', access_level: 'owner' }],
        },
      ],
    });
    const group = await json(
      await fx.app.request('/api/v4/groups/acme', { headers: { 'PRIVATE-TOKEN': 'root-api' } }),
    );
    expect(group).not.toHaveProperty('saml');
    expect(group).not.toHaveProperty('scim_token');
  });

  it('scenario: reset forgets issued tokens and sessions', async () => {
    const fx = oauthFx();
    const t = await json(
      await tokenRequest(fx, { grant_type: 'password', username: 'alice', password: 'alicepass123' }),
    );
    expect((await fx.app.request(`/api/v4/user?access_token=${t.access_token}`)).status).toBe(200);
    fx.reset();
    expect((await fx.app.request(`/api/v4/user?access_token=${t.access_token}`)).status).toBe(401);
  });
});
