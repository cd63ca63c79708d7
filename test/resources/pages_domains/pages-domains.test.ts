/**
 * Pages domains: a project's custom domains for its maintainers and the admins' list, with the model's
 * validations (hostname, uniqueness, reserved subdomains, PEM certificate and key, matching, chain), the
 * certificate summary the entity shows, and refusals that change nothing.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, request, tok } from '../helpers.js';
import { CERT, KEY, LEAF_CERT, LEAF_KEY, OLD_CERT, OLD_KEY, OTHER_KEY } from './certs.js';

const world: ScenarioFile = {
  now: '2027-01-01T00:00:00.000Z',
  users: [
    { username: 'root', admin: true, tokens: tok('root-api') },
    { username: 'alice', tokens: tok('alice-api') },
    { username: 'dave', tokens: tok('dave-api') },
  ],
  groups: [
    {
      path: 'acme',
      visibility: 'public',
      members: [
        { username: 'alice', access_level: 'maintainer' },
        { username: 'dave', access_level: 'developer' },
      ],
    },
  ],
  projects: [
    {
      path: 'acme/site',
      visibility: 'public',
      pages_domains: [
        {
          domain: 'existing.example.com',
          verified_at: '2026-12-01T00:00:00Z',
          enabled_until: '2027-01-08T00:00:00Z',
          verification_code: '0123456789abcdef0123456789abcdef',
        },
      ],
    },
  ],
};

const fx0 = () => createFauxlab({ scenario: world });
type Fx = ReturnType<typeof fx0>;
const BASE = '/projects/acme%2Fsite/pages/domains';

async function send(fx: Fx, method: string, path: string, token?: string, body?: unknown, form?: FormData) {
  const res = await request(fx, method, `/api/v4${path}`, { token, body, form });
  return { status: res.status, body: await json(res) };
}

async function refused(
  fx: Fx,
  method: string,
  path: string,
  token: string | undefined,
  body: unknown,
  status: number,
  expected: unknown,
) {
  const before = fx.state;
  const r = await send(fx, method, path, token, body);
  expect(r).toEqual({ status, body: expected });
  expect(fx.state).toBe(before);
}

describe('POST /projects/:id/pages/domains', () => {
  it('POST /projects/:id/pages/domains: a plain domain, unverified, with its verification code', async () => {
    const fx = fx0();
    const r = await send(fx, 'POST', BASE, 'alice-api', { domain: 'www.example.net' });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body)).toEqual([
      'domain',
      'url',
      'verified',
      'verification_code',
      'enabled_until',
      'auto_ssl_enabled',
    ]);
    expect(r.body).toMatchObject({
      domain: 'www.example.net',
      url: 'http://www.example.net',
      verified: false,
      enabled_until: null,
      auto_ssl_enabled: false,
    });
    expect(r.body.verification_code).toMatch(/^[0-9a-f]{32}$/);
  });

  it('POST /projects/:id/pages/domains: a certificate and key make it https, summarised as the entity does', async () => {
    const fx = fx0();
    const r = await send(fx, 'POST', BASE, 'alice-api', {
      domain: 'www.example.org',
      certificate: CERT,
      key: KEY,
    });
    expect(r.status).toBe(201);
    expect(r.body.url).toBe('https://www.example.org');
    expect(Object.keys(r.body.certificate)).toEqual([
      'subject',
      'expired',
      'certificate',
      'certificate_text',
    ]);
    expect(r.body.certificate).toMatchObject({
      subject: '/CN=www.example.org/O=Fauxlab Test',
      expired: false,
      certificate: CERT,
    });
    expect(r.body.certificate.certificate_text).toContain('Subject: CN = www.example.org, O = Fauxlab Test');
  });

  it('POST /projects/:id/pages/domains: certificate and key as uploaded files', async () => {
    const fx = fx0();
    const form = new FormData();
    form.set('domain', 'files.example.org');
    form.set('certificate', new File([CERT], 'cert.pem'));
    form.set('key', new File([KEY], 'key.pem'));
    form.set('auto_ssl_enabled', 'true');
    const r = await send(fx, 'POST', BASE, 'alice-api', undefined, form);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ url: 'https://files.example.org', auto_ssl_enabled: true });
    expect(r.body.certificate.certificate).toBe(CERT);
  });

  it('POST /projects/:id/pages/domains: an expired certificate is shown expired', async () => {
    const fx = fx0();
    const r = await send(fx, 'POST', BASE, 'alice-api', {
      domain: 'old.example.org',
      certificate: OLD_CERT,
      key: OLD_KEY,
    });
    expect(r.status).toBe(201);
    expect(r.body.certificate.expired).toBe(true);
  });

  it('POST /projects/:id/pages/domains: 400 for a certificate without a key', async () => {
    await refused(fx0(), 'POST', BASE, 'alice-api', { domain: 'a.example.org', certificate: CERT }, 400, {
      error: 'user_provided_certificate, user_provided_key provide all or none of parameters',
    });
  });

  it('POST /projects/:id/pages/domains: 400 for a key that does not match, an unreadable certificate, a missing chain', async () => {
    const fx = fx0();
    await refused(
      fx,
      'POST',
      BASE,
      'alice-api',
      { domain: 'a.example.org', certificate: CERT, key: OTHER_KEY },
      400,
      {
        message: { key: ["doesn't match the certificate"] },
      },
    );
    await refused(
      fx,
      'POST',
      BASE,
      'alice-api',
      { domain: 'a.example.org', certificate: 'junk', key: 'junk' },
      400,
      {
        message: {
          certificate: ['must be a valid PEM certificate'],
          key: ['must be a valid PEM private key', "doesn't match the certificate"],
        },
      },
    );
    await refused(
      fx,
      'POST',
      BASE,
      'alice-api',
      { domain: 'a.example.org', certificate: LEAF_CERT, key: LEAF_KEY },
      400,
      {
        message: { certificate: ['misses intermediates'] },
      },
    );
  });

  it('POST /projects/:id/pages/domains: 400 for a taken domain in any case, a bad hostname, a Pages subdomain', async () => {
    const fx = fx0();
    await refused(fx, 'POST', BASE, 'alice-api', { domain: 'EXISTING.example.com' }, 400, {
      message: { domain: ['has already been taken'] },
    });
    await refused(fx, 'POST', BASE, 'alice-api', { domain: 'bad_name.example.com' }, 400, {
      message: { domain: ['contains invalid characters (valid characters: [a-z0-9\\-])'] },
    });
    await refused(fx, 'POST', BASE, 'alice-api', { domain: 'site.localhost' }, 400, {
      message: {
        domain: [
          'Subdomains of the Pages root domain localhost are reserved and cannot be used as custom Pages domains.',
        ],
      },
    });
    await refused(fx, 'POST', BASE, 'alice-api', {}, 400, { error: 'domain is missing' });
  });

  it('POST /projects/:id/pages/domains: 403 for a developer, 401 anonymously', async () => {
    const fx = fx0();
    await refused(fx, 'POST', BASE, 'dave-api', { domain: 'a.example.org' }, 403, {
      message: '403 Forbidden',
    });
    await refused(fx, 'POST', BASE, undefined, { domain: 'a.example.org' }, 401, {
      message: '401 Unauthorized',
    });
  });
});

describe('GET /projects/:id/pages/domains', () => {
  it('GET /projects/:id/pages/domains: the domains by name, then one by its name', async () => {
    const fx = fx0();
    await send(fx, 'POST', BASE, 'alice-api', { domain: 'a.example.org' });
    const list = await send(fx, 'GET', BASE, 'alice-api');
    expect(list.status).toBe(200);
    expect(list.body.map((d: { domain: string }) => d.domain)).toEqual([
      'a.example.org',
      'existing.example.com',
    ]);
    const one = await send(fx, 'GET', `${BASE}/existing.example.com`, 'alice-api');
    expect(one).toEqual({
      status: 200,
      body: {
        domain: 'existing.example.com',
        url: 'http://existing.example.com',
        verified: true,
        verification_code: '0123456789abcdef0123456789abcdef',
        enabled_until: '2027-01-08T00:00:00.000Z',
        auto_ssl_enabled: false,
      },
    });
  });

  it('GET /projects/:id/pages/domains/:domain: 404 for another name, 403 for a developer', async () => {
    const fx = fx0();
    expect(await send(fx, 'GET', `${BASE}/nope.example.com`, 'alice-api')).toEqual({
      status: 404,
      body: { message: '404 PagesDomain Not Found' },
    });
    expect((await send(fx, 'GET', BASE, 'dave-api')).status).toBe(403);
  });

  it('GET, PUT, DELETE /projects/:id/pages/domains/:domain: a domain ending in .json keeps it', async () => {
    const fx = fx0();
    expect((await send(fx, 'POST', BASE, 'alice-api', { domain: 'docs.example.json' })).status).toBe(201);
    const got = await send(fx, 'GET', `${BASE}/docs.example.json`, 'alice-api');
    expect([got.status, got.body.domain]).toEqual([200, 'docs.example.json']);
    expect((await send(fx, 'PUT', `${BASE}/docs.example.json`, 'alice-api', {})).status).toBe(200);
    expect((await send(fx, 'DELETE', `${BASE}/docs.example.json`, 'alice-api')).status).toBe(204);
    expect((await send(fx, 'GET', `${BASE}/docs.example.json`, 'alice-api')).status).toBe(404);
  });
});

describe('PUT /projects/:id/pages/domains/:domain', () => {
  it('PUT /projects/:id/pages/domains/:domain: adds a certificate, then a new certificate keeps the stored key', async () => {
    const fx = fx0();
    await send(fx, 'POST', BASE, 'alice-api', { domain: 'www.example.org' });
    const r = await send(fx, 'PUT', `${BASE}/www.example.org`, 'alice-api', { certificate: CERT, key: KEY });
    expect(r.status).toBe(200);
    expect(r.body.url).toBe('https://www.example.org');
    const again = await send(fx, 'PUT', `${BASE}/www.example.org`, 'alice-api', {
      certificate: CERT,
      auto_ssl_enabled: true,
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      auto_ssl_enabled: true,
      certificate: { subject: '/CN=www.example.org/O=Fauxlab Test' },
    });
  });

  it('PUT /projects/:id/pages/domains/:domain: 400 for a key of another certificate, 404 for an unknown domain', async () => {
    const fx = fx0();
    await refused(
      fx,
      'PUT',
      `${BASE}/existing.example.com`,
      'alice-api',
      { certificate: CERT, key: OTHER_KEY },
      400,
      {
        message: { key: ["doesn't match the certificate"] },
      },
    );
    await refused(fx, 'PUT', `${BASE}/nope.example.com`, 'alice-api', { auto_ssl_enabled: true }, 404, {
      message: '404 PagesDomain Not Found',
    });
  });
});

describe('DELETE /projects/:id/pages/domains/:domain', () => {
  it('DELETE /projects/:id/pages/domains/:domain: 204, then the domain is gone and free again', async () => {
    const fx = fx0();
    const r = await send(fx, 'DELETE', `${BASE}/existing.example.com`, 'alice-api');
    expect(r.status).toBe(204);
    expect((await send(fx, 'GET', `${BASE}/existing.example.com`, 'alice-api')).status).toBe(404);
    expect((await send(fx, 'POST', BASE, 'alice-api', { domain: 'existing.example.com' })).status).toBe(201);
  });

  it('DELETE /projects/:id/pages/domains/:domain: 403 for a developer', async () => {
    await refused(fx0(), 'DELETE', `${BASE}/existing.example.com`, 'dave-api', undefined, 403, {
      message: '403 Forbidden',
    });
  });
});

describe('GET /pages/domains', () => {
  it('GET /pages/domains: every domain of the instance, with its project and certificate expiry, for admins', async () => {
    const fx = fx0();
    await send(fx, 'POST', BASE, 'alice-api', { domain: 'www.example.org', certificate: CERT, key: KEY });
    const r = await send(fx, 'GET', '/pages/domains', 'root-api');
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(2);
    expect(Object.keys(r.body[0])).toEqual([
      'domain',
      'url',
      'project_id',
      'verified',
      'verification_code',
      'enabled_until',
      'auto_ssl_enabled',
    ]);
    expect(r.body[1]).toMatchObject({
      domain: 'www.example.org',
      certificate_expiration: { expired: false, expiration: '2036-11-24T05:11:53.000Z' },
    });
    expect(await send(fx, 'GET', '/pages/domains', 'alice-api')).toEqual({
      status: 403,
      body: { message: '403 Forbidden' },
    });
  });

  it('GET /pages/domains: a scenario with domains exports and loads back the same', async () => {
    const fx = fx0();
    await send(fx, 'POST', BASE, 'alice-api', { domain: 'www.example.org', certificate: CERT, key: KEY });
    const exported = exportScenario(fx.state, { now: fx.clock.iso() });
    const loaded = createFauxlab({ scenario: JSON.parse(JSON.stringify(exported)) as ScenarioFile });
    expect(exportScenario(loaded.state, { now: loaded.clock.iso() })).toEqual(exported);
    expect(await send(loaded, 'GET', `${BASE}/www.example.org`, 'alice-api')).toEqual(
      await send(fx, 'GET', `${BASE}/www.example.org`, 'alice-api'),
    );
    expect((exported.projects?.[0] as { pages_domains?: unknown[] }).pages_domains).toHaveLength(2);
  });
});
