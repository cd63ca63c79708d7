/**
 * The npm registry over HTTP (`npm_project_packages.rb`, `npm_instance_packages.rb`, `NpmEndpoints`):
 * publish and its refusals, the packument, tarballs, dist-tags, the instance-level scope lookup, and the
 * credentials npm sends (Bearer values of personal, job and deploy tokens).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tvalues } from '../../../src/core/table.js';
import { createFauxlab } from '../../../src/index.js';
import { body, call, packagesFx, packagesWorld } from './world.js';

type Fx = ReturnType<typeof packagesFx>;
const NPM = '/api/v4/projects/acme%2Fpkgs/packages/npm';
const OPEN = '/api/v4/projects/acme%2Fopen/packages/npm';

/** The document `npm publish` sends for a name and version, its tarball the given bytes. */
function publishDoc(
  name: string,
  version: string,
  tgz = Buffer.from(`tarball of ${name}@${version}`),
  more = {},
) {
  const shasum = createHash('sha1').update(tgz).digest('hex');
  return {
    _id: name,
    name,
    'dist-tags': { latest: version },
    versions: {
      [version]: {
        name,
        version,
        dist: { shasum, tarball: `http://registry/${name}/-/${name}-${version}.tgz` },
        ...more,
      },
    },
    _attachments: {
      [`${name}-${version}.tgz`]: {
        content_type: 'application/octet-stream',
        data: tgz.toString('base64'),
        length: tgz.length,
      },
    },
  };
}

const enc = (name: string) => name.replace('/', '%2f');
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

function publish(fx: Fx, doc: object, headers: Record<string, string> = bearer('dev'), path = NPM) {
  const name = (doc as { name?: string }).name ?? 'x';
  return fx.app.request(`${path}/${enc(name)}`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(doc),
  });
}
const get = (fx: Fx, path: string, headers: Record<string, string> = {}) => fx.app.request(path, { headers });

describe('npm: publish', () => {
  it('PUT /projects/:id/packages/npm/:package_name: the package record, a package of type npm with its tarball and latest tag', async () => {
    const fx = packagesFx();
    const res = await publish(fx, publishDoc('@acme/web', '1.0.0'));
    expect(res.status).toBe(200);
    const made = (await body(res)) as Record<string, unknown>;
    expect(made).toMatchObject({
      name: '@acme/web',
      version: '1.0.0',
      package_type: 'npm',
      status: 'default',
    });
    expect(Object.keys(made)).toEqual([
      'id',
      'project_id',
      'created_at',
      'updated_at',
      'name',
      'version',
      'package_type',
      'creator_id',
      'status',
    ]);
    const list = (await body(
      await call(fx, 'GET', '/projects/acme%2Fpkgs/packages?package_type=npm', 'rep'),
    )) as {
      id: number;
      name: string;
      tags: { name: string; package_id: number }[];
    }[];
    expect(list.map((p) => [p.name, p.tags.map((t) => [t.name, t.package_id])])).toEqual([
      ['@acme/web', [['latest', made.id]]],
    ]);
    const files = (await body(
      await call(fx, 'GET', `/projects/acme%2Fpkgs/packages/${made.id}/package_files`, 'rep'),
    )) as Record<string, unknown>[];
    const tgz = Buffer.from('tarball of @acme/web@1.0.0');
    expect(files).toEqual([
      expect.objectContaining({
        file_name: '@acme/web-1.0.0.tgz',
        size: tgz.length,
        file_md5: null,
        file_sha1: createHash('sha1').update(tgz).digest('hex'),
        file_sha256: createHash('sha256').update(tgz).digest('hex'),
      }),
    ]);
  });

  it('refuses as CreatePackageService and the package validations do, in their order', async () => {
    const fx = packagesFx();
    const status = async (res: Response) => [res.status, await body(res)];
    expect(await status(await publish(fx, publishDoc('@acme/web', '1.0.0'), {}))).toEqual([
      401,
      { message: '401 Unauthorized' },
    ]);
    expect(await status(await publish(fx, publishDoc('@acme/web', '1.0.0'), bearer('rep')))).toEqual([
      403,
      { message: '403 Forbidden' },
    ]);
    expect(await status(await publish(fx, { name: '@acme/web' }))).toEqual([
      400,
      { error: 'versions is missing' },
    ]);
    expect(await status(await publish(fx, { name: '@acme/web', versions: {} }))).toEqual([
      400,
      { message: 'Version is empty.' },
    ]);
    // Unscoped, or scoped by another namespace than the project's root one.
    expect(await status(await publish(fx, publishDoc('web', '1.0.0')))).toEqual([
      400,
      { message: 'Validation failed: Name is not valid' },
    ]);
    expect(await status(await publish(fx, publishDoc('@other/web', '1.0.0')))).toEqual([
      400,
      { message: 'Validation failed: Name is not valid' },
    ]);
    expect(await status(await publish(fx, publishDoc('@acme/web', '1.0')))).toEqual([
      400,
      { message: 'Validation failed: Version is invalid' },
    ]);
    expect((await publish(fx, publishDoc('@acme/web', '1.0.0'))).status).toBe(200);
    expect(await status(await publish(fx, publishDoc('@acme/web', '1.0.0')))).toEqual([
      403,
      { message: 'Package already exists.' },
    ]);
    // Another project of the root namespace may not take the name.
    expect(await status(await publish(fx, publishDoc('@acme/web', '2.0.0'), bearer('maint'), OPEN))).toEqual([
      400,
      { message: 'Validation failed: Package already exists' },
    ]);
    // An unknown project answers 404 after the param check.
    expect(
      await status(
        await publish(
          fx,
          publishDoc('@acme/web', '3.0.0'),
          bearer('dev'),
          '/api/v4/projects/999/packages/npm',
        ),
      ),
    ).toEqual([404, { message: '404 Project Not Found' }]);
  });

  it('`npm_max_file_size` on the declared length, and the instance bound on the decoded size, before decoding', async () => {
    const fx = packagesFx();
    const doc = publishDoc('@acme/big', '1.0.0');
    (doc._attachments['@acme/big-1.0.0.tgz'] as { length: number }).length = 500 * 1024 * 1024 + 1;
    const res = await publish(fx, doc);
    expect([res.status, await body(res)]).toEqual([400, { message: 'File is too large.' }]);
    const small = createFauxlab({ scenario: packagesWorld, maxUploadsTotal: 1024 });
    const before = small.state.packages.bytes;
    const over = await publish(small, publishDoc('@acme/big', '1.0.0', Buffer.alloc(2048, 7)));
    expect([over.status, await body(over)]).toEqual([400, { message: 'File is too large.' }]);
    expect(small.state.packages.bytes).toBe(before);
  });

  it('takes the tokens npm sends: Bearer personal, job and deploy tokens, and the Deploy-Token header; no Basic auth', async () => {
    const fx = packagesFx();
    expect((await publish(fx, publishDoc('@acme/a', '1.0.0'), bearer('pkg-write'))).status).toBe(200);
    expect((await publish(fx, publishDoc('@acme/b', '1.0.0'), { 'Deploy-Token': 'pkg-write' })).status).toBe(
      200,
    );
    expect((await publish(fx, publishDoc('@acme/c', '1.0.0'), bearer('pkg-read'))).status).toBe(403);
    expect((await publish(fx, publishDoc('@acme/d', '1.0.0'), bearer('nope'))).status).toBe(401);
    const basic = { Authorization: `Basic ${Buffer.from('dev:dev').toString('base64')}` };
    expect((await publish(fx, publishDoc('@acme/e', '1.0.0'), basic)).status).toBe(401);
    expect((await get(fx, `${NPM}/${enc('@acme/a')}`, bearer('pkg-read'))).status).toBe(200);
    const deployMade = (await body(
      await call(fx, 'GET', '/projects/acme%2Fpkgs/packages?package_name=%40acme%2Fa', 'rep'),
    )) as unknown[];
    expect(deployMade).toHaveLength(1);
  });

  it('a job token as the Bearer value publishes with the job’s pipeline', async () => {
    const fx = packagesFx();
    const jobs = (await body(
      await call(fx, 'GET', '/api/v4/projects/acme%2Fweb/pipelines/8/jobs', 'dev'),
    )) as {
      id: number;
      name: string;
    }[];
    const id = jobs.find((j) => j.name === 'compile')!.id;
    const token = (await body(await call(fx, 'GET', `/__fauxlab/jobs/${id}/token`))).token as string;
    fx.clock.advance(1000);
    const res = await publish(fx, publishDoc('@acme/ci', '1.0.0'), bearer(token));
    expect(res.status).toBe(200);
    const [pkg] = (await body(
      await call(fx, 'GET', '/projects/acme%2Fpkgs/packages?package_name=ci', 'rep'),
    )) as {
      pipeline?: { id: number };
    }[];
    expect(pkg!.pipeline?.id).toBe(8);
  });
});

describe('npm: packument and tarballs', () => {
  it('GET the packument: versions with their dependencies and tarball URLs back at fauxlab, dist-tags with latest', async () => {
    const fx = packagesFx();
    await publish(
      fx,
      publishDoc('@acme/lib', '1.0.0', undefined, {
        dependencies: { left: '^1.0.0' },
        devDependencies: { t: '2' },
      }),
    );
    await publish(fx, publishDoc('@acme/lib', '1.10.0-rc.1'));
    const res = await get(fx, `${NPM}/${enc('@acme/lib')}`, bearer('rep'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = (await body(res)) as {
      name: string;
      versions: Record<
        string,
        { dist: { tarball: string }; dependencies?: unknown; devDependencies?: unknown }
      >;
      'dist-tags': Record<string, string>;
    };
    expect(doc.name).toBe('@acme/lib');
    expect(Object.keys(doc.versions)).toEqual(['1.0.0', '1.10.0-rc.1']);
    expect(doc.versions['1.0.0']).toMatchObject({
      dependencies: { left: '^1.0.0' },
      devDependencies: { t: '2' },
    });
    expect(doc.versions['1.10.0-rc.1']).not.toHaveProperty('dependencies');
    const pid = (await body(await call(fx, 'GET', '/projects/acme%2Fpkgs', 'rep'))).id as number;
    expect(doc.versions['1.0.0']!.dist.tarball).toBe(
      `http://localhost/api/v4/projects/${pid}/packages/npm/@acme/lib/-/@acme/lib-1.0.0.tgz`,
    );
    // Each publish tagged its version `latest`; the tag moved to the last one.
    expect(doc['dist-tags']).toEqual({ latest: '1.10.0-rc.1' });
    const tgz = await get(fx, new URL(doc.versions['1.0.0']!.dist.tarball).pathname, bearer('rep'));
    expect(tgz.status).toBe(200);
    expect(Buffer.from(await tgz.arrayBuffer()).toString()).toBe('tarball of @acme/lib@1.0.0');
    expect(tgz.headers.get('content-disposition')).toContain('filename="lib-1.0.0.tgz"');
  });

  it('who may read: 404 for a private project anonymously, 403 without read_package, 404 Packages for an unknown name', async () => {
    const fx = packagesFx();
    await publish(fx, publishDoc('@acme/lib', '1.0.0'));
    expect([(await get(fx, `${NPM}/${enc('@acme/lib')}`)).status]).toEqual([404]);
    const gone = await get(fx, `${NPM}/${enc('@acme/none')}`, bearer('rep'));
    expect([gone.status, await body(gone)]).toEqual([404, { message: '404 Packages Not Found' }]);
    const file = await get(fx, `${NPM}/@acme/lib/-/@acme/lib-9.9.9.tgz`, bearer('rep'));
    expect([file.status, await body(file)]).toEqual([404, { message: '404 Not found' }]);
    // A deploy token with read_repository only reads the project but no package.
    expect((await get(fx, `${NPM}/${enc('@acme/lib')}`, bearer('pkg-repo'))).status).toBe(403);
  });

  it('the instance level finds the project by the scope’s top-level namespace', async () => {
    const fx = packagesFx();
    await publish(fx, publishDoc('@acme/pub', '0.1.0'), bearer('maint'), OPEN);
    const res = await get(fx, `/api/v4/packages/npm/${enc('@acme/pub')}`);
    expect(res.status).toBe(200);
    expect(((await body(res)) as { 'dist-tags': unknown })['dist-tags']).toEqual({ latest: '0.1.0' });
    // No scope, or one that names no namespace: no project (the free tier forwards nothing).
    const unscoped = await get(fx, '/api/v4/packages/npm/pub');
    expect([unscoped.status, await body(unscoped)]).toEqual([404, { message: '404 Project Not Found' }]);
    expect((await get(fx, `/api/v4/packages/npm/${enc('@nobody/pub')}`)).status).toBe(404);
    // A subgroup's path is no scope: only top-level namespaces are.
    expect((await get(fx, `/api/v4/packages/npm/${enc('@sub/pub')}`)).status).toBe(404);
  });

  it('on a paid tier what the registry lacks is forwarded to npmjs.org (302)', async () => {
    const fx = createFauxlab({ scenario: { ...packagesWorld, tier: 'premium' } });
    const res = await get(fx, `/api/v4/packages/npm/${enc('@acme/left-pad')}`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://registry.npmjs.org/@acme/left-pad');
  });
});

describe('npm: dist-tags', () => {
  it('GET, PUT and DELETE /-/package/:package_name/dist-tags, per project and at the instance level', async () => {
    const fx = packagesFx();
    await publish(fx, publishDoc('@acme/t', '1.0.0'));
    await publish(fx, publishDoc('@acme/t', '2.0.0'));
    const tags = `${NPM}/-/package/${enc('@acme/t')}/dist-tags`;
    const put = (tag: string, version: string, token = 'dev') =>
      fx.app.request(`${tags}/${tag}`, {
        method: 'PUT',
        headers: { ...bearer(token), 'Content-Type': 'application/json' },
        body: JSON.stringify(version),
      });
    expect((await put('stable', '1.0.0')).status).toBe(204);
    expect(await body(await get(fx, tags, bearer('rep')))).toEqual({ latest: '2.0.0', stable: '1.0.0' });
    expect(
      await body(await get(fx, `/api/v4/packages/npm/-/package/${enc('@acme/t')}/dist-tags`, bearer('rep'))),
    ).toEqual({
      latest: '2.0.0',
      stable: '1.0.0',
    });
    expect((await put('stable', '2.0.0')).status).toBe(204);
    expect(await body(await get(fx, tags, bearer('rep')))).toEqual({ latest: '2.0.0', stable: '2.0.0' });
    const missing = await put('stable', '7.0.0');
    expect([missing.status, await body(missing)]).toEqual([404, { message: '404 Package Not Found' }]);
    const empty = await put('stable', '');
    expect([empty.status, await body(empty)]).toEqual([
      400,
      { message: '400 Bad request - "Version" not given' },
    ]);
    expect((await put('beta', '1.0.0', 'rep')).status).toBe(403);
    const del = (tag: string, token: string) =>
      fx.app.request(`${tags}/${tag}`, { method: 'DELETE', headers: bearer(token) });
    // Removing a tag is `destroy_package`: maintainers.
    expect((await del('stable', 'dev')).status).toBe(403);
    expect((await del('stable', 'maint')).status).toBe(204);
    const again = await del('stable', 'maint');
    expect([again.status, await body(again)]).toEqual([404, { message: '404 Package tag Not Found' }]);
    // With no tag named latest, the highest version is.
    expect((await del('latest', 'maint')).status).toBe(204);
    expect(await body(await get(fx, tags, bearer('rep')))).toEqual({ latest: '2.0.0' });
    const none = await get(fx, `${NPM}/-/package/${enc('@acme/zzz')}/dist-tags`, bearer('rep'));
    expect([none.status, await body(none)]).toEqual([404, { message: '404 Not Found' }]);
  });

  it('deleting a package takes its tags with it', async () => {
    const fx = packagesFx();
    const made = (await body(await publish(fx, publishDoc('@acme/gone', '1.0.0')))) as { id: number };
    expect((await call(fx, 'DELETE', `/projects/acme%2Fpkgs/packages/${made.id}`, 'maint')).status).toBe(204);
    const res = await get(fx, `${NPM}/-/package/${enc('@acme/gone')}/dist-tags`, bearer('rep'));
    expect(res.status).toBe(404);
    expect(tvalues(fx.state.packages.tags)).toEqual([]);
  });
});
