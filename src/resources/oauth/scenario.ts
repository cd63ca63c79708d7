/**
 * Scenario support for the identity areas: `oauth_applications[]`, and groups' `saml`, `scim_token` and
 * `scim_identities`.
 */
import type { Draft } from 'immer';
import { memberKey } from '../../core/access.js';
import type { ScenarioOut } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { digest } from '../../core/store.js';
import { iget, iset, tget, tvalues } from '../../core/table.js';
import { z } from 'zod';
import { accessLevel, digestHex } from '../../core/fields.js';
import { setMember } from '../projects/model.js';
import { addScimIdentity, GROUP_SAML_PROVIDER, linkSamlIdentity, setSamlProvider } from '../scim/model.js';
import { createApplication, SERVER_SCOPES } from './model.js';

type S = Draft<PlatformState>;

const oauthApplicationSchema = z
  .strictObject({
    name: z.string().min(1),
    uid: z.string().min(1).describe('the Application ID clients send as client_id'),
    secret: z.string().min(1).optional().describe('the client secret; or give secret_digest'),
    secret_digest: digestHex.optional().describe('SHA-256 of the client secret; instead of secret'),
    redirect_uri: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .describe('one redirect URI, or several'),
    scopes: z
      .union([z.string(), z.array(z.string())])
      .default(['api'])
      .transform((v) => (Array.isArray(v) ? v : v.split(/\s+/).filter(Boolean)))
      .refine(
        (v) => v.every((s) => SERVER_SCOPES.includes(s)),
        `may contain only ${SERVER_SCOPES.join(', ')}`,
      )
      .describe('space-separated or a list (default api)'),
    confidential: z.boolean().default(true),
    trusted: z.boolean().default(false).describe('trusted applications skip the consent page'),
    owner: z
      .string()
      .optional()
      .describe('username of the user who registered it; GET /applications lists only those without one'),
  })
  .refine((a) => !a.secret !== !a.secret_digest, { message: 'give secret or secret_digest (exactly one)' });

/** Top-level fields of this area. */
export const identityFields = {
  oauth_applications: z.array(oauthApplicationSchema).default([]),
};

/** Fields a group entry may carry for this area (paid tiers). */
export const identityGroupFields = {
  saml: z
    .union([
      z.boolean(),
      z.strictObject({
        enabled: z.boolean().default(true),
        sso_url: z.string().default('https://idp.example.com/sso'),
        default_membership_role: accessLevel.default(10),
      }),
    ])
    .optional()
    .describe('paid tiers: group SAML SSO (`true`, or its settings); the SCIM API needs it'),
  scim_token: z.string().min(1).optional().describe('paid tiers: the token SCIM clients send as Bearer'),
  scim_token_digest: digestHex
    .optional()
    .describe('SHA-256 of the SCIM token, as `fauxlab scenario export` writes it; instead of scim_token'),
  scim_identities: z
    .array(
      z.strictObject({
        username: z.string().min(1),
        extern_uid: z.string().min(1),
        active: z.boolean().default(true),
      }),
    )
    .optional()
    .describe("users provisioned into the group by SCIM (they need the group's `saml`)"),
};

export type Group = z.output<z.ZodObject<typeof identityGroupFields>>;
export type IdentityScenario = z.output<z.ZodObject<typeof identityFields>> & { groups: Group[] };

/** The group fields this area reads; buildWorld keeps them off the group record. */
export const IDENTITY_GROUP_FIELDS = ['saml', 'scim_token', 'scim_token_digest', 'scim_identities'] as const;

/** What `saml: true` sets up. */
const SAML_DEFAULTS = { enabled: true, sso_url: 'https://idp.example.com/sso', default_membership_role: 10 };

/** Cross-reference problems: unknown owners, duplicate uids, SCIM identities without users or SAML. */
export function identityScenarioProblems(s: IdentityScenario, users: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const uids = new Set<string>();
  s.oauth_applications.forEach((a, i) => {
    if (uids.has(a.uid)) problems.push(`oauth_applications[${i}].uid: "${a.uid}" is used twice`);
    uids.add(a.uid);
    if (a.owner && !users.has(a.owner.toLowerCase()))
      problems.push(`oauth_applications[${i}].owner: no user "${a.owner}"`);
  });
  const tokens = new Set<string>();
  s.groups.forEach((g, i) => {
    if (g.scim_token !== undefined && g.scim_token_digest !== undefined)
      problems.push(`groups[${i}].scim_token_digest: give scim_token or scim_token_digest, not both`);
    if (g.scim_token_digest !== undefined && !g.saml)
      problems.push(`groups[${i}].scim_token_digest: SCIM needs the group's saml`);
    if (g.scim_token !== undefined) {
      if (!g.saml) problems.push(`groups[${i}].scim_token: SCIM needs the group's saml`);
      if (tokens.has(g.scim_token)) problems.push(`groups[${i}].scim_token: the same token is given twice`);
      tokens.add(g.scim_token);
    }
    const seenUids = new Set<string>();
    const seenUsers = new Set<string>();
    (g.scim_identities ?? []).forEach((si, j) => {
      const at = `groups[${i}].scim_identities[${j}]`;
      if (!g.saml) problems.push(`${at}: SCIM identities need the group's saml`);
      if (!users.has(si.username.toLowerCase())) problems.push(`${at}.username: no user "${si.username}"`);
      else if (seenUsers.has(si.username.toLowerCase()))
        problems.push(`${at}.username: "${si.username}" is listed twice`);
      if (seenUids.has(si.extern_uid.toLowerCase()))
        problems.push(`${at}.extern_uid: "${si.extern_uid}" is used twice`);
      seenUsers.add(si.username.toLowerCase());
      seenUids.add(si.extern_uid.toLowerCase());
    });
  });
  return problems;
}

/** Registers the scenario's OAuth applications. */
export function buildApplications(
  st: S,
  s: IdentityScenario,
  uid: (username: string) => number,
  now: string,
): void {
  for (const a of s.oauth_applications)
    createApplication(
      st,
      {
        name: a.name,
        uid: a.uid,
        secret_digest: a.secret_digest ?? digest(a.secret ?? ''),
        redirect_uri: Array.isArray(a.redirect_uri) ? a.redirect_uri.join('\n') : a.redirect_uri,
        scopes: a.scopes,
        confidential: a.confidential,
        trusted: a.trusted,
        owner_id: a.owner ? uid(a.owner) : null,
      },
      now,
    );
}

/**
 * A group's SAML provider, SCIM token and SCIM identities. An active identity's user is a member (with the
 * provider's default role unless the scenario made them one) and has the group's SAML identity.
 */
export function buildGroupIdentity(
  st: S,
  groupId: number,
  g: Group,
  uid: (username: string) => number,
  now: string,
): void {
  if (!g.saml) return;
  const cfg = g.saml === true ? SAML_DEFAULTS : g.saml;
  const providerId = setSamlProvider(st, groupId, cfg, g.scim_token ?? null);
  const provider = tget(st.identity.samlProviders, providerId)!;
  // An exported scenario carries the digest the state keeps instead of the token.
  if (g.scim_token_digest !== undefined) {
    provider.scim_token_digest = g.scim_token_digest;
    iset(st.identity.idx.scimTokens, g.scim_token_digest, groupId);
  }
  for (const si of g.scim_identities ?? []) {
    const userId = uid(si.username);
    addScimIdentity(st, groupId, userId, si.extern_uid, si.active, now);
    if (!si.active) continue;
    if (iget(st.idx.members, memberKey('group', groupId, userId)) === undefined)
      setMember(st, 'group', groupId, userId, provider.default_membership_role, now);
    const u = tget(st.users, userId)!;
    if (!u.identities.some((i) => i.provider === GROUP_SAML_PROVIDER && i.saml_provider_id === providerId))
      linkSamlIdentity(st, userId, provider, si.extern_uid);
  }
}

/**
 * OAuth applications (the secret as its digest) and each group's SAML provider, SCIM token digest and
 * SCIM identities. Not kept: grants, OAuth tokens and web sessions, which a scenario cannot describe
 * (clients sign in again).
 */
export function exportIdentity(st: PlatformState, out: ScenarioOut): void {
  const apps = tvalues(st.identity.applications).map((a) => {
    const e: Record<string, unknown> = { name: a.name, uid: a.uid, secret_digest: a.secret_digest };
    e.redirect_uri = a.redirect_uri.includes('\n') ? a.redirect_uri.split('\n') : a.redirect_uri;
    e.scopes = a.scopes;
    if (!a.confidential) e.confidential = false;
    if (a.trusted) e.trusted = true;
    const owner = out.username(a.owner_id);
    if (owner !== undefined) e.owner = owner;
    return e;
  });
  if (apps.length) out.file.oauth_applications = apps;
  for (const p of tvalues(st.identity.samlProviders)) {
    const g = out.group(p.group_id);
    if (!g) continue;
    const cfg = {
      enabled: p.enabled,
      sso_url: p.sso_url,
      default_membership_role: p.default_membership_role,
    };
    g.saml = same(cfg, SAML_DEFAULTS) ? true : cfg;
    if (p.scim_token_digest !== null) g.scim_token_digest = p.scim_token_digest;
  }
  for (const si of tvalues(st.identity.scimIdentities)) {
    const g = out.group(si.group_id);
    const username = out.username(si.user_id);
    if (!g || username === undefined) continue;
    const e: Record<string, unknown> = { username, extern_uid: si.extern_uid };
    if (!si.active) e.active = false;
    ((g.scim_identities ??= []) as unknown[]).push(e);
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
