/**
 * The records of the OAuth provider, web sessions and group SAML/SCIM, kept as one sub-state of the
 * platform's root (`state.identity`). OAuth access tokens themselves live in the core `tokens` table
 * (kind `oauth`), so that the core's token lookup, scopes and expiry apply to them unchanged; what only
 * OAuth needs (application, refresh token, lifetime) lives here, keyed by the same id.
 */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

/** A registered OAuth application (Doorkeeper's `oauth_applications`). */
export interface OAuthApplicationRecord {
  id: number;
  name: string;
  /** The Application ID clients send as `client_id`. */
  uid: string;
  /** SHA-256 of the client secret; the secret itself is shown once, when the application is created. */
  secret_digest: string;
  /** As registered: one URI, or several separated by newlines. */
  redirect_uri: string;
  scopes: string[];
  confidential: boolean;
  /** Trusted applications skip the consent page. */
  trusted: boolean;
  /** The user who registered it; null for instance-wide applications (the admin API lists only those). */
  owner_id: number | null;
  created_at: string;
}

/** An authorization code (Doorkeeper's access grant). Only the code's digest is kept. */
export interface OAuthGrantRecord {
  id: number;
  application_id: number;
  user_id: number;
  digest: string;
  redirect_uri: string;
  scopes: string[];
  code_challenge: string | null;
  code_challenge_method: string | null;
  /** Instant after which the code no longer works. */
  expires_at: string;
  revoked: boolean;
  created_at: string;
}

/** What an OAuth access token has beyond the core token record with the same id. */
export interface OAuthTokenRecord {
  id: number;
  application_id: number | null;
  /** null for client-credentials tokens, which have no resource owner. */
  user_id: number | null;
  refresh_digest: string | null;
  /** Lifetime in seconds; null for a token that never expires. */
  expires_in: number | null;
  created_at: string;
}

/**
 * A signed-in browser session of the web side (`_fauxlab_session`). Before signing in, a browser's session
 * lives in a signed cookie instead, so that looking at a page writes nothing.
 */
export interface WebSessionRecord {
  id: number;
  digest: string;
  user_id: number;
  /** The form authenticity token of this session. */
  csrf: string;
  created_at: string;
}

/** A group's SAML SSO configuration, with its SCIM token. */
export interface SamlProviderRecord {
  id: number;
  group_id: number;
  enabled: boolean;
  sso_url: string;
  /** The access level SCIM-provisioned users get in the group. */
  default_membership_role: number;
  scim_token_digest: string | null;
}

/** A user provisioned into a group by SCIM (`scim_identities`). */
export interface ScimIdentityRecord {
  id: number;
  group_id: number;
  user_id: number;
  extern_uid: string;
  active: boolean;
  created_at: string;
}

export interface IdentityState {
  applications: Table<OAuthApplicationRecord>;
  grants: Table<OAuthGrantRecord>;
  oauthTokens: Table<OAuthTokenRecord>;
  sessions: Table<WebSessionRecord>;
  samlProviders: Table<SamlProviderRecord>;
  scimIdentities: Table<ScimIdentityRecord>;
  idx: {
    /** application uid -> application id */
    appUids: Index;
    /** code digest -> grant id */
    grants: Index;
    /** `a<app id>` -> grant ids */
    grantsBy: MultiIndex;
    /** refresh token digest -> token id */
    refresh: Index;
    /** `a<app id>` -> token ids; `<app id>:<user id>` -> token ids (consent already given) */
    tokensBy: MultiIndex;
    /** session cookie digest -> session id */
    sessions: Index;
    /** group id -> SAML provider id */
    samlByGroup: Index;
    /** SCIM token digest -> group id */
    scimTokens: Index;
    /** `<group id>:<lower-cased extern_uid>` -> SCIM identity id */
    scim: Index;
    /** `g<group id>` / `u<user id>` -> SCIM identity ids */
    scimBy: MultiIndex;
  };
}

export function emptyIdentity(): IdentityState {
  return {
    applications: emptyTable(),
    grants: emptyTable(),
    oauthTokens: emptyTable(),
    sessions: emptyTable(),
    samlProviders: emptyTable(),
    scimIdentities: emptyTable(),
    idx: {
      appUids: emptyIndex(),
      grants: emptyIndex(),
      grantsBy: emptyIndex(),
      refresh: emptyIndex(),
      tokensBy: emptyIndex(),
      sessions: emptyIndex(),
      samlByGroup: emptyIndex(),
      scimTokens: emptyIndex(),
      scim: emptyIndex(),
      scimBy: emptyIndex(),
    },
  };
}

declare module '../../core/state.js' {
  interface AreaStates {
    identity: IdentityState;
  }
}
