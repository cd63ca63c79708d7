import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { send, setupWorld, world } from '../metadata/world.js';

const EVENTS = {
  new_release: null,
  new_note: null,
  new_issue: null,
  reopen_issue: null,
  close_issue: null,
  reassign_issue: null,
  issue_due: null,
  new_merge_request: null,
  push_to_merge_request: null,
  reopen_merge_request: null,
  close_merge_request: null,
  reassign_merge_request: null,
  change_reviewer_merge_request: null,
  merge_merge_request: null,
  failed_pipeline: true,
  fixed_pipeline: true,
  success_pipeline: null,
  moved_project: true,
  merge_when_pipeline_succeeds: false,
};

describe('GET /notification_settings', () => {
  it('GET /notification_settings: participating by default, with the primary e-mail; 401 without a user', async () => {
    const fx = world();
    const r = await send(fx, 'GET', '/notification_settings', 'dev');
    expect(r.body).toEqual({ level: 'participating', notification_email: expect.stringContaining('@') });
    expect((await send(fx, 'GET', '/notification_settings')).status).toBe(401);
  });
});

describe('PUT /notification_settings', () => {
  it('PUT /notification_settings: the custom level shows every event, set or defaulted', async () => {
    const fx = world();
    const r = await send(fx, 'PUT', '/notification_settings', 'dev', {
      level: 'custom',
      new_note: true,
      failed_pipeline: false,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      level: 'custom',
      events: { ...EVENTS, new_note: true, failed_pipeline: false },
      notification_email: expect.any(String),
    });
    // Another level hides the events but keeps them.
    expect(
      (await send(fx, 'PUT', '/notification_settings', 'dev', { level: 'watch' })).body.events,
    ).toBeUndefined();
    const back = await send(fx, 'PUT', '/notification_settings', 'dev', { level: 'custom' });
    expect(back.body.events.new_note).toBe(true);
  });

  it("PUT /notification_settings: a bad level is the enum's message; a bad flag is Grape's; nothing changes", async () => {
    const fx = world();
    expect(
      await send(fx, 'PUT', '/notification_settings', 'dev', { level: 'loud', new_note: true }),
    ).toMatchObject({
      status: 400,
      body: { message: "'loud' is not a valid level" },
    });
    expect((await send(fx, 'PUT', '/notification_settings', 'dev', { new_note: 'maybe' })).body).toEqual({
      error: 'new_note is invalid',
    });
    expect((await send(fx, 'GET', '/notification_settings', 'dev')).body.level).toBe('participating');
    expect((await send(fx, 'PUT', '/notification_settings', undefined, { level: 'watch' })).status).toBe(401);
  });

  it("PUT /notification_settings: the notification e-mail must be one of the user's confirmed e-mails", async () => {
    const fx = world();
    expect(
      await send(fx, 'PUT', '/notification_settings', 'dev', { notification_email: 'x@elsewhere.example' }),
    ).toMatchObject({ status: 400, body: { message: { notification_email: ['is not an email you own'] } } });
    await send(fx, 'POST', '/users/4/emails', 'root', { email: 'dev@work.example', skip_confirmation: true });
    const r = await send(fx, 'PUT', '/notification_settings', 'dev', {
      notification_email: 'dev@work.example',
      level: 'mention',
    });
    expect(r.body).toEqual({ level: 'mention', notification_email: 'dev@work.example' });
  });
});

describe('group and project notification settings', () => {
  for (const [kind, path] of [
    ['groups', 'acme'],
    ['projects', 'acme%2Fsite'],
  ] as const) {
    it(`GET /${kind}/:id/notification_settings: global by default; set per ${kind.slice(0, -1)}`, async () => {
      const fx = world();
      expect((await send(fx, 'GET', `/${kind}/${path}/notification_settings`, 'dev')).body).toEqual({
        level: 'global',
      });
      const r = await send(fx, 'PUT', `/${kind}/${path}/notification_settings`, 'dev', {
        level: 'custom',
        new_issue: true,
      });
      expect(r.body).toEqual({ level: 'custom', events: { ...EVENTS, new_issue: true } });
      expect((await send(fx, 'GET', `/${kind}/${path}/notification_settings`, 'maint')).body).toEqual({
        level: 'global',
      });
      expect((await send(fx, 'GET', '/notification_settings', 'dev')).body.level).toBe('participating');
    });
  }

  it('PUT /projects/:id/notification_settings: 401, the params, the project, then the level', async () => {
    const fx = world();
    const at = '/projects/acme%2Fapp/notification_settings';
    expect((await send(fx, 'PUT', at, undefined, { level: 'x' })).status).toBe(401);
    expect((await send(fx, 'PUT', at, 'outsider', { new_note: 'x' })).status).toBe(400);
    expect(await send(fx, 'PUT', at, 'outsider', { level: 'x' })).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    expect((await send(fx, 'PUT', at, 'dev', { level: 'x' })).body).toEqual({
      message: "'x' is not a valid level",
    });
    expect((await send(fx, 'GET', at, 'outsider')).status).toBe(404);
  });

  it('PUT /groups/:id/notification_settings: new_epic on paid tiers only', async () => {
    const free = world();
    expect(
      (await send(free, 'PUT', '/groups/acme/notification_settings', 'dev', { new_epic: 'x' })).status,
    ).toBe(200);
    const paid = createFauxlab({ scenario: { ...setupWorld, tier: 'premium' } });
    expect(
      (await send(paid, 'PUT', '/groups/acme/notification_settings', 'dev', { new_epic: 'x' })).body,
    ).toEqual({
      error: 'new_epic is invalid',
    });
  });
});

describe('notification settings in scenarios', () => {
  it('scenario: settings load and export again', async () => {
    const fx = createFauxlab({
      scenario: {
        ...setupWorld,
        notification_settings: [
          { user: 'dev', level: 'disabled' },
          { user: 'dev', project: 'acme/site', level: 'custom', events: { new_note: true } },
          { user: 'owner', group: 'acme', level: 'watch' },
        ],
      },
    });
    expect((await send(fx, 'GET', '/notification_settings', 'dev')).body.level).toBe('disabled');
    expect((await send(fx, 'GET', '/projects/2/notification_settings', 'dev')).body.events.new_note).toBe(
      true,
    );
    expect((await send(fx, 'GET', '/groups/acme/notification_settings', 'owner')).body.level).toBe('watch');
  });

  it('scenario: unknown users, groups and projects are problems of the file', () => {
    expect(() =>
      createFauxlab({
        scenario: { ...setupWorld, notification_settings: [{ user: 'dev', project: 'acme/nope' }] },
      }),
    ).toThrow(/notification_settings\[0\]\.project: no project "acme\/nope"/);
  });
});
