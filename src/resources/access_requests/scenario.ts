/**
 * Scenario files' `access_requests` and `invitations` of a group or project entry: the pending member
 * rows, which grant nothing until approved (or accepted).
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut, ScenarioRefs } from '../../core/area.js';
import { accessLevel, isoDate, isoOf, isoTime } from '../../core/fields.js';
import type { MemberSource, PlatformState } from '../../core/state.js';
import { tvalues } from '../../core/table.js';
import { createInvitation, createRequest } from './model.js';
import { validEmail } from './invitations.js';

const requestSchema = z.strictObject({
  username: z.string().min(1).describe('the requester'),
  requested_at: isoTime.optional(),
});

const invitationSchema = z.strictObject({
  email: z.string().refine(validEmail, 'must be an e-mail address').describe('the address invited'),
  access_level: accessLevel,
  expires_at: isoDate.nullable().optional(),
  created_by: z.string().nullable().optional().describe('the username of who invited'),
  created_at: isoTime.optional(),
  invite_token: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be 64 hex digits')
    .optional()
    .describe("the stored token (made from the invitation's identity when absent)"),
});

const fields = {
  access_requests: z
    .array(requestSchema)
    .optional()
    .describe('pending access requests (Developer until approved)'),
  invitations: z.array(invitationSchema).optional().describe('pending invitations of e-mail addresses'),
};
export const pendingGroupFields = fields;
export const pendingProjectFields = fields;

export interface PendingEntry {
  access_requests?: z.output<typeof requestSchema>[];
  invitations?: z.output<typeof invitationSchema>[];
}

interface Listed {
  groups?: readonly (PendingEntry & { path: string })[];
  projects?: readonly (PendingEntry & { path: string })[];
}

/** Requesters and inviters the scenario lists; one request per user and one invitation per address. */
export function pendingProblems(s: Listed, refs: ScenarioRefs): string[] {
  const problems: string[] = [];
  const check = (list: readonly PendingEntry[] | undefined, kind: 'groups' | 'projects') =>
    (list ?? []).forEach((e, i) => {
      const at = `${kind}[${i}]`;
      const seen = new Set<string>();
      (e.access_requests ?? []).forEach((r, j) => {
        const name = r.username.toLowerCase();
        if (!refs.users.has(name))
          problems.push(`${at}.access_requests[${j}].username: no user "${r.username}" in the scenario`);
        else if (seen.has(name))
          problems.push(`${at}.access_requests[${j}].username: "${r.username}" requested twice`);
        seen.add(name);
      });
      const emails = new Set<string>();
      (e.invitations ?? []).forEach((inv, j) => {
        if (inv.created_by != null && !refs.users.has(inv.created_by.toLowerCase()))
          problems.push(`${at}.invitations[${j}].created_by: no user "${inv.created_by}" in the scenario`);
        const key = inv.email.toLowerCase();
        if (emails.has(key)) problems.push(`${at}.invitations[${j}].email: "${inv.email}" invited twice`);
        emails.add(key);
      });
    });
  check(s.groups, 'groups');
  check(s.projects, 'projects');
  return problems;
}

export function buildPending(
  st: Draft<PlatformState>,
  source: MemberSource,
  id: number,
  e: PendingEntry,
  b: ScenarioBuild,
): void {
  for (const r of e.access_requests ?? [])
    createRequest(st, source, id, b.uid(r.username), isoOf(r.requested_at) ?? b.now);
  for (const inv of e.invitations ?? [])
    createInvitation(
      st,
      source,
      id,
      {
        invite_email: inv.email,
        access_level: inv.access_level,
        expires_at: inv.expires_at ?? null,
        created_by_id: inv.created_by == null ? null : b.uid(inv.created_by),
        invite_token: inv.invite_token,
      },
      isoOf(inv.created_at) ?? b.now,
    );
}

export function exportPending(st: PlatformState, out: ScenarioOut): void {
  const entry = (source: MemberSource, id: number) => (source === 'group' ? out.group(id) : out.project(id));
  for (const r of tvalues(st.access_requests.requests).sort((a, b) => a.id - b.id)) {
    const e = entry(r.source, r.source_id);
    const username = out.username(r.user_id);
    if (!e || username === undefined) continue;
    ((e.access_requests ??= []) as unknown[]).push({ username, requested_at: r.requested_at });
  }
  for (const i of tvalues(st.access_requests.invitations).sort((a, b) => a.id - b.id)) {
    const e = entry(i.source, i.source_id);
    if (!e) continue;
    ((e.invitations ??= []) as unknown[]).push({
      email: i.invite_email,
      access_level: i.access_level,
      expires_at: i.expires_at,
      created_by: i.created_by_id === null ? null : (out.username(i.created_by_id) ?? null),
      created_at: i.created_at,
      invite_token: i.invite_token,
    });
  }
}
