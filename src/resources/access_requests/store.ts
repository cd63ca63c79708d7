/**
 * The pending members of a group or project: access requests (`Member#request?`, a member row with
 * `requested_at`, `lib/api/access_requests.rb`) and invitations by e-mail (`Member#invite?`, a member row
 * with `invite_email` and `invite_token` and no user, `lib/api/invitations.rb`). The platform keeps both in
 * its members table behind scopes that every access check leaves out (`non_request`, `non_invite`); fauxlab
 * keeps them apart, so that no membership read can count them: neither grants any access.
 */
import type { MemberSource } from '../../core/state.js';
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

/** An access request: the member row a requester gets, Developer until an approver picks another level. */
export interface AccessRequestRecord {
  id: number;
  source: MemberSource;
  source_id: number;
  user_id: number;
  access_level: number;
  requested_at: string;
  created_at: string;
}

/** An invitation of an e-mail address that belongs to no user (`Members::InviteService`). */
export interface InvitationRecord {
  id: number;
  source: MemberSource;
  source_id: number;
  invite_email: string;
  /** The stored token (`Devise.token_generator`'s digest: 64 hex characters), which the entity shows. */
  invite_token: string;
  access_level: number;
  expires_at: string | null;
  created_by_id: number | null;
  created_at: string;
}

export interface AccessRequestsState {
  requests: Table<AccessRequestRecord>;
  invitations: Table<InvitationRecord>;
  idx: {
    /** `source:source_id:user_id` -> request id */
    requests: Index;
    /** `source:source_id` -> request ids, and `u<user id>` -> the user's request ids */
    requestsBy: MultiIndex;
    /** `source:source_id` -> invitation ids, in creation order */
    invitationsBy: MultiIndex;
  };
}

export const emptyAccessRequests = (): AccessRequestsState => ({
  requests: emptyTable(),
  invitations: emptyTable(),
  idx: { requests: emptyIndex(), requestsBy: emptyIndex(), invitationsBy: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    access_requests: AccessRequestsState;
  }
}
