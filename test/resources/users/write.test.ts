import { produce } from 'immer';
import { describe, expect, it } from 'vitest';
import { iget, tget, tvalues } from '../../../src/core/table.js';
import { ADMIN_KEYS, call, type Fx, json, NAMESPACE_MSG, send, usernames, usersFx } from './world.js';

/** Expects a refused request to leave the state exactly as it was (the same immer root). */
async function refused(
  fx: Fx,
  method: string,
  path: string,
  token: string | undefined,
  body: unknown,
  status: number,
) {
  const before = fx.state;
  const out = await send(fx, method, path, token, body);
  expect(out.res.status).toBe(status);
  expect(fx.state).toBe(before);
  return out.body;
}

const newUser = { email: 'Zoe@Example.com', name: 'Zoe Zed', username: 'zoe', password: 'secret-pass' };

describe('POST /users', () => {
  it('POST /users: anonymous is a 401 before params are looked at', async () => {
    const fx = usersFx();
    expect(await refused(fx, 'POST', '/users', undefined, {}, 401)).toEqual({ message: '401 Unauthorized' });
  });

  it('POST /users: every missing param is reported at once, in declaration order', async () => {
    const fx = usersFx();
    expect(await refused(fx, 'POST', '/users', 'root-api', {}, 400)).toEqual({
      error:
        'email is missing, password, reset_password, force_random_password are missing, at least one parameter must be provided, name is missing, username is missing',
    });
  });

  it('POST /users: a non-admin with bad params gets the 400 first, with good params a 403', async () => {
    const fx = usersFx();
    expect(await refused(fx, 'POST', '/users', 'alice-api', { email: 'x@example.com' }, 400)).toEqual({
      error:
        'password, reset_password, force_random_password are missing, at least one parameter must be provided, name is missing, username is missing',
    });
    expect(await refused(fx, 'POST', '/users', 'alice-api', newUser, 403)).toEqual({
      message: '403 Forbidden',
    });
  });

  it('POST /users: creates a user and answers 201 with the admin shape', async () => {
    const fx = usersFx();
    const { res, body } = await send(fx, 'POST', '/users', 'root-api', newUser);
    expect(res.status).toBe(201);
    expect(Object.keys(body)).toEqual(ADMIN_KEYS);
    expect(body).toMatchObject({
      id: 8,
      username: 'zoe',
      name: 'Zoe Zed',
      email: 'zoe@example.com',
      state: 'active',
      web_url: 'http://localhost/zoe',
      created_at: '2021-03-01T12:00:00.000Z',
      bio: '',
      private_profile: false,
      projects_limit: 100000,
      can_create_group: true,
      external: false,
      is_admin: false,
      identities: [],
      // Without skip_confirmation the account waits for e-mail confirmation.
      confirmed_at: null,
    });
    const found = await send(fx, 'GET', '/users?username=ZOE', 'alice-api');
    expect(usernames(found.body)).toEqual(['zoe']);
  });

  it('POST /users: an external user can create no group and no project, whatever is asked', async () => {
    const fx = usersFx();
    const { res, body } = await send(fx, 'POST', '/users', 'root-api', {
      ...newUser,
      external: true,
      can_create_group: true,
      projects_limit: 20,
    });
    expect(res.status).toBe(201);
    expect(body).toMatchObject({ external: true, can_create_group: false, projects_limit: 0 });
  });

  it('PUT /users/:id: making a user external takes group and project creation; making it internal gives the defaults back', async () => {
    const fx = usersFx();
    const made = await send(fx, 'PUT', '/users/3', 'root-api', { external: true, projects_limit: 5 });
    expect(made.res.status).toBe(200);
    expect(made.body).toMatchObject({ external: true, can_create_group: false, projects_limit: 0 });
    const back = await send(fx, 'PUT', '/users/3', 'root-api', { external: false });
    expect(back.body).toMatchObject({ external: false, can_create_group: true, projects_limit: 100000 });
    await send(fx, 'PUT', '/users/3', 'root-api', { external: true });
    const chosen = await send(fx, 'PUT', '/users/3', 'root-api', { external: false, projects_limit: 7 });
    expect(chosen.body).toMatchObject({ external: false, can_create_group: true, projects_limit: 7 });
    // Unrelated updates leave the limits alone.
    await send(fx, 'PUT', '/users/3', 'root-api', { can_create_group: false });
    const other = await send(fx, 'PUT', '/users/3', 'root-api', { bio: 'hi' });
    expect(other.body).toMatchObject({ can_create_group: false, projects_limit: 7 });
  });

  it('POST /users: skip_confirmation confirms the account at once', async () => {
    const fx = usersFx();
    const { body } = await send(fx, 'POST', '/users', 'root-api', { ...newUser, skip_confirmation: true });
    expect(body.confirmed_at).toBe('2021-03-01T12:00:00.000Z');
  });

  it('POST /users: takes the optional attributes', async () => {
    const fx = usersFx();
    const { res, body } = await send(fx, 'POST', '/users', 'root-api', {
      ...newUser,
      admin: true,
      bio: 'Hi',
      location: 'Oslo',
      skype: 's',
      linkedin: 'l',
      twitter: 't',
      website_url: 'https://zoe.example',
      organization: 'Org',
      projects_limit: 5,
      can_create_group: false,
      // `external: true` would override both limits: see the external test below.
      external: false,
      theme_id: 2,
      color_scheme_id: 3,
      private_profile: true,
      note: 'VIP',
      public_email: 'zoe@example.com',
      extern_uid: 'zz',
      provider: 'github',
    });
    expect(res.status).toBe(201);
    expect(body).toMatchObject({
      is_admin: true,
      bio: 'Hi',
      location: 'Oslo',
      skype: 's',
      linkedin: 'l',
      twitter: 't',
      website_url: 'https://zoe.example',
      organization: 'Org',
      work_information: 'Org',
      projects_limit: 5,
      can_create_group: false,
      external: false,
      theme_id: 2,
      color_scheme_id: 3,
      private_profile: true,
      note: 'VIP',
      public_email: 'zoe@example.com',
      identities: [{ provider: 'github', extern_uid: 'zz' }],
    });
  });

  it('POST /users: private_profile null is read as false', async () => {
    const fx = usersFx();
    const { body } = await send(fx, 'POST', '/users', 'root-api', { ...newUser, private_profile: null });
    expect(body.private_profile).toBe(false);
  });

  it('POST /users: reset_password or force_random_password stand in for a password', async () => {
    const fx = usersFx();
    const { password: _pw, ...noPassword } = newUser;
    expect(
      (await send(fx, 'POST', '/users', 'root-api', { ...noPassword, reset_password: true })).res.status,
    ).toBe(201);
    const other = {
      ...noPassword,
      email: 'y@example.com',
      username: 'yan',
      force_random_password: true,
      password: 'x',
    };
    expect((await send(fx, 'POST', '/users', 'root-api', other)).res.status).toBe(201);
  });

  it('POST /users: with both flags false a password is required', async () => {
    const fx = usersFx();
    const { password: _pw, ...noPassword } = newUser;
    expect(
      await refused(fx, 'POST', '/users', 'root-api', { ...noPassword, reset_password: false }, 400),
    ).toEqual({
      message: { password: ["can't be blank"] },
    });
  });

  it('POST /users: model errors are a 400 with the errors hash', async () => {
    const fx = usersFx();
    const body = await refused(
      fx,
      'POST',
      '/users',
      'root-api',
      {
        password: 'pass',
        email: 'test@example.com',
        username: 'test!',
        name: 'test',
        bio: 'g'.repeat(256),
        projects_limit: -1,
      },
      400,
    );
    expect(body).toEqual({
      message: {
        password: ['is too short (minimum is 8 characters)'],
        bio: ['is too long (maximum is 255 characters)'],
        projects_limit: ['must be greater than or equal to 0'],
        username: [NAMESPACE_MSG],
      },
    });
  });

  it('POST /users: blank and malformed values are model errors', async () => {
    const fx = usersFx();
    expect(
      await refused(
        fx,
        'POST',
        '/users',
        'root-api',
        { ...newUser, email: 'not-an-address', name: '', theme_id: 50 },
        400,
      ),
    ).toEqual({
      message: { email: ['is invalid'], name: ["can't be blank"], theme_id: ['50 is not a valid theme'] },
    });
    expect(await refused(fx, 'POST', '/users', 'root-api', { ...newUser, username: 'zoe.git' }, 400)).toEqual(
      {
        message: { username: [NAMESPACE_MSG] },
      },
    );
  });

  it('POST /users: a taken e-mail is a 409, whatever its case, before any other error', async () => {
    const fx = usersFx();
    const body = await refused(
      fx,
      'POST',
      '/users',
      'root-api',
      { ...newUser, email: ' ALICE@example.com', username: 'bob', password: 'short' },
      409,
    );
    expect(body).toEqual({ message: 'Email has already been taken' });
  });

  it('POST /users: a taken username is a 409, whatever its case', async () => {
    const fx = usersFx();
    expect(await refused(fx, 'POST', '/users', 'root-api', { ...newUser, username: 'Alice' }, 409)).toEqual({
      message: 'Username has already been taken',
    });
  });

  it('POST /users: a username taken by a group is a model error', async () => {
    const fx = usersFx();
    expect(await refused(fx, 'POST', '/users', 'root-api', { ...newUser, username: 'ACME' }, 400)).toEqual({
      message: { username: ['has already been taken'] },
    });
  });

  it('POST /users: extern_uid needs provider', async () => {
    const fx = usersFx();
    expect(await refused(fx, 'POST', '/users', 'root-api', { ...newUser, extern_uid: 'x' }, 400)).toEqual({
      error: 'extern_uid, provider provide all or none of parameters',
    });
  });

  it('POST /users: tier-only params are ignored on the free tier and kept on paid tiers', async () => {
    const free = usersFx();
    const a = await send(free, 'POST', '/users', 'root-api', { ...newUser, shared_runners_minutes_limit: 9 });
    expect(a.res.status).toBe(201);
    expect(a.body).not.toHaveProperty('shared_runners_minutes_limit');
    const paid = usersFx({ tier: 'ultimate' });
    const b = await send(paid, 'POST', '/users', 'root-api', {
      ...newUser,
      shared_runners_minutes_limit: 9,
      extra_shared_runners_minutes_limit: 1,
    });
    expect(b.body).toMatchObject({ shared_runners_minutes_limit: 9, extra_shared_runners_minutes_limit: 1 });
  });

  it('POST /users: an avatar upload becomes the avatar_url', async () => {
    const fx = usersFx();
    const form = new FormData();
    for (const [k, v] of Object.entries(newUser)) form.append(k, v);
    form.append('avatar', new File([new Uint8Array([1, 2, 3])], 'me.png', { type: 'image/png' }));
    const res = await fx.app.request('http://localhost/api/v4/users', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'root-api' },
      body: form,
    });
    expect(res.status).toBe(201);
    expect((await json(res)).avatar_url).toBe('http://localhost/uploads/-/system/user/avatar/8/me.png');
  });
});

describe('PUT /users/:id', () => {
  it('PUT /users/:id: updates attributes and answers the admin shape', async () => {
    const fx = usersFx();
    const { res, body } = await send(fx, 'PUT', '/users/3', 'root-api', {
      bio: 'new bio',
      name: 'Robert',
      admin: true,
    });
    expect(res.status).toBe(200);
    expect(Object.keys(body)).toEqual(ADMIN_KEYS);
    expect(body).toMatchObject({ bio: 'new bio', name: 'Robert', is_admin: true });
    expect(tget(fx.state.users, 3)!.updated_at).toBe('2021-03-01T12:00:00.000Z');
  });

  it('PUT /users/:id: anonymous is a 401, a non-admin a 403, an unknown user a 404', async () => {
    const fx = usersFx();
    expect(await refused(fx, 'PUT', '/users/3', undefined, { bio: 'x' }, 401)).toEqual({
      message: '401 Unauthorized',
    });
    expect(await refused(fx, 'PUT', '/users/3', 'alice-api', { bio: 'x' }, 403)).toEqual({
      message: '403 Forbidden',
    });
    expect(await refused(fx, 'PUT', '/users/999', 'root-api', { bio: 'x' }, 404)).toEqual({
      message: '404 User Not Found',
    });
    expect(await refused(fx, 'PUT', '/users/ASDF', 'root-api', { bio: 'x' }, 404)).toEqual({
      error: '404 Not Found',
    });
  });

  it('PUT /users/:id: an e-mail in use by another user is answered with the 404', async () => {
    const fx = usersFx();
    expect(await refused(fx, 'PUT', '/users/3', 'root-api', { email: 'ALICE@example.com' }, 404)).toEqual({
      message: '404 User Not Found',
    });
  });

  it('PUT /users/:id: a username in use by another user is answered with the 404', async () => {
    const fx = usersFx();
    expect(await refused(fx, 'PUT', '/users/3', 'root-api', { username: 'ALICE' }, 404)).toEqual({
      message: '404 User Not Found',
    });
  });

  it('PUT /users/:id: the user\u2019s own username and e-mail are no conflict', async () => {
    const fx = usersFx();
    const { res, body } = await send(fx, 'PUT', '/users/3', 'root-api', {
      username: 'bob',
      email: 'bob@example.com',
    });
    expect(res.status).toBe(200);
    expect(body.username).toBe('bob');
  });

  it('PUT /users/:id: model errors are a 400', async () => {
    const fx = usersFx();
    expect(
      await refused(
        fx,
        'PUT',
        '/users/3',
        'root-api',
        { password: 'pass', username: 'test!', projects_limit: -1, color_scheme_id: 50 },
        400,
      ),
    ).toEqual({
      message: {
        password: ['is too short (minimum is 8 characters)'],
        projects_limit: ['must be greater than or equal to 0'],
        color_scheme_id: ['50 is not a valid color scheme'],
        username: [NAMESPACE_MSG],
      },
    });
    expect(await refused(fx, 'PUT', '/users/3', 'root-api', { email: 'invalid email' }, 400)).toEqual({
      message: { email: ['is invalid'] },
    });
  });

  it('PUT /users/:id: a non-admin with bad params gets the 400 first', async () => {
    const fx = usersFx();
    expect(await refused(fx, 'PUT', '/users/3', 'alice-api', { theme_id: 'dark' }, 400)).toEqual({
      error: 'theme_id is invalid',
    });
  });

  it('PUT /users/:id: a new e-mail waits for confirmation unless skip_reconfirmation', async () => {
    const fx = usersFx();
    const pending = await send(fx, 'PUT', '/users/3', 'root-api', { email: 'robert@example.com' });
    expect(pending.res.status).toBe(200);
    expect(pending.body.email).toBe('bob@example.com');
    const now = await send(fx, 'PUT', '/users/3', 'root-api', {
      email: 'Robert@Example.com',
      skip_reconfirmation: true,
    });
    expect(now.body).toMatchObject({ email: 'robert@example.com', commit_email: 'robert@example.com' });
    // The old address is free again, the new one taken.
    expect(
      (await send(fx, 'POST', '/users', 'root-api', { ...newUser, email: 'bob@example.com' })).res.status,
    ).toBe(201);
    expect((await send(fx, 'PUT', '/users/2', 'root-api', { email: 'robert@example.com' })).res.status).toBe(
      404,
    );
  });

  it('PUT /users/:id: a rename moves the personal namespace and its projects', async () => {
    const fx = usersFx();
    const { body } = await send(fx, 'PUT', '/users/3', 'root-api', { username: 'Robert' });
    expect(body).toMatchObject({ username: 'Robert', web_url: 'http://localhost/Robert' });
    const st = fx.state;
    expect(iget(st.idx.usernames, 'robert')).toBe(3);
    expect(iget(st.idx.usernames, 'bob')).toBeUndefined();
    expect(iget(st.idx.namespaces, 'robert')).toBe(-3);
    expect(iget(st.idx.namespaces, 'bob')).toBeUndefined();
    const notes = tvalues(st.projects).find((p) => p.path === 'notes')!;
    expect(notes.path_with_namespace).toBe('Robert/notes');
    expect(iget(st.idx.projects, 'robert/notes')).toBe(notes.id);
    expect(iget(st.idx.projects, 'bob/notes')).toBeUndefined();
    expect(usernames((await send(fx, 'GET', '/users?search=robert', 'alice-api')).body)).toEqual(['Robert']);
    expect((await send(fx, 'POST', '/users', 'root-api', { ...newUser, username: 'bob' })).res.status).toBe(
      201,
    );
  });

  it('PUT /users/:id: private_profile null is false, absent is unchanged; bio null is empty', async () => {
    const fx = usersFx();
    expect((await send(fx, 'PUT', '/users/6', 'root-api', { bio: 'x' })).body.private_profile).toBe(true);
    const cleared = await send(fx, 'PUT', '/users/6', 'root-api', { private_profile: null, bio: null });
    expect(cleared.body).toMatchObject({ private_profile: false, bio: '' });
  });

  it('PUT /users/:id: an update that changes nothing writes nothing', async () => {
    const fx = usersFx();
    // root's activity of the day is recorded by its first request.
    await send(fx, 'GET', '/user', 'root-api');
    const before = fx.state;
    const { res } = await send(fx, 'PUT', '/users/3', 'root-api', { name: 'Bob Builder' });
    expect(res.status).toBe(200);
    expect(fx.state).toBe(before);
  });

  it('PUT /users/:id: extern_uid with provider updates or adds the identity', async () => {
    const fx = usersFx();
    const updated = await send(fx, 'PUT', '/users/4', 'root-api', { provider: 'github', extern_uid: 'new' });
    expect(updated.body.identities).toEqual([{ provider: 'github', extern_uid: 'new' }]);
    const added = await send(fx, 'PUT', '/users/4', 'root-api', {
      provider: 'ldapmain',
      extern_uid: 'cn=carol',
    });
    expect(added.body.identities).toEqual([
      { provider: 'github', extern_uid: 'new' },
      { provider: 'ldapmain', extern_uid: 'cn=carol' },
    ]);
    expect(await refused(fx, 'PUT', '/users/4', 'root-api', { provider: 'ldap' }, 400)).toEqual({
      error: 'extern_uid, provider provide all or none of parameters',
    });
  });

  it('PUT /users/:id: a password set by an admin for someone else must be changed at next sign-in', async () => {
    const fx = usersFx();
    await send(fx, 'PUT', '/users/3', 'root-api', { password: 'new-password' });
    expect(tget(fx.state.users, 3)!.password_expires_at).toBe('2021-03-01T12:00:00.000Z');
    await send(fx, 'PUT', '/users/1', 'root-api', { password: 'new-password' });
    expect(tget(fx.state.users, 1)!.password_expires_at).toBeNull();
  });
});

describe('DELETE /users/:id', () => {
  it('DELETE /users/:id: answers 204 and removes the user with tokens, memberships and namespace', async () => {
    const fx = usersFx();
    const res = await call(fx, 'DELETE', '/api/v4/users/3', { token: 'root-api' });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    const st = fx.state;
    expect(tget(st.users, 3)).toBeUndefined();
    expect(tvalues(st.tokens).some((t) => t.user_id === 3)).toBe(false);
    expect(tvalues(st.members).some((m) => m.user_id === 3)).toBe(false);
    expect(iget(st.idx.members, 'group:3:3')).toBeUndefined();
    expect(iget(st.idx.usernames, 'bob')).toBeUndefined();
    expect(iget(st.idx.emails, 'bob@example.com')).toBeUndefined();
    expect(iget(st.idx.namespaces, 'bob')).toBeUndefined();
    // Personal projects go with the user.
    expect(tvalues(st.projects).some((p) => p.path === 'notes')).toBe(false);
    expect(iget(st.idx.projects, 'bob/notes')).toBeUndefined();
    expect((await send(fx, 'GET', '/users/3', 'root-api')).res.status).toBe(404);
    expect((await send(fx, 'GET', '/user', 'bob-api')).res.status).toBe(401);
    expect(
      (
        await send(fx, 'POST', '/users', 'root-api', {
          ...newUser,
          username: 'bob',
          email: 'bob@example.com',
        })
      ).res.status,
    ).toBe(201);
  });

  it('DELETE /users/:id: the sole owner of a group cannot be soft deleted', async () => {
    const fx = usersFx();
    expect(await refused(fx, 'DELETE', '/users/2', 'root-api', undefined, 409)).toEqual({
      message: 'User cannot be removed while is the sole-owner of a group',
    });
  });

  it('DELETE /users/:id: hard_delete removes the groups the user solely owns, with what is inside', async () => {
    const fx = usersFx();
    const res = await call(fx, 'DELETE', '/api/v4/users/2?hard_delete=true', { token: 'root-api' });
    expect(res.status).toBe(204);
    const st = fx.state;
    expect(tvalues(st.groups).map((g) => g.full_path)).toEqual(['shared', 'empty']);
    expect(tvalues(st.projects).map((p) => p.path_with_namespace)).toEqual(['bob/notes']);
    expect(iget(st.idx.namespaces, 'acme')).toBeUndefined();
    expect(iget(st.idx.namespaces, 'acme/labs')).toBeUndefined();
    expect(iget(st.idx.projects, 'acme/website')).toBeUndefined();
    // bob still owns the group alice shared with him.
    expect(
      tvalues(st.members)
        .filter((m) => m.source === 'group')
        .map((m) => m.user_id),
    ).toEqual([3, 6]);
  });

  it('DELETE /users/:id: anonymous 401, non-admin 403, unknown 404, bad id no route', async () => {
    const fx = usersFx();
    expect(await refused(fx, 'DELETE', '/users/3', undefined, undefined, 401)).toEqual({
      message: '401 Unauthorized',
    });
    expect(await refused(fx, 'DELETE', '/users/3', 'alice-api', undefined, 403)).toEqual({
      message: '403 Forbidden',
    });
    expect(await refused(fx, 'DELETE', '/users/999', 'root-api', undefined, 404)).toEqual({
      message: '404 User Not Found',
    });
    expect(await refused(fx, 'DELETE', '/users/bob', 'root-api', undefined, 404)).toEqual({
      error: '404 Not Found',
    });
  });

  it('DELETE /users/:id: a user changed since If-Unmodified-Since is a 412', async () => {
    const fx = usersFx();
    const before = fx.state;
    const stale = await call(fx, 'DELETE', '/api/v4/users/3', {
      token: 'root-api',
      headers: { 'If-Unmodified-Since': 'Sat, 29 Feb 2020 23:59:59 GMT' },
    });
    expect(stale.status).toBe(412);
    expect(await json(stale)).toEqual({ message: '412 Precondition Failed' });
    expect(fx.state).toBe(before);
    const fresh = await call(fx, 'DELETE', '/api/v4/users/3', {
      token: 'root-api',
      headers: { 'If-Unmodified-Since': 'Mon, 01 Mar 2021 00:00:00 GMT' },
    });
    expect(fresh.status).toBe(204);
  });

  it('DELETE /users/:id: the list no longer has the user', async () => {
    const fx = usersFx();
    await send(fx, 'GET', '/users?search=bob', 'alice-api');
    await call(fx, 'DELETE', '/api/v4/users/7', { token: 'root-api' });
    expect(usernames((await send(fx, 'GET', '/users?search=bob', 'alice-api')).body)).toEqual(['bob']);
  });
});

describe('DELETE /users/:id/identities/:provider', () => {
  it('DELETE /users/:id/identities/:provider: removes the identity', async () => {
    const fx = usersFx();
    const res = await call(fx, 'DELETE', '/api/v4/users/4/identities/github', { token: 'root-api' });
    expect(res.status).toBe(204);
    expect(tget(fx.state.users, 4)!.identities).toEqual([]);
  });

  it('DELETE /users/:id/identities/:provider: unknown identity or user is a 404', async () => {
    const fx = usersFx();
    expect(await refused(fx, 'DELETE', '/users/4/identities/ldapmain', 'root-api', undefined, 404)).toEqual({
      message: '404 Identity Not Found',
    });
    expect(await refused(fx, 'DELETE', '/users/999/identities/github', 'root-api', undefined, 404)).toEqual({
      message: '404 User Not Found',
    });
    expect(await refused(fx, 'DELETE', '/users/4/identities/github', 'alice-api', undefined, 403)).toEqual({
      message: '403 Forbidden',
    });
    expect(await refused(fx, 'DELETE', '/users/4/identities/github', undefined, undefined, 401)).toEqual({
      message: '401 Unauthorized',
    });
  });
});

describe('POST /users/:id/block and /unblock', () => {
  const withState = (fx: Fx, id: number, state: 'ldap_blocked' | 'deactivated') =>
    fx.restore({
      ...fx.snapshot(),
      state: produce(fx.state, (d) => {
        tget(d.users, id)!.state = state;
      }),
    });

  it('POST /users/:id/block: blocks with 201 true, and the user is shut out', async () => {
    const fx = usersFx();
    const res = await call(fx, 'POST', '/api/v4/users/3/block', { token: 'root-api' });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe('true');
    expect(tget(fx.state.users, 3)!.state).toBe('blocked');
    const shut = await send(fx, 'GET', '/user', 'bob-api');
    expect(shut.res.status).toBe(403);
    expect(shut.body).toEqual({ message: '403 Forbidden - Your account has been blocked.' });
  });

  it('POST /users/:id/block: blocking a blocked user changes nothing and answers 201 null', async () => {
    const fx = usersFx();
    // root's activity of the day is recorded by its first request.
    await call(fx, 'GET', '/api/v4/user', { token: 'root-api' });
    const before = fx.state;
    const res = await call(fx, 'POST', '/api/v4/users/5/block', { token: 'root-api' });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe('null');
    expect(fx.state).toBe(before);
  });

  it('POST /users/:id/unblock: unblocks with 201 true; an active user answers 201 false', async () => {
    const fx = usersFx();
    const res = await call(fx, 'POST', '/api/v4/users/5/unblock', { token: 'root-api' });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe('true');
    expect(tget(fx.state.users, 5)!.state).toBe('active');
    const before = fx.state;
    const again = await call(fx, 'POST', '/api/v4/users/5/unblock', { token: 'root-api' });
    expect(again.status).toBe(201);
    expect(await again.text()).toBe('false');
    expect(fx.state).toBe(before);
  });

  it('POST /users/:id/block: LDAP-blocked users cannot be changed through the API', async () => {
    const fx = usersFx();
    withState(fx, 3, 'ldap_blocked');
    expect(await refused(fx, 'POST', '/users/3/block', 'root-api', undefined, 403)).toEqual({
      message: '403 Forbidden - LDAP blocked users cannot be modified by the API',
    });
    expect(await refused(fx, 'POST', '/users/3/unblock', 'root-api', undefined, 403)).toEqual({
      message: '403 Forbidden - LDAP blocked users cannot be unblocked by the API',
    });
    expect(usernames((await send(fx, 'GET', '/users?blocked=true', 'alice-api')).body)).toEqual([
      'mallory',
      'bob',
    ]);
  });

  it('POST /users/:id/unblock: deactivated users cannot be unblocked; they can be blocked', async () => {
    const fx = usersFx();
    withState(fx, 3, 'deactivated');
    expect(await refused(fx, 'POST', '/users/3/unblock', 'root-api', undefined, 403)).toEqual({
      message: '403 Forbidden - Deactivated users cannot be unblocked by the API',
    });
    const res = await call(fx, 'POST', '/api/v4/users/3/block', { token: 'root-api' });
    expect(await res.text()).toBe('true');
  });

  it('POST /users/:id/block: anonymous 401, non-admin 403, unknown 404', async () => {
    const fx = usersFx();
    for (const action of ['block', 'unblock']) {
      expect(await refused(fx, 'POST', `/users/3/${action}`, undefined, undefined, 401)).toEqual({
        message: '401 Unauthorized',
      });
      expect(await refused(fx, 'POST', `/users/3/${action}`, 'alice-api', undefined, 403)).toEqual({
        message: '403 Forbidden',
      });
      expect(await refused(fx, 'POST', `/users/999/${action}`, 'root-api', undefined, 404)).toEqual({
        message: '404 User Not Found',
      });
    }
  });
});
