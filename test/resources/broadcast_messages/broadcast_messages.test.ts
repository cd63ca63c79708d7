import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { BEFORE_WORLD, call, NOW, send, setupWorld } from '../metadata/world.js';

const world = () =>
  createFauxlab({
    scenario: {
      ...setupWorld,
      broadcast_messages: [
        {
          message: 'Maintenance tonight',
          starts_at: '2021-03-01T00:00:00Z',
          ends_at: '2021-03-02T00:00:00Z',
        },
        {
          message: 'Old news',
          starts_at: '2021-01-01T00:00:00Z',
          ends_at: '2021-01-02T00:00:00Z',
          color: '#000',
          target_path: '/acme/*',
          broadcast_type: 'notification',
          dismissable: true,
        },
      ],
    },
  });

const first = {
  id: 1,
  message: 'Maintenance tonight',
  starts_at: '2021-03-01T00:00:00.000Z',
  ends_at: '2021-03-02T00:00:00.000Z',
  color: '#E75E40',
  font: '#FFFFFF',
  target_path: null,
  broadcast_type: 'banner',
  dismissable: null,
  active: true,
};

describe('GET /broadcast_messages', () => {
  it('GET /broadcast_messages: anyone, newest first, paginated; active on the instance clock', async () => {
    const fx = world();
    const r = await send(fx, 'GET', '/broadcast_messages');
    expect(r.status).toBe(200);
    expect(r.res.headers.get('X-Total')).toBe('2');
    expect(r.body).toEqual([
      {
        id: 2,
        message: 'Old news',
        starts_at: '2021-01-01T00:00:00.000Z',
        ends_at: '2021-01-02T00:00:00.000Z',
        color: '#000',
        font: '#FFFFFF',
        target_path: '/acme/*',
        broadcast_type: 'notification',
        dismissable: true,
        active: false,
      },
      first,
    ]);
  });

  it('GET /broadcast_messages/:id: one message; a missing one is not found', async () => {
    const fx = world();
    expect((await send(fx, 'GET', '/broadcast_messages/1', 'dev')).body).toEqual(first);
    expect(await send(fx, 'GET', '/broadcast_messages/9')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect((await send(fx, 'GET', '/broadcast_messages/x')).body).toEqual({ error: 'id is invalid' });
  });
});

describe('POST /broadcast_messages', () => {
  it('POST /broadcast_messages: admins only; starts now and ends in an hour by default', async () => {
    const fx = world();
    expect((await send(fx, 'POST', '/broadcast_messages', undefined, { message: 'x' })).status).toBe(401);
    expect((await send(fx, 'POST', '/broadcast_messages', 'dev', { message: 'x' })).status).toBe(403);
    const r = await send(fx, 'POST', '/broadcast_messages', 'root', { message: 'Upgrade' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      ...first,
      id: 3,
      message: 'Upgrade',
      starts_at: NOW,
      ends_at: '2021-03-01T13:00:00.000Z',
    });
  });

  it("POST /broadcast_messages: params and the model's validations; nothing stored on a failure", async () => {
    const fx = world();
    expect((await send(fx, 'POST', '/broadcast_messages', 'root', {})).body).toEqual({
      error: 'message is missing',
    });
    expect(
      (await send(fx, 'POST', '/broadcast_messages', 'root', { message: 'x', broadcast_type: 'popup' })).body,
    ).toEqual({ error: 'broadcast_type does not have a valid value' });
    expect(
      (await send(fx, 'POST', '/broadcast_messages', 'root', { message: 'x', starts_at: 'soon' })).body,
    ).toEqual({
      error: 'starts_at is invalid',
    });
    const bad = await send(fx, 'POST', '/broadcast_messages', 'root', {
      message: ' ',
      color: 'red',
      font: '#12345',
    });
    expect(bad).toMatchObject({
      status: 400,
      body: {
        message: {
          message: ["can't be blank"],
          color: ['must be a valid color code'],
          font: ['must be a valid color code'],
        },
      },
    });
    expect((await send(fx, 'GET', '/broadcast_messages')).body).toHaveLength(2);
  });
});

describe('PUT /broadcast_messages/:id', () => {
  it('PUT /broadcast_messages/:id: changes the given fields', async () => {
    const fx = world();
    const r = await send(fx, 'PUT', '/broadcast_messages/1', 'root', {
      ends_at: '2021-03-01T06:00:00Z',
      broadcast_type: 'notification',
      dismissable: false,
    });
    expect(r.body).toEqual({
      ...first,
      ends_at: '2021-03-01T06:00:00.000Z',
      broadcast_type: 'notification',
      dismissable: false,
      active: false,
    });
    expect((await send(fx, 'PUT', '/broadcast_messages/1', 'root', { color: 'blue' })).status).toBe(400);
    expect((await send(fx, 'PUT', '/broadcast_messages/1', 'dev', { message: 'y' })).status).toBe(403);
    expect((await send(fx, 'PUT', '/broadcast_messages/9', 'root', { message: 'y' })).status).toBe(404);
  });
});

describe('DELETE /broadcast_messages/:id', () => {
  it('DELETE /broadcast_messages/:id: 204; If-Unmodified-Since is honoured', async () => {
    const fx = world();
    expect((await call(fx, 'DELETE', '/broadcast_messages/1', 'root', undefined, BEFORE_WORLD)).status).toBe(
      412,
    );
    expect((await send(fx, 'DELETE', '/broadcast_messages/1', 'dev')).status).toBe(403);
    expect((await send(fx, 'DELETE', '/broadcast_messages/1', 'root')).status).toBe(204);
    expect((await send(fx, 'GET', '/broadcast_messages/1')).status).toBe(404);
  });
});

describe('broadcast messages in scenarios', () => {
  it('scenario: a bad colour is a problem of the file', () => {
    expect(() =>
      createFauxlab({ scenario: { ...setupWorld, broadcast_messages: [{ message: 'x', color: 'red' }] } }),
    ).toThrow(/broadcast_messages\[0\]\.color: must be a valid color code/);
  });
});
