/**
 * `POST /projects/remote-import` and `POST /projects/remote-import-s3` (`lib/api/project_import.rb`,
 * `Import::GitlabProjects::CreateProjectService` with the `RemoteFile` and `RemoteFileS3` strategies):
 * the flags in front of them by release, the URL blocker's messages, and no request to any other host.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';

const tok = (token: string) => [{ token, scopes: ['api'] as ['api'] }];
const scenario: ScenarioFile = {
  now: '2022-10-01T12:00:00.000Z',
  users: [
    { username: 'root', name: 'Administrator', admin: true, tokens: tok('root') },
    { username: 'dev', name: 'Dev User', tokens: tok('dev') },
  ],
};

const world = (version: string, settings: Record<string, unknown> = {}) =>
  createFauxlab({
    scenario: { ...scenario, settings },
    version,
    // Every name resolves to a public address: what decides is the scheme, and then the host's silence.
    resolve: async () => ['93.184.216.34'],
  });

async function post(
  fx: ReturnType<typeof world>,
  path: string,
  body: Record<string, unknown>,
  token = 'root',
) {
  const res = await fx.fetch(`http://fauxlab.test/api/v4${path}`, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const projects = async (fx: ReturnType<typeof world>) =>
  (await (
    await fx.fetch('http://fauxlab.test/api/v4/projects', { headers: { 'PRIVATE-TOKEN': 'root' } })
  ).json()) as unknown[];

const S3 = {
  path: 'remote-project',
  region: 'aws-region',
  bucket_name: 'aws-bucket-name',
  file_key: 'aws-file-key',
  access_key_id: 'aws-access-key-id',
  secret_access_key: 'secret-access-key',
  name: 'remote-project',
  namespace: 'root',
};

afterEach(() => vi.restoreAllMocks());

describe('POST /projects/remote-import', () => {
  it('refuses a URL that is not https: 400 "File url is blocked: Only allowed schemes are https", nothing made', async () => {
    const fx = world('15.4');
    const out = await post(fx, '/projects/remote-import', {
      url: 'ftp://whatever.com/url',
      path: 'remote-project',
      name: 'remote-project',
      namespace: 'root',
    });
    expect(out).toEqual({
      status: 400,
      body: { message: 'File url is blocked: Only allowed schemes are https' },
    });
    expect(await projects(fx)).toEqual([]);
  });

  it('an https URL: the headers cannot be read (no request leaves fauxlab), 400, nothing made', async () => {
    const fx = world('15.4');
    const spy = vi.spyOn(globalThis, 'fetch');
    const out = await post(fx, '/projects/remote-import', {
      url: 'https://objects.example.org/x.tar.gz',
      path: 'p',
    });
    expect(out.status).toBe(400);
    expect(out.body.message).toBe(
      'Failed to retrive headers: Failed to open TCP connection to objects.example.org:443 (getaddrinfo: Name or service not known)',
    );
    expect(
      spy.mock.calls.some(([u]) => String(u instanceof Request ? u.url : u).includes('example.org')),
    ).toBe(false);
    expect(await projects(fx)).toEqual([]);
  });

  it('a local URL is blocked unless allow_local_requests_from_web_hooks_and_services is on', async () => {
    const fx = world('15.4');
    const out = await post(fx, '/projects/remote-import', { url: 'https://127.0.0.1/x.tar.gz', path: 'p' });
    expect(out).toEqual({
      status: 400,
      body: { message: 'File url is blocked: Requests to localhost are not allowed' },
    });
    const open = world('15.4', { allow_local_requests_from_web_hooks_and_services: true });
    const again = await post(open, '/projects/remote-import', {
      url: 'https://127.0.0.1/x.tar.gz',
      path: 'p',
    });
    expect(again.body.message).toMatch(/^Failed to retrive headers: /);
  });

  it('the service checks come first: an unknown namespace is 404, a blank path 400', async () => {
    const fx = world('15.4');
    const url = 'ftp://whatever.com/url';
    expect(await post(fx, '/projects/remote-import', { url, path: 'p', namespace: 'nope' })).toEqual({
      status: 404,
      body: { message: '404 Namespace Not Found' },
    });
    expect(await post(fx, '/projects/remote-import', { url, path: ' ' })).toEqual({
      status: 400,
      body: { message: "Path can't be blank" },
    });
    expect((await post(fx, '/projects/remote-import', { path: 'p' })).body).toEqual({
      error: 'url is missing',
    });
  });

  it('13.12: behind import_project_from_remote_file, off by default (404); an admin enabling it opens it', async () => {
    const fx = world('13.12');
    const body = { url: 'ftp://whatever.com/url', path: 'p' };
    expect(await post(fx, '/projects/remote-import', body)).toEqual({
      status: 404,
      body: { message: '404 Not Found' },
    });
    const flag = await fx.fetch('http://fauxlab.test/api/v4/features/import_project_from_remote_file', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'root', 'Content-Type': 'application/json' },
      body: JSON.stringify({ value: true }),
    });
    expect(flag.status).toBe(201);
    expect((await post(fx, '/projects/remote-import', body)).status).toBe(400);
  });

  it('15.4: on by default; disabling the flag hides it again', async () => {
    const fx = world('15.4');
    await fx.fetch('http://fauxlab.test/api/v4/features/import_project_from_remote_file', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'root', 'Content-Type': 'application/json' },
      body: JSON.stringify({ value: false }),
    });
    expect((await post(fx, '/projects/remote-import', { url: 'ftp://x.org/a', path: 'p' })).status).toBe(404);
  });
});

describe('POST /projects/remote-import-s3', () => {
  it('15.4 with import_project_from_remote_file_s3 on: S3 cannot be reached, 400 "Failed to open ..."', async () => {
    const fx = world('15.4');
    const spy = vi.spyOn(globalThis, 'fetch');
    expect((await post(fx, '/projects/remote-import-s3', S3)).status).toBe(404);
    await fx.fetch('http://fauxlab.test/api/v4/features/import_project_from_remote_file_s3', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'root', 'Content-Type': 'application/json' },
      body: JSON.stringify({ value: true }),
    });
    const out = await post(fx, '/projects/remote-import-s3', S3);
    expect(out.status).toBe(400);
    expect(out.body.message).toBe(
      "Failed to open 'aws-file-key' in 'aws-bucket-name': Failed to open TCP connection to aws-bucket-name.s3.aws-region.amazonaws.com:443 (getaddrinfo: Name or service not known)",
    );
    expect(spy.mock.calls.some(([u]) => String(u instanceof Request ? u.url : u).includes('amazonaws'))).toBe(
      false,
    );
    expect(await projects(fx)).toEqual([]);
  });

  it("15.11: no flag any more; a blank key is the strategy's presence message; before 14.9 no route", async () => {
    const ga = world('15.11');
    expect((await post(ga, '/projects/remote-import-s3', S3)).status).toBe(400);
    expect(await post(ga, '/projects/remote-import-s3', { ...S3, file_key: ' ' })).toEqual({
      status: 400,
      body: { message: "File key can't be blank" },
    });
    expect((await post(ga, '/projects/remote-import-s3', { path: 'p' })).status).toBe(400);
    expect((await post(world('14.8'), '/projects/remote-import-s3', S3)).status).toBe(404);
  });
});
