import { describe, expect, it } from 'vitest';
import { setting } from '../../../src/resources/settings/model.js';
import { APP, body, call, world } from './world.js';

const put = (fx: ReturnType<typeof world>, params: Record<string, unknown>, token = 'root') =>
  call(fx, 'PUT', '/application/settings', token, params);

describe('GET /application/settings', () => {
  it('GET /application/settings: admins only (401 anonymous, 403 others)', async () => {
    const fx = world();
    expect(await body(await call(fx, 'GET', '/application/settings'))).toEqual({
      message: '401 Unauthorized',
    });
    expect(await body(await call(fx, 'GET', '/application/settings', 'alice'))).toEqual({
      message: '403 Forbidden',
    });
  });

  it('GET /application/settings: every setting of the spec with its default', async () => {
    const fx = world();
    const s = await body(await call(fx, 'GET', '/application/settings', 'root'));
    expect(Object.keys(s).slice(0, 4)).toEqual([
      'id',
      'performance_bar_allowed_group_id',
      'created_at',
      'updated_at',
    ]);
    expect(s).toMatchObject({
      id: 1,
      default_projects_limit: 100000,
      default_branch_protection: 2,
      default_project_visibility: 'private',
      default_group_visibility: 'private',
      default_snippet_visibility: 'private',
      max_attachment_size: 10,
      max_import_size: 50,
      session_expire_delay: 10080,
      issues_create_limit: 300,
      raw_blob_request_limit: 300,
      snippet_size_limit: 52428800,
      restricted_visibility_levels: [],
      domain_whitelist: null,
      domain_blacklist_enabled: false,
      domain_blacklist: [],
      dsa_key_restriction: 0,
      ecdsa_key_restriction: 0,
      ed25519_key_restriction: 0,
      rsa_key_restriction: 0,
      enforce_terms: false,
      terms: null,
      asset_proxy_enabled: false,
      external_authorization_service_enabled: false,
      external_authorization_service_timeout: 0.5,
      archive_builds_in_human_readable: null,
      commit_email_hostname: 'users.noreply.localhost',
      password_authentication_enabled: true,
      signin_enabled: true,
      allow_local_requests_from_hooks_and_services: false,
    });
    // Secrets are never shown; EE-only settings not on the community edition.
    for (const hidden of ['asset_proxy_secret_key', 'eks_secret_access_key', 'deletion_adjourned_period'])
      expect(s).not.toHaveProperty(hidden);
  });

  it('GET /application/settings: paid tiers add deletion_adjourned_period (7) and the geo settings', async () => {
    const fx = world({ tier: 'premium' });
    const s = await body(await call(fx, 'GET', '/application/settings', 'root'));
    expect(s).toMatchObject({
      deletion_adjourned_period: 7,
      geo_node_allowed_ips: '0.0.0.0/0, ::/0',
      file_template_project_id: null,
    });
  });
});

describe('PUT /application/settings', () => {
  it('PUT /application/settings: a decimal column is a JSON string, as Rails renders BigDecimal', async () => {
    const fx = world();
    const before = await body(await call(fx, 'GET', '/application/settings', 'root'));
    expect(before.polling_interval_multiplier).toBe('1.0');
    expect(before.external_authorization_service_timeout).toBe(0.5);
    const after = await body(await put(fx, { polling_interval_multiplier: 2.5 }));
    expect(after.polling_interval_multiplier).toBe('2.5');
    expect(
      (await body(await put(fx, { polling_interval_multiplier: '3' }))).polling_interval_multiplier,
    ).toBe('3.0');
  });

  it('PUT /application/settings: updates and answers the whole settings object', async () => {
    const fx = world();
    const res = await put(fx, {
      default_projects_limit: 5,
      signup_enabled: false,
      after_sign_out_path: 'https://example.com',
    });
    expect(res.status).toBe(200);
    const s = await body(res);
    expect(s).toMatchObject({
      default_projects_limit: 5,
      signup_enabled: false,
      after_sign_out_path: 'https://example.com',
    });
    expect(s.updated_at).toBe('2021-03-01T12:00:00.000Z');
    expect((await body(await call(fx, 'GET', '/application/settings', 'root'))).default_projects_limit).toBe(
      5,
    );
  });

  it('PUT /application/settings: 403 for non-admins before any param check', async () => {
    const fx = world();
    expect(await body(await put(fx, { default_projects_limit: 'x' }, 'alice'))).toEqual({
      message: '403 Forbidden',
    });
  });

  it('PUT /application/settings: nothing given is the at_least_one_of error', async () => {
    const fx = world();
    const res = await put(fx, {});
    expect(res.status).toBe(400);
    expect((await body(res)).error).toMatch(
      /^performance_bar_allowed_group_id, admin_notification_email, .* are missing, at least one parameter must be provided$/,
    );
  });

  it('PUT /application/settings: types and enumerations are checked (Grape messages)', async () => {
    const fx = world();
    expect(await body(await put(fx, { default_projects_limit: 'many' }))).toEqual({
      error: 'default_projects_limit is invalid',
    });
    expect(await body(await put(fx, { default_project_visibility: 'secret' }))).toEqual({
      error: 'default_project_visibility does not have a valid value',
    });
    expect(await body(await put(fx, { default_branch_protection: 3 }))).toEqual({
      error: 'default_branch_protection does not have a valid value',
    });
    expect(await body(await put(fx, { rsa_key_restriction: 1000 }))).toEqual({
      error: 'rsa_key_restriction does not have a valid value',
    });
  });

  it('PUT /application/settings: domain_blacklist_enabled requires domain_blacklist', async () => {
    const fx = world();
    expect(await body(await put(fx, { domain_blacklist_enabled: true }))).toEqual({
      error: 'domain_blacklist is missing',
    });
    const ok = await body(
      await put(fx, { domain_blacklist_enabled: true, domain_blacklist: 'spam.com, *.spam.org' }),
    );
    expect(ok.domain_blacklist).toEqual(['spam.com', '*.spam.org']);
  });

  it('PUT /application/settings: enforce_terms requires terms, and blank terms fail the model', async () => {
    const fx = world();
    expect(await body(await put(fx, { enforce_terms: true }))).toEqual({ error: 'terms is missing' });
    expect(await body(await put(fx, { enforce_terms: true, terms: '' }))).toEqual({
      message: { terms: ['You need to set terms to be enforced'] },
    });
    expect((await body(await put(fx, { enforce_terms: true, terms: 'Be nice' }))).terms).toBe('Be nice');
  });

  it('PUT /application/settings: external_authorization_service_enabled requires its URL, label and timeout', async () => {
    const fx = world();
    expect(await body(await put(fx, { external_authorization_service_enabled: true }))).toEqual({
      error:
        'external_authorization_service_url is missing, external_authorization_service_default_label is missing, ' +
        'external_authorization_service_timeout is missing',
    });
    const res = await put(fx, {
      external_authorization_service_enabled: true,
      external_authorization_service_url: 'https://auth.example.com',
      external_authorization_service_default_label: 'default',
      external_authorization_service_timeout: 20,
    });
    expect(await body(res)).toEqual({
      message: { external_authorization_service_timeout: ['must be less than or equal to 10'] },
    });
  });

  it('PUT /application/settings: asset_proxy_enabled requires asset_proxy_url (and the secret key)', async () => {
    const fx = world();
    expect(await body(await put(fx, { asset_proxy_enabled: true }))).toEqual({
      message: {
        asset_proxy_url: ["can't be blank", 'must be a valid URL'],
        asset_proxy_secret_key: ["can't be blank"],
      },
    });
    const ok = await body(
      await put(fx, {
        asset_proxy_enabled: true,
        asset_proxy_url: 'https://proxy.example.com',
        asset_proxy_secret_key: 's',
      }),
    );
    expect(ok.asset_proxy_enabled).toBe(true);
    expect(ok).not.toHaveProperty('asset_proxy_secret_key');
  });

  it('PUT /application/settings: a client certificate requires its key', async () => {
    const fx = world();
    expect(await body(await put(fx, { external_auth_client_cert: '-----BEGIN CERTIFICATE-----' }))).toEqual({
      message: { external_auth_client_key: ["can't be blank"] },
    });
  });

  it('PUT /application/settings: archive_builds_in_human_readable is at least 1 day', async () => {
    const fx = world();
    expect(await body(await put(fx, { archive_builds_in_human_readable: '2 hours' }))).toEqual({
      message: { archive_builds_in_seconds: ['must be at least 1 day'] },
    });
    expect(
      (await body(await put(fx, { archive_builds_in_human_readable: '2 days' })))
        .archive_builds_in_human_readable,
    ).toBe('2 days');
    const later = await body(await call(fx, 'GET', '/application/settings', 'root'));
    expect(later.archive_builds_in_human_readable).toBe('2d');
    expect(
      (await body(await put(fx, { archive_builds_in_human_readable: '' }))).archive_builds_in_human_readable,
    ).toBeNull();
  });

  it('PUT /application/settings: deletion_adjourned_period is 0 to 90 (paid tiers)', async () => {
    const fx = world({ tier: 'premium' });
    expect(await body(await put(fx, { deletion_adjourned_period: 91 }))).toEqual({
      message: { deletion_adjourned_period: ['must be less than or equal to 90'] },
    });
    expect(await body(await put(fx, { deletion_adjourned_period: -1 }))).toEqual({
      message: { deletion_adjourned_period: ['must be greater than or equal to 0'] },
    });
    expect((await body(await put(fx, { deletion_adjourned_period: 30 }))).deletion_adjourned_period).toBe(30);
  });

  it('PUT /application/settings: on the community edition deletion_adjourned_period is not a setting', async () => {
    const fx = world();
    const res = await put(fx, { deletion_adjourned_period: 91, signup_enabled: true });
    expect(res.status).toBe(200);
    expect(await body(res)).not.toHaveProperty('deletion_adjourned_period');
  });

  it('PUT /application/settings: the deprecated names still work', async () => {
    const fx = world();
    const s = await body(
      await put(fx, { allow_local_requests_from_hooks_and_services: true, signin_enabled: false }),
    );
    expect(s.allow_local_requests_from_web_hooks_and_services).toBe(true);
    expect(s.allow_local_requests_from_hooks_and_services).toBe(true);
    expect(s.password_authentication_enabled_for_web).toBe(false);
    expect(s.signin_enabled).toBe(false);
    expect(
      await body(await put(fx, { signin_enabled: true, password_authentication_enabled_for_web: true })),
    ).toEqual({
      error: 'password_authentication_enabled_for_web, signin_enabled are mutually exclusive',
    });
  });

  it('PUT /application/settings: restricted_visibility_levels takes names or levels and answers names', async () => {
    const fx = world();
    expect(
      (await body(await put(fx, { restricted_visibility_levels: ['public', '10'] })))
        .restricted_visibility_levels,
    ).toEqual(['public', 'internal']);
    expect(await body(await put(fx, { restricted_visibility_levels: ['secret'] }))).toEqual({
      message: { restricted_visibility_levels: ["'secret' is not a valid visibility level"] },
    });
  });

  it('PUT /application/settings: model validations of sizes and limits', async () => {
    const fx = world();
    expect(await body(await put(fx, { max_attachment_size: 0, snippet_size_limit: 0 }))).toEqual({
      message: {
        max_attachment_size: ['must be greater than 0'],
        snippet_size_limit: ['must be greater than 0'],
      },
    });
  });
});

describe('settings apply', () => {
  it('default_project_visibility=internal changes a new project’s visibility', async () => {
    const fx = world();
    const before = await body(await call(fx, 'POST', '/projects', 'dev', { name: 'one' }));
    expect(before.visibility).toBe('private');
    await put(fx, { default_project_visibility: 'internal' });
    const after = await body(await call(fx, 'POST', '/projects', 'dev', { name: 'two' }));
    expect(after.visibility).toBe('internal');
  });

  it('default_group_visibility=public changes a new group’s visibility', async () => {
    const fx = world();
    await put(fx, { default_group_visibility: 'public' });
    const g = await body(await call(fx, 'POST', '/groups', 'dev', { name: 'Team', path: 'team' }));
    expect(g.visibility).toBe('public');
  });

  it('default_snippet_visibility=internal changes a new snippet’s visibility', async () => {
    const fx = world();
    const one = { title: 't', file_name: 'a.txt', content: 'x' };
    expect((await body(await call(fx, 'POST', '/snippets', 'dev', one))).visibility).toBe('private');
    await put(fx, { default_snippet_visibility: 'internal' });
    expect((await body(await call(fx, 'POST', '/snippets', 'dev', one))).visibility).toBe('internal');
  });

  it('default_projects_limit is the projects limit of new users', async () => {
    const fx = world();
    await put(fx, { default_projects_limit: 3 });
    const u = await body(
      await call(fx, 'POST', '/users', 'root', {
        email: 'n@example.com',
        username: 'newbie',
        name: 'New',
        password: 'secret123',
      }),
    );
    expect(u.projects_limit).toBe(3);
  });

  it('restricted_visibility_levels: non-admins cannot create public projects, groups or snippets', async () => {
    const fx = world();
    await put(fx, { restricted_visibility_levels: ['public'] });
    const project = await call(fx, 'POST', '/projects', 'dev', { name: 'pub', visibility: 'public' });
    expect(project.status).toBe(400);
    expect(await body(project)).toEqual({
      message: {
        visibility_level: ['Public has been restricted by your GitLab administrator'],
        limit_reached: [],
      },
    });
    const group = await call(fx, 'POST', '/groups', 'dev', {
      name: 'Pub',
      path: 'pub',
      visibility: 'public',
    });
    expect(group.status).toBe(400);
    const snippet = await call(fx, 'POST', '/snippets', 'dev', {
      title: 't',
      file_name: 'a',
      content: 'x',
      visibility: 'public',
    });
    expect(snippet.status).toBe(403);
    expect(await body(snippet)).toEqual({
      message: { error: 'Visibility level Public has been restricted by your GitLab administrator' },
    });
    expect(
      (
        await call(fx, 'POST', '/snippets', 'root', {
          title: 't',
          file_name: 'a',
          content: 'x',
          visibility: 'public',
        })
      ).status,
    ).toBe(201);
  });

  it('snippet_size_limit caps snippet content', async () => {
    const fx = world();
    await put(fx, { snippet_size_limit: 10 });
    const res = await call(fx, 'POST', '/snippets', 'dev', {
      title: 't',
      file_name: 'a.txt',
      content: 'x'.repeat(11),
    });
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({
      message: { error: 'Content is too long (11 Bytes). The maximum size is 10 Bytes.' },
    });
  });

  it('max_attachment_size caps uploads (413)', async () => {
    const fx = world();
    await put(fx, { max_attachment_size: 1 });
    const form = new FormData();
    form.append('file', new File([new Uint8Array(1024 * 1024 + 1)], 'big.bin'));
    const res = await fx.app.request(`/api/v4${APP}/uploads`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'dev' },
      body: form,
    });
    expect(res.status).toBe(413);
    expect(await body(res)).toEqual({ message: '413 Request Entity Too Large' });
    const small = new FormData();
    small.append('file', new File(['hello'], 'hello.txt', { type: 'text/plain' }));
    const ok = await fx.app.request(`/api/v4${APP}/uploads`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'dev' },
      body: small,
    });
    expect(ok.status).toBe(201);
  });

  it('deletion_adjourned_period=0 deletes projects at once on paid tiers', async () => {
    const fx = world({ tier: 'premium' });
    await call(fx, 'DELETE', '/projects/acme%2Fsite', 'alice');
    expect((await call(fx, 'GET', '/projects/acme%2Fsite', 'alice')).status).toBe(200);
    await put(fx, { deletion_adjourned_period: 0 });
    await call(fx, 'DELETE', APP, 'alice');
    expect((await call(fx, 'GET', APP, 'alice')).status).toBe(404);
  });

  it('max_import_size and the other settings read through setting()', () => {
    const fx = world({}, { settings: { max_import_size: 20, default_project_visibility: 20 } });
    expect(setting(fx.state, 'max_import_size')).toBe(20);
    expect(setting(fx.state, 'default_project_visibility')).toBe('public');
    expect(setting(fx.state, 'snippet_size_limit')).toBe(52428800);
  });
});
