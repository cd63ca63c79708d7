/**
 * The users API: `/users` (list, show, create, update, delete, identities, block, unblock, deactivate,
 * activate) and `/user`;
 * the list in list.ts, create and update in write.ts.
 *
 * The platform checks things in a fixed order, and the order is visible to clients: the route must match
 * (user ids are numeric; anything else is the catch-all 404), writes need a user, params are validated
 * (400), then the endpoint body checks admin rights (403), the user (404), conflicts, the model.
 */
import { ACCESS } from '../../core/access.js';
import { requireAdmin, requireUser } from '../../core/auth.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { state, write, type Ctx } from '../../core/context.js';
import { conflict, forbidden, notFound } from '../../core/errors.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { p } from '../../core/params.js';
import { type ApiRouter } from '../../core/router.js';
import { isBlocked, type MemberRecord, type PlatformState, type UserRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { userRenderer } from './entities.js';
import { deleteUser, planUserDeletion, soloOwnedGroups } from './model.js';
import { listUsers, showParams } from './list.js';
import { findUserById, noContent, publicRestricted } from './route-helpers.js';
import { createUserRoute, updateUserRoute } from './write.js';
import { moderationRoutes } from './moderation.js';
import { systemEvent, userEventData } from '../hooks/system.js';
import { jsonResponse } from '../../core/respond.js';

/** User ids are numeric: anything else matches no route and reaches the catch-all. */
const USER_ID = { id: /^\d+$/ };

/** Every users route opens to `read_user` tokens on reads. */
const readScopes = ['read_user'];
// ---------------------------------------------------------------------------------------------------
// Routes

export function usersRoutes(r: ApiRouter): void {
  r.get('/users', { readScopes }, listUsers);

  r.get('/users/:id', { readScopes, requirements: USER_ID, params: showParams }, (c, prm) => {
    const id = Number(c.req.param('id'));
    const st = state(c);
    const u = tget(st.users, id);
    const viewer = c.get('viewer').user;
    if (!u) throw notFound('User', `no user ${id}`);
    if (!viewer && publicRestricted(st))
      throw notFound('User', 'public visibility is restricted: anonymous users see no one');
    const rr = userRenderer(c);
    const admin = viewer?.admin === true;
    const opts = { customAttributes: admin && prm.with_custom_attributes };
    return jsonResponse(admin ? rr.detailsBody(u, opts) : rr.userBody(u, opts));
  });

  r.get('/user', { auth: 'required', readScopes }, (c) => {
    const u = requireUser(c);
    const rr = userRenderer(c);
    return jsonResponse(u.admin ? rr.withAdminBody(u) : rr.publicBody(u));
  });

  r.post('/users', createUserRoute);

  r.put('/users/:id', { requirements: USER_ID }, updateUserRoute);

  r.delete(
    '/users/:id',
    { requirements: USER_ID, params: { hard_delete: p.bool() }, auth: 'admin' },
    (c, prm) => {
      const id = Number(c.req.param('id'));
      const st = state(c);
      const user = findUserById(c, id);
      if (!prm.hard_delete && soloOwnedGroups(st, id).length > 0)
        throw conflict('User cannot be removed while is the sole-owner of a group');
      checkUnmodifiedSince(c, user.updated_at);
      const plan = planUserDeletion(st, id, prm.hard_delete === true);
      write(c, (d) => deleteUser(d, plan));
      systemEvent(c, 'user_destroy', userEventData(user));
      return noContent(c);
    },
  );

  r.delete('/users/:id/identities/:provider', { requirements: USER_ID, auth: 'admin' }, (c) => {
    const id = Number(c.req.param('id'));
    const user = findUserById(c, id);
    const provider = c.req.param('provider');
    if (!user.identities.some((i) => i.provider === provider))
      throw notFound('Identity', `user ${id} has no ${provider} identity`);
    checkUnmodifiedSince(c, user.updated_at);
    write(c, (d) => {
      const u = tget(d.users, id)!;
      u.identities = u.identities.filter((i) => i.provider !== provider);
    });
    return noContent(c);
  });

  r.post('/users/:id/block', { requirements: USER_ID, auth: 'admin' }, (c) => {
    const id = Number(c.req.param('id'));
    const user = findUserById(c, id);
    if (user.state === 'ldap_blocked') throw forbidden('LDAP blocked users cannot be modified by the API');
    // Blocking a blocked user (`User#blocked?`, a sign-up pending approval too) ends the endpoint early:
    // 201 with a null body.
    if (user.state === 'blocked' || user.state === 'blocked_pending_approval') return c.json(null, 201);
    setState(c, id, 'blocked');
    return c.json(true, 201);
  });

  r.post('/users/:id/unblock', { requirements: USER_ID, auth: 'admin' }, (c) => {
    const id = Number(c.req.param('id'));
    const user = findUserById(c, id);
    if (user.state === 'ldap_blocked') throw forbidden('LDAP blocked users cannot be unblocked by the API');
    if (user.state === 'deactivated') throw forbidden('Deactivated users cannot be unblocked by the API');
    // `activate` only moves a blocked user (a sign-up pending approval too, which it lets in): on an
    // active one the transition fails and answers false.
    if (user.state !== 'blocked' && user.state !== 'blocked_pending_approval') return c.json(false, 201);
    setState(c, id, 'active');
    return c.json(true, 201);
  });

  // `users/:user_id` is outside the users resource's `id` requirement: a non-integer is Grape's 400.
  r.get('/users/:user_id/memberships', { params: membershipParams }, (c, prm) => {
    requireAdmin(c);
    const user = findUserById(c, prm.user_id);
    const st = state(c);
    const members = mget(st.idx.membersByUser, String(user.id))
      .map((id) => tget(st.members, id)!)
      // `user.project_members` / `user.group_members` (guests and up) / `user.members`.
      .filter((m) =>
        prm.type === 'Project'
          ? m.source === 'project'
          : prm.type === 'Namespace'
            ? m.source === 'group' && m.access_level >= ACCESS.GUEST
            : true,
      )
      .sort((a, b) => a.id - b.id);
    return paginate(c, members, (m) => membershipEntity(st, m));
  });

  r.post('/users/:id/deactivate', { requirements: USER_ID, auth: 'admin' }, (c) => {
    const id = Number(c.req.param('id'));
    const user = findUserById(c, id);
    // A deactivated user ends the endpoint early (`break`): 201 with a null body.
    if (user.state === 'deactivated') return c.json(null, 201);
    if (!canBeDeactivated(user, c.get('fx').clock.ms())) {
      if (isBlocked(user)) throw forbidden('A blocked user cannot be deactivated by the API');
      throw forbidden(
        `The user you are trying to deactivate has been active in the past ${MINIMUM_INACTIVE_DAYS} days and cannot be deactivated`,
      );
    }
    setState(c, id, 'deactivated');
    return c.json(true, 201);
  });

  r.post('/users/:id/activate', { requirements: USER_ID, auth: 'admin' }, (c) => {
    const id = Number(c.req.param('id'));
    const user = findUserById(c, id);
    // `User#blocked?` covers the LDAP block and the ban too.
    if (isBlocked(user)) throw forbidden('A blocked user must be unblocked to be activated');
    // The state machine's `activate` has no transition from active: it answers false and writes nothing.
    if (user.state !== 'deactivated') return c.json(false, 201);
    setState(c, id, 'active');
    return c.json(true, 201);
  });

  moderationRoutes(r);
}

const membershipParams = {
  user_id: p.int().required(),
  type: p.str().values(['Project', 'Namespace']),
  ...paginationParams,
};

/** `Entities::Membership`: the source's own name (not its full name) and its type as the platform names it. */
function membershipEntity(st: PlatformState, m: MemberRecord) {
  const source = m.source === 'project' ? tget(st.projects, m.source_id) : tget(st.groups, m.source_id);
  return {
    source_id: m.source_id,
    source_name: source?.name ?? null,
    source_type: m.source === 'project' ? 'Project' : 'Namespace',
    access_level: m.access_level,
  };
}

/** `User::MINIMUM_INACTIVE_DAYS` as 13.12 has it (14.0 lowered it to 90 with dormant-user deactivation). */
export const MINIMUM_INACTIVE_DAYS = 180;

/**
 * `User#can_be_deactivated?`: active, and no activity since `MINIMUM_INACTIVE_DAYS` ago, where the last
 * activity is the later of `last_activity_on` (the day's start) and the current sign-in.
 */
function canBeDeactivated(u: UserRecord, nowMs: number): boolean {
  if (u.state !== 'active') return false;
  const times = [u.last_activity_on, u.current_sign_in_at]
    .filter((t): t is string => t !== null)
    .map((t) => Date.parse(t));
  const last = times.length ? Math.max(...times) : 0;
  return Math.floor(last / 1000) <= Math.floor((nowMs - MINIMUM_INACTIVE_DAYS * 86_400_000) / 1000);
}

function setState(c: Ctx, id: number, to: UserRecord['state']): void {
  const now = c.get('fx').clock.iso();
  write(c, (d) => {
    const u = tget(d.users, id)!;
    u.state = to;
    u.updated_at = now;
  });
}
