import { createFauxlab, type FauxlabOptions } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';

/** The SCIM tests' world: a premium instance, a group with SAML and a SCIM token, a private project. */
export const scimWorld: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  tier: 'premium',
  users: [
    {
      username: 'root',
      name: 'Administrator',
      admin: true,
      tokens: [{ token: 'root-api', scopes: ['api'] }],
    },
    { username: 'alice', name: 'Alice Liddell', tokens: [{ token: 'alice-api', scopes: ['api'] }] },
    { username: 'dave', name: 'Dave Lister', email: 'dave@corp.example' },
    { username: 'erin', name: 'Erin Hannon', email: 'erin@corp.example' },
  ],
  groups: [
    {
      path: 'acme',
      visibility: 'private',
      members: [{ username: 'alice', access_level: 'owner' }],
      saml: true,
      scim_token: 'acme-scim',
      scim_identities: [{ username: 'erin', extern_uid: 'erin-uid' }],
    },
    {
      path: 'other',
      saml: { enabled: true, sso_url: 'https://idp.example/other', default_membership_role: 'developer' },
      scim_token: 'other-scim',
    },
    { path: 'plain' },
    { path: 'off', saml: { enabled: false }, scim_token: 'off-scim' },
  ],
  projects: [{ path: 'acme/secret', visibility: 'private' }],
};

export const scimFx = (options: FauxlabOptions = {}) => createFauxlab({ scenario: scimWorld, ...options });
export type Fx = ReturnType<typeof createFauxlab>;

export { json } from '../helpers.js';

/** A SCIM request with the group's token. */
export function scim(
  fx: Fx,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = 'acme-scim',
): Promise<Response> {
  return Promise.resolve(
    fx.app.request(`/api/scim/v2/groups/${path}`, {
      method,
      headers: {
        ...(token !== null && { Authorization: `Bearer ${token}` }),
        ...(body !== undefined && { 'Content-Type': 'application/scim+json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    }),
  );
}

export const newUser = (extra: Record<string, unknown> = {}) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  externalId: 'jane-uid',
  active: true,
  userName: 'jane.doe@corp.example',
  emails: [{ primary: true, type: 'work', value: 'jane.doe@corp.example' }],
  name: { formatted: 'Jane Doe', familyName: 'Doe', givenName: 'Jane' },
  ...extra,
});

export const patch = (...ops: { op: string; path?: string; value: unknown }[]) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
  Operations: ops,
});
