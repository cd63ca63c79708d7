import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { exportScenario } from '../../../src/scenario/export.js';
import { request, json } from '../helpers.js';
import { send, usersFx } from '../users/world.js';

const KEYS = [
  'title',
  'description',
  'logo',
  'header_logo',
  'favicon',
  'new_project_guidelines',
  'profile_image_guidelines',
  'header_message',
  'footer_message',
  'message_background_color',
  'message_font_color',
  'email_header_and_footer_enabled',
];

const DEFAULTS = {
  title: '',
  description: '',
  logo: null,
  header_logo: null,
  favicon: null,
  new_project_guidelines: '',
  profile_image_guidelines: '',
  header_message: '',
  footer_message: '',
  message_background_color: '#E75E40',
  message_font_color: '#FFFFFF',
  email_header_and_footer_enabled: false,
};

const upload = (fx: ReturnType<typeof usersFx>, form: FormData, token = 'root-api') =>
  request(fx, 'PUT', 'http://localhost/api/v4/application/appearance', { token, form });

describe('GET /application/appearance', () => {
  it('shows Appearance.new before any change, in the entity order', async () => {
    const fx = usersFx();
    const { res, body } = await send(fx, 'GET', '/application/appearance', 'root-api');
    expect(res.status).toBe(200);
    expect(Object.keys(body)).toEqual(KEYS);
    expect(body).toEqual(DEFAULTS);
  });

  it('admins only: 401 anonymous, 403 others', async () => {
    const fx = usersFx();
    expect((await send(fx, 'GET', '/application/appearance')).res.status).toBe(401);
    expect((await send(fx, 'GET', '/application/appearance', 'alice-api')).body).toEqual({
      message: '403 Forbidden',
    });
  });
});

describe('PUT /application/appearance', () => {
  it('updates the texts; GET shows them after', async () => {
    const fx = usersFx();
    const change = {
      title: 'GitLab Test Instance',
      description: 'gitlab-test.example.com',
      new_project_guidelines: 'Please read the FAQs for help.',
      header_message: 'Header',
      message_font_color: '#ffffff',
      message_background_color: '#009999',
      email_header_and_footer_enabled: true,
    };
    const { res, body } = await send(fx, 'PUT', '/application/appearance', 'root-api', change);
    expect(res.status).toBe(200);
    expect(body).toEqual({ ...DEFAULTS, ...change });
    expect((await send(fx, 'GET', '/application/appearance', 'root-api')).body).toEqual(body);
  });

  it('refuses bad colours with the model`s message; blank is allowed', async () => {
    const fx = usersFx();
    const before = fx.state;
    const bad = await send(fx, 'PUT', '/application/appearance', 'root-api', {
      message_font_color: 'No Color',
      message_background_color: '#1',
    });
    expect([bad.res.status, bad.body]).toEqual([
      400,
      {
        message: {
          message_background_color: ['must be a valid color code'],
          message_font_color: ['must be a valid color code'],
        },
      },
    ]);
    expect(fx.state).toBe(before);
    expect(
      (await send(fx, 'PUT', '/application/appearance', 'root-api', { message_font_color: '' })).res.status,
    ).toBe(200);
  });

  it('the admin check comes before the params (a before filter); 401 anonymous', async () => {
    const fx = usersFx();
    const body = { email_header_and_footer_enabled: 'maybe' };
    expect((await send(fx, 'PUT', '/application/appearance', 'alice-api', body)).body).toEqual({
      message: '403 Forbidden',
    });
    expect((await send(fx, 'PUT', '/application/appearance', undefined, body)).res.status).toBe(401);
    expect((await send(fx, 'PUT', '/application/appearance', 'root-api', body)).body).toEqual({
      error: 'email_header_and_footer_enabled is invalid',
    });
  });

  it('uploads the images as multipart files: relative upload paths, served at them', async () => {
    const fx = usersFx();
    const form = new FormData();
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
    form.append('logo', new File([png], 'dk.png', { type: 'image/png' }));
    form.append('header_logo', new File([png], 'my header.png', { type: 'image/png' }));
    form.append('favicon', new File([png], 'dk.png', { type: 'image/png' }));
    const res = await upload(fx, form);
    const body = await json(res);
    expect(res.status).toBe(200);
    expect([body.logo, body.header_logo, body.favicon]).toEqual([
      '/uploads/-/system/appearance/logo/1/dk.png',
      '/uploads/-/system/appearance/header_logo/1/my_header.png',
      '/uploads/-/system/appearance/favicon/1/dk.png',
    ]);
    const served = await fx.app.request('http://localhost/uploads/-/system/appearance/logo/1/dk.png');
    expect(served.status).toBe(200);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(png);
  });

  it('refuses a string as an image, and a favicon that is not png or ico', async () => {
    const fx = usersFx();
    expect(
      (await send(fx, 'PUT', '/application/appearance', 'root-api', { logo: 'not-a-file.png' })).body,
    ).toEqual({
      error: 'logo is invalid',
    });
    const form = new FormData();
    form.append('favicon', new File(['<svg/>'], 'logo_sample.svg', { type: 'image/svg' }));
    const res = await upload(fx, form);
    expect([res.status, await json(res)]).toEqual([
      400,
      { message: { favicon: ['You are not allowed to upload "svg" files, allowed types: png, ico'] } },
    ]);
    const big = new FormData();
    big.append('logo', new File([new Uint8Array(1024 * 1024 + 1)], 'big.png', { type: 'image/png' }));
    expect(await json(await upload(fx, big))).toEqual({
      message: { logo: ['is too big (should be at most 1 MB)'] },
    });
  });

  it('the texts go through a scenario export and back', async () => {
    const fx = usersFx();
    await send(fx, 'PUT', '/application/appearance', 'root-api', { title: 'T', message_font_color: '#000' });
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    expect(out.appearance).toEqual({ title: 'T', message_font_color: '#000' });
    const again = createFauxlab({ scenario: out });
    expect(again.state.appearance).toEqual(fx.state.appearance);
  });
});
