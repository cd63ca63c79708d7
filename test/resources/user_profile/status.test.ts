import { describe, expect, it } from 'vitest';
import { send, world } from '../metadata/world.js';

const EMPTY = { emoji: null, message: null, availability: null, message_html: '', clear_status_at: null };

describe('user status', () => {
  it('GET /user/status: the empty status while none is set', async () => {
    const r = await send(world(), 'GET', '/user/status', 'dev');
    expect(r).toMatchObject({ status: 200, body: EMPTY });
    expect(Object.keys(r.body)).toEqual([
      'emoji',
      'message',
      'availability',
      'message_html',
      'clear_status_at',
    ]);
  });

  it('PUT /user/status: sets the status; the message HTML escapes text and renders emoji', async () => {
    const fx = world();
    const r = await send(fx, 'PUT', '/user/status', 'dev', {
      emoji: 'coffee',
      message: 'On a break :smile: <b>',
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      emoji: 'coffee',
      message: 'On a break :smile: <b>',
      availability: 'not_set',
      message_html:
        'On a break <gl-emoji title="grinning face with smiling eyes" data-name="smile" data-unicode-version="6.0">😄</gl-emoji> &lt;b&gt;',
      clear_status_at: null,
    });
    expect((await send(fx, 'GET', '/user/status', 'dev')).body).toEqual(r.body);
    expect((await send(fx, 'GET', '/users/dev/status')).body).toEqual(r.body);
    expect((await send(fx, 'GET', '/users/4/status', 'outsider')).body).toEqual(r.body);
  });

  it('PUT /user/status: the default emoji, busy availability, and a clearing time from the quick options', async () => {
    const fx = world();
    const r = await send(fx, 'PUT', '/user/status', 'dev', {
      availability: 'busy',
      clear_status_after: '3_hours',
    });
    expect(r.body).toEqual({
      emoji: 'speech_balloon',
      message: null,
      availability: 'busy',
      message_html: '',
      clear_status_at: '2021-03-01T15:00:00.000Z',
    });
    fx.clock.advance(3 * 3600 * 1000);
    expect((await send(fx, 'GET', '/user/status', 'dev')).body).toEqual(EMPTY);
  });

  it('PUT /user/status: nothing to show clears the status (the reply is null)', async () => {
    const fx = world();
    await send(fx, 'PUT', '/user/status', 'dev', { message: 'here' });
    const r = await send(fx, 'PUT', '/user/status', 'dev', { availability: 'not_set' });
    expect(r).toMatchObject({ status: 200, body: null });
    expect((await send(fx, 'GET', '/user/status', 'dev')).body).toEqual(EMPTY);
  });

  it('PUT /user/status: validation of the emoji, the message length and the quick option', async () => {
    const fx = world();
    expect((await send(fx, 'PUT', '/user/status', 'dev', { emoji: 'not-an-emoji' })).body).toEqual({
      message: { emoji: ['is not included in the list'] },
    });
    expect((await send(fx, 'PUT', '/user/status', 'dev', { message: 'x'.repeat(101) })).body).toEqual({
      message: { message: ['is too long (maximum is 100 characters)'] },
    });
    expect((await send(fx, 'PUT', '/user/status', 'dev', { clear_status_after: '2_days' })).body).toEqual({
      error: 'clear_status_after does not have a valid value',
    });
  });

  it('/user/status: 401 anonymous; /users/:user_id/status 404 for an unknown user', async () => {
    const fx = world();
    expect((await send(fx, 'GET', '/user/status')).status).toBe(401);
    expect((await send(fx, 'PUT', '/user/status', undefined, { message: 'x' })).status).toBe(401);
    expect((await send(fx, 'GET', '/users/nobody/status')).body).toEqual({ message: '404 User Not Found' });
  });
});
