/** The pending members' records: access requests and invitations, made, found and removed. */
import { createHash } from 'node:crypto';
import type { Draft } from 'immer';
import { nextId, type MemberSource, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { AccessRequestRecord, InvitationRecord } from './store.js';

type S = Draft<PlatformState>;

const sourceKey = (source: MemberSource, sourceId: number) => `${source}:${sourceId}`;
const requestKey = (source: MemberSource, sourceId: number, userId: number) =>
  `${source}:${sourceId}:${userId}`;

/** The user's pending request on a group or project (`source.requesters.find_by(user_id:)`). */
export function requestOf(
  st: PlatformState,
  source: MemberSource,
  sourceId: number,
  userId: number,
): AccessRequestRecord | undefined {
  const id = iget(st.access_requests.idx.requests, requestKey(source, sourceId, userId));
  return id === undefined ? undefined : tget(st.access_requests.requests, id);
}

/** A source's requests by id (the default order the API's `paginate` adds), of users that still exist. */
export function requestsOf(st: PlatformState, source: MemberSource, sourceId: number): AccessRequestRecord[] {
  return mget(st.access_requests.idx.requestsBy, sourceKey(source, sourceId))
    .map((id) => tget(st.access_requests.requests, id)!)
    .filter((r) => tget(st.users, r.user_id) !== undefined)
    .sort((a, b) => a.id - b.id);
}

/**
 * `Members::RequestAccessService`: a member row at Developer (`Gitlab::Access::DEVELOPER`) with
 * `requested_at`, which grants nothing until approved.
 */
export function createRequest(
  d: S,
  source: MemberSource,
  sourceId: number,
  userId: number,
  now: string,
  accessLevel = 30,
): AccessRequestRecord {
  const id = nextId(d, 'access_requests');
  const rec: AccessRequestRecord = {
    id,
    source,
    source_id: sourceId,
    user_id: userId,
    access_level: accessLevel,
    requested_at: now,
    created_at: now,
  };
  tset(d.access_requests.requests, id, rec);
  iset(d.access_requests.idx.requests, requestKey(source, sourceId, userId), id);
  madd(d.access_requests.idx.requestsBy, sourceKey(source, sourceId), id);
  madd(d.access_requests.idx.requestsBy, `u${userId}`, id);
  return rec;
}

export function removeRequest(d: S, id: number): void {
  const r = tget(d.access_requests.requests, id);
  if (!r) return;
  idelete(d.access_requests.idx.requests, requestKey(r.source, r.source_id, r.user_id));
  mremove(d.access_requests.idx.requestsBy, sourceKey(r.source, r.source_id), id);
  mremove(d.access_requests.idx.requestsBy, `u${r.user_id}`, id);
  tdelete(d.access_requests.requests, id);
}

/** Removes the user's pending request on a source, if any (a membership made for them takes its place). */
export function dropRequest(d: S, source: MemberSource, sourceId: number, userId: number): void {
  const id = iget(d.access_requests.idx.requests, requestKey(source, sourceId, userId));
  if (id !== undefined) removeRequest(d, id);
}

/** A source's invitations, oldest first. */
export function invitationsOf(st: PlatformState, source: MemberSource, sourceId: number): InvitationRecord[] {
  return mget(st.access_requests.idx.invitationsBy, sourceKey(source, sourceId))
    .map((id) => tget(st.access_requests.invitations, id)!)
    .sort((a, b) => a.id - b.id);
}

/**
 * The stored `invite_token`: the platform keeps `Devise.token_generator`'s HMAC-SHA256 digest of the
 * token it mails, 64 hex characters. Made from the record's identity, so that a scenario loads it again.
 */
export const inviteToken = (source: MemberSource, sourceId: number, email: string, createdAt: string) =>
  createHash('sha256').update(`invite\0${source}\0${sourceId}\0${email}\0${createdAt}`).digest('hex');

export interface InvitationFields {
  invite_email: string;
  access_level: number;
  expires_at: string | null;
  created_by_id: number | null;
  invite_token?: string;
}

export function createInvitation(
  d: S,
  source: MemberSource,
  sourceId: number,
  f: InvitationFields,
  now: string,
): InvitationRecord {
  const id = nextId(d, 'invitations');
  const rec: InvitationRecord = {
    id,
    source,
    source_id: sourceId,
    invite_email: f.invite_email,
    invite_token: f.invite_token ?? inviteToken(source, sourceId, f.invite_email, now),
    access_level: f.access_level,
    expires_at: f.expires_at,
    created_by_id: f.created_by_id,
    created_at: now,
  };
  tset(d.access_requests.invitations, id, rec);
  madd(d.access_requests.idx.invitationsBy, sourceKey(source, sourceId), id);
  return rec;
}

/** What a deleted group or project takes with it. */
export function deleteSourcePending(d: S, source: MemberSource, sourceId: number): void {
  const key = sourceKey(source, sourceId);
  for (const id of mget(d.access_requests.idx.requestsBy, key)) removeRequest(d, id);
  for (const id of mget(d.access_requests.idx.invitationsBy, key)) tdelete(d.access_requests.invitations, id);
  idelete(d.access_requests.idx.invitationsBy, key);
}

/** A deleted user's requests go with their other member rows. */
export function deleteUserRequests(d: S, userId: number): void {
  for (const id of mget(d.access_requests.idx.requestsBy, `u${userId}`)) removeRequest(d, id);
}

/**
 * `Member.search_invite_email`: `invite_email ILIKE term`, the term a pattern as PostgreSQL reads it (`%`
 * any run, `_` any one character, a backslash escaping the next), matched without regard to case. Matched
 * by the two-pointer wildcard walk, at most (term length x address length) steps: a term of many `%` costs
 * no backtracking as a regular expression's nested runs would.
 */
export function ilike(term: string): (s: string) => boolean {
  // Pattern items: -1 any run, -2 any one character, else a literal (lower-cased code point).
  const items: (string | -1 | -2)[] = [];
  const chars = [...term];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '\\' && i + 1 < chars.length) items.push(chars[++i]!.toLowerCase());
    else if (ch === '%') {
      if (items[items.length - 1] !== -1) items.push(-1);
    } else if (ch === '_') items.push(-2);
    else items.push(ch.toLowerCase());
  }
  return (value) => {
    const s = [...value.toLowerCase()];
    let i = 0;
    let j = 0;
    let star = -1;
    let mark = 0;
    while (i < s.length) {
      const it = items[j];
      if (j < items.length && it !== -1 && (it === -2 || it === s[i])) {
        i++;
        j++;
      } else if (j < items.length && it === -1) {
        star = j++;
        mark = i;
      } else if (star >= 0) {
        j = star + 1;
        i = ++mark;
      } else return false;
    }
    while (j < items.length && items[j] === -1) j++;
    return j === items.length;
  };
}
