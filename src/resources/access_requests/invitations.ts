/**
 * The invitations API of 13.12 (`lib/api/invitations.rb`, 13.6): POST and GET only (updating and
 * removing an invitation came in 14.0), and invitations by e-mail only (`user_id` came later too).
 *
 * POST `authenticate!`s, validates its params (`email_or_email_list`: each address of the comma-separated
 * list `ValidateEmail.valid?`), finds the source, `authorize_admin_source!` (403), then answers what
 * `Members::InviteService#execute` returns, always with Grape's 201: `{"status":"success"}`, or
 * `{"message": ..., "status":"error"}` with one message, or with a message per address. The addresses
 * that succeeded stay added when others fail. GET lists the source's invitations to anyone who sees the
 * source (`retrieve_member_invitations`, no ability checked), `query` an `ILIKE` term.
 */
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { ApiError, forbidden, grapeError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { PlatformState } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { memberSystemEvent } from '../hooks/system.js';
import { setMember } from '../projects/model.js';
import { userIdByEmail } from '../users/model.js';
import { createInvitation, ilike, invitationsOf, requestOf } from './model.js';
import { PENDING_SOURCES, type PendingSource } from './sources.js';
import type { InvitationRecord } from './store.js';

/** `Members::InviteService::DEFAULT_LIMIT`. */
export const INVITE_LIMIT = 100;

const ATEXT = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$/;
const dotAtom = (s: string) => s !== '' && s.split('.').every((part) => ATEXT.test(part));

/**
 * `ValidateEmail.valid?` (the valid_email gem) as it reads a plain address: `Mail::Address` must give
 * back the value itself (no display name, comment or surrounding space), with a domain of two or more
 * dot-separated parts, none blank.
 */
export function validEmail(v: string): boolean {
  const at = v.lastIndexOf('@');
  if (at <= 0) return false;
  const local = v.slice(0, at);
  const domain = v.slice(at + 1);
  if (!dotAtom(local) || !dotAtom(domain)) return false;
  return domain.split('.').length > 1;
}

/** Ruby's `String#split(',')`: trailing empty fields dropped. */
function rubySplit(s: string): string[] {
  const out = s.split(',');
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

/** ActiveModel's `full_messages.to_sentence`. */
function sentence(errors: Record<string, string[]>): string {
  const list = Object.entries(errors).flatMap(([k, msgs]) => {
    const attr = k.replace(/_/g, ' ');
    return msgs.map((m) => `${attr.charAt(0).toUpperCase()}${attr.slice(1)} ${m}`);
  });
  if (list.length <= 2) return list.join(' and ');
  return `${list.slice(0, -1).join(', ')}, and ${list[list.length - 1]}`;
}

/** `Entities::Invitation` of 13.12 (`user_name` only where the row has a user, which an invitation has not). */
function invitationEntity(st: PlatformState) {
  return (i: InvitationRecord) => ({
    access_level: i.access_level,
    created_at: i.created_at,
    expires_at: i.expires_at,
    invite_email: i.invite_email,
    invite_token: i.invite_token,
    created_by_name: i.created_by_id === null ? null : (tget(st.users, i.created_by_id)?.name ?? null),
  });
}

const postShape = {
  email: p.str().required(),
  access_level: p.int().required().values([10, 20, 30, 40, 50]),
  expires_at: p.datetime(),
  invite_source: p.str().default('invitations-api'),
};
const listShape = { query: p.str(), ...paginationParams };

/** Grape's validations with the custom `email_or_email_list` one in its place among them. */
function parseInvite(c: Ctx) {
  const raw = c.get('params').email;
  let problems: string[] = [];
  let parsed: ReturnType<typeof parse<typeof postShape>> | undefined;
  try {
    parsed = parse(c, postShape);
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 400) throw e;
    problems = String((e.body as { error: string }).error).split(', ');
  }
  if (typeof raw === 'string' && !rubySplit(raw).every(validEmail)) {
    const at = problems.findIndex((m) => !m.startsWith('email '));
    problems.splice(at < 0 ? problems.length : at, 0, 'email contains an invalid email address');
  }
  if (problems.length > 0 || !parsed) throw grapeError(400, problems.join(', '));
  return parsed;
}

type Outcome = { status: 'success' } | { message: unknown; status: 'error' };

function inviteRoutesOf(r: ApiRouter, src: PendingSource): void {
  const base = `/${src.kind}s/:id/invitations`;

  r.post(base, (c) => {
    const user = requireUser(c);
    const prm = parseInvite(c);
    const s = src.load(c);
    if (!src.canAdmin(c, user, s)) throw forbidden();
    const answer = (o: Outcome) => c.json(o, 201);
    if (prm.email.trim() === '') return answer({ message: 'Email cannot be blank', status: 'error' });
    const emails = [...new Set(rubySplit(prm.email))];
    if (emails.length > INVITE_LIMIT)
      return answer({ message: `Too many users specified (limit is ${INVITE_LIMIT})`, status: 'error' });
    const expiresAt = prm.expires_at ? prm.expires_at.slice(0, 10) : null;
    const now = c.get('fx').clock.iso();
    const today = c.get('fx').clock.today();
    const errors: Record<string, string> = Object.create(null) as Record<string, string>;
    const hooked: { id: number; action: 'create' | 'update' }[] = [];
    write(c, (d) => {
      const st = d as PlatformState;
      for (const email of emails) {
        // `with_user_by_email`: the user whose primary address, as the platform stores it (down-cased), is
        // exactly this one: a direct member (a personal project's owner too), or a requester.
        const owner = userIdByEmail(st, email);
        const exact = owner !== undefined && tget(st.users, owner)?.email.toLowerCase() === email;
        if (exact && src.directMember(st, s, owner)) {
          errors[email] = `Already a member of ${s.name}`;
          continue;
        }
        const invited = ilike(email);
        if (invitationsOf(st, src.kind, s.id).some((i) => invited(i.invite_email))) {
          errors[email] = `Member already invited to ${s.name}`;
          continue;
        }
        if (exact && requestOf(st, src.kind, s.id, owner)) {
          errors[email] = `Member cannot be invited because they already requested to join ${s.name}`;
          continue;
        }
        // `User.find_by_email`: any of the user's addresses, regardless of case; `source.add_user`.
        const uid = userIdByEmail(st, email);
        if (uid !== undefined) {
          const existed = src.directMember(st, s, uid);
          if (existed && src.locked(st, s, uid)) continue;
          const problems = src.errors(st, s, uid, prm.access_level, expiresAt, today);
          if (Object.keys(problems).length > 0) {
            errors[email] = sentence(problems);
            continue;
          }
          const id = setMember(d, src.kind, s.id, uid, prm.access_level, now, expiresAt);
          hooked.push({ id, action: existed ? 'update' : 'create' });
          continue;
        }
        const problems = src.errors(st, s, 0, prm.access_level, expiresAt, today);
        if (Object.keys(problems).length > 0) {
          // 13.12's `invite_new_member_and_user` files the error under the whole `email` param.
          errors[prm.email] = sentence(problems);
          continue;
        }
        createInvitation(
          d,
          src.kind,
          s.id,
          {
            invite_email: email,
            access_level: prm.access_level,
            expires_at: expiresAt,
            created_by_id: user.id,
          },
          now,
        );
      }
    });
    for (const h of hooked) memberSystemEvent(c, tget(state(c).members, h.id)!, h.action);
    if (Object.keys(errors).length === 0) return answer({ status: 'success' });
    return answer({ message: { ...errors }, status: 'error' });
  });

  r.get(base, (c) => {
    requireUser(c);
    const prm = parse(c, listShape);
    const s = src.load(c);
    const st = state(c);
    let list = invitationsOf(st, src.kind, s.id);
    if (prm.query !== undefined && prm.query.trim() !== '') {
      const match = ilike(prm.query);
      list = list.filter((i) => match(i.invite_email));
    }
    return paginate(c, list, invitationEntity(st));
  });
}

export function invitationsRoutes(r: ApiRouter): void {
  for (const src of PENDING_SOURCES) inviteRoutesOf(r, src);
}
