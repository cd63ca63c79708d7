import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import { body, call, GENERIC, PKGS, packagesFx, packagesWorld } from './world.js';

type Fx = ReturnType<typeof packagesFx>;

const put = (fx: Fx, path: string, data: string | Uint8Array, headers: Record<string, string> = {}) =>
  fx.app.request(path, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/octet-stream', ...headers },
    body: (typeof data === 'string' ? new TextEncoder().encode(data) : data) as Uint8Array<ArrayBuffer>,
  });
const get = (fx: Fx, path: string, headers: Record<string, string> = {}) => fx.app.request(path, { headers });
const pat = (token: string) => ({ 'PRIVATE-TOKEN': token });
const basic = (user: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

/** The running `compile` job of `acme/web`'s pipeline 8 (started a second after `now`) and its token. */
async function runningJob(fx: Fx): Promise<{ id: number; token: string }> {
  const jobs = (await body(await call(fx, 'GET', '/api/v4/projects/acme%2Fweb/pipelines/8/jobs', 'dev'))) as {
    id: number;
    name: string;
  }[];
  const id = jobs.find((j) => j.name === 'compile')!.id;
  const token = (await body(await call(fx, 'GET', `/__fauxlab/jobs/${id}/token`))).token as string;
  fx.clock.advance(1000);
  return { id, token };
}

describe('generic packages: publish', () => {
  it('PUT /projects/:id/packages/generic/:package_name/:package_version/:file_name: 201, then the bytes download', async () => {
    const fx = packagesFx();
    const bytes = new Uint8Array([1, 2, 3, 0, 255]);
    const res = await put(fx, `${GENERIC}/app/3.1.0/app.bin`, bytes, pat('dev'));
    expect(res.status).toBe(201);
    expect(await body(res)).toEqual({ message: '201 Created' });
    const got = await get(fx, `${GENERIC}/app/3.1.0/app.bin`, pat('rep'));
    expect(got.status).toBe(200);
    expect(got.headers.get('Content-Type')).toBe('application/octet-stream');
    expect(got.headers.get('Content-Disposition')).toBe(
      `attachment; filename="app.bin"; filename*=UTF-8''app.bin`,
    );
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(bytes);
    const list = await body(await call(fx, 'GET', `${PKGS}/packages?package_name=app`, 'dev'));
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ name: 'app', version: '3.1.0', package_type: 'generic', tags: [] });
  });

  it('PUT, GET /projects/:id/packages/generic/...: a file named .json keeps its name (`file_name: NO_SLASH_URL_PART_REGEX`)', async () => {
    const fx = packagesFx();
    expect((await put(fx, `${GENERIC}/app/1.0.0/meta.json`, '{}', pat('dev'))).status).toBe(201);
    const got = await get(fx, `${GENERIC}/app/1.0.0/meta.json`, pat('rep'));
    expect([got.status, got.headers.get('Content-Disposition'), await got.text()]).toEqual([
      200,
      `attachment; filename="meta.json"; filename*=UTF-8''meta.json`,
      '{}',
    ]);
    expect((await get(fx, `${GENERIC}/app/1.0.0/meta`, pat('rep'))).status).toBe(404);
  });

  it('PUT /projects/:id/packages/generic/...: a second file joins the package; the same name again is the newest copy', async () => {
    const fx = packagesFx();
    await put(fx, `${GENERIC}/app/1.0.0/a.txt`, 'first', pat('dev'));
    await put(fx, `${GENERIC}/app/1.0.0/b.txt`, 'bee', pat('dev'));
    await put(fx, `${GENERIC}/app/1.0.0/a.txt`, 'second', pat('dev'));
    expect(await (await get(fx, `${GENERIC}/app/1.0.0/a.txt`, pat('dev'))).text()).toBe('second');
    const [pkg] = await body(await call(fx, 'GET', `${PKGS}/packages?package_name=app`, 'dev'));
    const files = await body(await call(fx, 'GET', `${PKGS}/packages/${pkg.id}/package_files`, 'dev'));
    expect(files.map((f: { file_name: string }) => f.file_name)).toEqual(['a.txt', 'b.txt', 'a.txt']);
  });

  it('PUT /projects/:id/packages/generic/...: 401 anonymous, 404 a private project of a non-member, 403 reporters', async () => {
    const fx = packagesFx();
    expect((await put(fx, `${GENERIC}/app/1.0.0/a.txt`, 'x')).status).toBe(401);
    expect(await body(await put(fx, `${GENERIC}/app/1.0.0/a.txt`, 'x', pat('outsider')))).toEqual({
      message: '404 Project Not Found',
    });
    expect(await body(await put(fx, `${GENERIC}/app/1.0.0/a.txt`, 'x', pat('rep')))).toEqual({
      message: '403 Forbidden',
    });
    expect(await body(await call(fx, 'GET', `${PKGS}/packages?package_name=app`, 'root'))).toEqual([]);
  });

  it('PUT /projects/:id/packages/generic/...: 400 for names, versions and statuses the registry refuses', async () => {
    const fx = packagesFx();
    expect(await body(await put(fx, `${GENERIC}/app/1.0.0~beta/a.txt`, 'x', pat('dev')))).toEqual({
      error: 'package_version is invalid',
    });
    expect(await body(await put(fx, `${GENERIC}/a%20pp/1.0.0/a.txt`, 'x', pat('dev')))).toEqual({
      error: 'package_name is invalid',
    });
    expect(await body(await put(fx, `${GENERIC}/app/1.0.0/a%0Ab`, 'x', pat('dev')))).toEqual({
      error: 'file_name is invalid, file_name should be a valid file path',
    });
    expect(await body(await put(fx, `${GENERIC}/app/1.0.0/a.txt?status=gone`, 'x', pat('dev')))).toEqual({
      error: 'status does not have a valid value',
    });
    // A long near miss of the version format is answered at once (no backtracking blow-up).
    expect((await put(fx, `${GENERIC}/app/${'a'.repeat(5000)}!/a.txt`, 'x', pat('dev'))).status).toBe(400);
    expect(await body(await call(fx, 'GET', `${PKGS}/packages?package_name=app`, 'root'))).toEqual([]);
  });

  it('PUT /projects/:id/packages/generic/...: versions with letters and dots publish (v1.2.3-rc.1, 1.0..2)', async () => {
    const fx = packagesFx();
    expect((await put(fx, `${GENERIC}/app/v1.2.3-rc.1/a.txt`, 'x', pat('dev'))).status).toBe(201);
    expect((await put(fx, `${GENERIC}/app/1.0..2/a.txt`, 'x', pat('dev'))).status).toBe(201);
    expect((await put(fx, `${GENERIC}/app/1...2/a.txt`, 'x', pat('dev'))).status).toBe(400);
  });

  it('PUT /projects/:id/packages/generic/...?status=hidden: hidden from the list, still downloadable', async () => {
    const fx = packagesFx();
    expect((await put(fx, `${GENERIC}/quiet/1.0.0/q.txt?status=hidden`, 'q', pat('dev'))).status).toBe(201);
    expect(await body(await call(fx, 'GET', `${PKGS}/packages?package_name=quiet`, 'dev'))).toEqual([]);
    const hidden = await body(
      await call(fx, 'GET', `${PKGS}/packages?package_name=quiet&status=hidden`, 'dev'),
    );
    expect(hidden.map((x: { name: string }) => x.name)).toEqual(['quiet']);
    expect(await (await get(fx, `${GENERIC}/quiet/1.0.0/q.txt`, pat('dev'))).text()).toBe('q');
  });

  it('PUT /projects/:id/packages/generic/...: 400 File is too large past the instance upload bound', async () => {
    const fx = createFauxlab({ scenario: packagesWorld, maxUploadsTotal: 100 });
    expect((await put(fx, `${GENERIC}/app/1.0.0/a.bin`, new Uint8Array(40), pat('dev'))).status).toBe(201);
    const res = await put(fx, `${GENERIC}/app/1.0.0/b.bin`, new Uint8Array(40), pat('dev'));
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({ message: '400 Bad request - File is too large' });
  });

  it('PUT /projects/:id/packages/generic/...: 403 when the project has packages off', async () => {
    const fx = packagesFx();
    const res = await put(
      fx,
      '/api/v4/projects/acme%2Fnopkgs/packages/generic/a/1.0.0/a.txt',
      'x',
      pat('dev'),
    );
    expect(res.status).toBe(403);
  });
});

describe('generic packages: deploy tokens and job tokens', () => {
  it('PUT /projects/:id/packages/generic/...: a write_package_registry deploy token publishes (header or Basic with its username)', async () => {
    const fx = packagesFx();
    expect((await put(fx, `${GENERIC}/dt/1.0.0/a.txt`, 'a', { 'Deploy-Token': 'pkg-write' })).status).toBe(
      201,
    );
    expect((await put(fx, `${GENERIC}/dt/1.0.0/b.txt`, 'b', basic('pusher', 'pkg-write'))).status).toBe(201);
    // The group's token reaches the group's projects.
    expect((await put(fx, `${GENERIC}/dt/1.0.0/c.txt`, 'c', { 'Deploy-Token': 'group-write' })).status).toBe(
      201,
    );
    expect(await (await get(fx, `${GENERIC}/dt/1.0.0/b.txt`, { 'Deploy-Token': 'pkg-read' })).text()).toBe(
      'b',
    );
  });

  it('PUT /projects/:id/packages/generic/...: 403 a read-only deploy token, 401 a revoked or unknown one, 404 another project', async () => {
    const fx = packagesFx();
    expect((await put(fx, `${GENERIC}/dt/1.0.0/a.txt`, 'a', { 'Deploy-Token': 'pkg-read' })).status).toBe(
      403,
    );
    expect((await put(fx, `${GENERIC}/dt/1.0.0/a.txt`, 'a', { 'Deploy-Token': 'pkg-revoked' })).status).toBe(
      401,
    );
    expect((await put(fx, `${GENERIC}/dt/1.0.0/a.txt`, 'a', basic('someone', 'nope'))).status).toBe(401);
    const other = '/api/v4/projects/acme%2Fweb/packages/generic/dt/1.0.0/a.txt';
    expect((await put(fx, other, 'a', { 'Deploy-Token': 'pkg-write' })).status).toBe(404);
    expect((await get(fx, `${GENERIC}/tool/1.0.0/tool.txt`, { 'Deploy-Token': 'pkg-repo' })).status).toBe(
      403,
    );
  });

  it('PUT /projects/:id/packages/generic/...: a running job publishes with its token; the package lists its pipeline', async () => {
    const fx = packagesFx();
    const { token } = await runningJob(fx);
    expect((await put(fx, `${GENERIC}/built/1.0.0/a.txt`, 'a', { 'JOB-TOKEN': token })).status).toBe(201);
    expect((await put(fx, `${GENERIC}/built/1.0.0/b.txt`, 'b', basic('gitlab-ci-token', token))).status).toBe(
      201,
    );
    const [pkg] = await body(await call(fx, 'GET', `${PKGS}/packages?package_name=built`, 'dev'));
    expect(pkg.pipelines).toHaveLength(1);
    expect(pkg.pipeline).toEqual(pkg.pipelines[0]);
    expect(pkg.pipelines[0]).toMatchObject({ id: 8, ref: 'master', user: { username: 'dev' } });
    const files = await body(await call(fx, 'GET', `${PKGS}/packages/${pkg.id}/package_files`, 'dev'));
    expect(files[0].pipelines[0]).toMatchObject({ id: 8 });
  });

  it('PUT /projects/:id/packages/generic/...: 401 with the token of a job that is not running', async () => {
    const fx = packagesFx();
    const { token } = await runningJob(fx);
    fx.clock.advance(3_600_000);
    expect((await put(fx, `${GENERIC}/built/1.0.0/a.txt`, 'a', { 'JOB-TOKEN': token })).status).toBe(401);
  });
});

describe('generic packages: download', () => {
  it('GET /projects/:id/packages/generic/...: text and binary files of a scenario package', async () => {
    const fx = packagesFx();
    expect(await (await get(fx, `${GENERIC}/tool/1.0.0/tool.txt`, pat('rep'))).text()).toBe('hello tool\n');
    const bin = await get(fx, `${GENERIC}/tool/1.0.0/tool.bin`, pat('rep'));
    expect([...new Uint8Array(await bin.arrayBuffer())]).toEqual([0, 255, 1, 254]);
    expect(await (await get(fx, `${GENERIC}/secret-tool/1.0.0/s.txt`, pat('rep'))).text()).toBe('shh');
  });

  it('GET /projects/:id/packages/generic/...: 404 Not found for another version or file; 401 anonymous even on a public project', async () => {
    const fx = packagesFx();
    expect(await body(await get(fx, `${GENERIC}/tool/9.0.0/tool.txt`, pat('rep')))).toEqual({
      message: '404 Not found',
    });
    expect(await body(await get(fx, `${GENERIC}/tool/1.0.0/nope.txt`, pat('rep')))).toEqual({
      message: '404 Not found',
    });
    const open = '/api/v4/projects/acme%2Fopen/packages/generic/lib/0.1.0/lib.tgz';
    expect((await get(fx, open)).status).toBe(401);
    expect(await (await get(fx, open, pat('outsider'))).text()).toBe('lib');
    expect((await get(fx, `${GENERIC}/tool/1.0.0/tool.txt`, pat('guest'))).status).toBe(403);
  });
});

describe('project packages', () => {
  it('GET /projects/:id/packages: displayable packages by created_at, with links; delete path for maintainers only', async () => {
    const fx = packagesFx();
    const pkgsId = (await body(await call(fx, 'GET', PKGS, 'maint'))).id;
    const list = await body(await call(fx, 'GET', `${PKGS}/packages`, 'maint'));
    expect(list).toEqual([
      {
        id: 1,
        name: 'tool',
        version: '1.0.0',
        package_type: 'generic',
        status: 'default',
        _links: {
          web_path: '/acme/pkgs/-/packages/1',
          delete_api_path: `http://localhost/api/v4/projects/${pkgsId}/packages/1`,
        },
        created_at: '2021-03-01T09:00:00.000Z',
        tags: [],
      },
      expect.objectContaining({ id: 2, version: '2.0.0' }),
    ]);
    const dev = await body(await call(fx, 'GET', `${PKGS}/packages`, 'dev'));
    expect(dev[0]._links).toEqual({ web_path: '/acme/pkgs/-/packages/1' });
  });

  it('GET /projects/:id/packages: order_by, sort, package_type, package_name and status filter', async () => {
    const fx = packagesFx();
    const names = async (q: string) =>
      (await body(await call(fx, 'GET', `${PKGS}/packages?${q}`, 'dev'))).map((x: { id: number }) => x.id);
    expect(await names('order_by=version&sort=desc')).toEqual([2, 1]);
    expect(await names('package_type=npm')).toEqual([]);
    expect(await names('package_name=TOO')).toEqual([1, 2]);
    expect(await names('status=hidden')).toEqual([3]);
    expect(await names('order_by=name&status=hidden')).toEqual([3]);
    const bad = await call(fx, 'GET', `${PKGS}/packages?order_by=size`, 'dev');
    expect(bad.status).toBe(400);
    expect(await body(bad)).toEqual({ error: 'order_by does not have a valid value' });
  });

  it('GET /projects/:id/packages: 404 a private project of a non-member, 403 its guests and a project with packages off', async () => {
    const fx = packagesFx();
    expect((await call(fx, 'GET', `${PKGS}/packages`, 'outsider')).status).toBe(404);
    expect((await call(fx, 'GET', `${PKGS}/packages`, 'guest')).status).toBe(403);
    expect((await call(fx, 'GET', '/api/v4/projects/acme%2Fnopkgs/packages')).status).toBe(403);
    const open = await body(await call(fx, 'GET', '/api/v4/projects/acme%2Fopen/packages'));
    expect(open.map((x: { name: string }) => x.name)).toEqual(['lib']);
  });

  it('GET /projects/:id/packages/:package_id: one package with its other versions; 404 Not found for another project', async () => {
    const fx = packagesFx();
    const one = await body(await call(fx, 'GET', `${PKGS}/packages/1`, 'dev'));
    expect(one).toMatchObject({ id: 1, name: 'tool', version: '1.0.0' });
    expect(one.versions).toEqual([
      { id: 2, version: '2.0.0', created_at: '2021-03-01T10:00:00.000Z', tags: [] },
    ]);
    expect(await body(await call(fx, 'GET', '/api/v4/projects/acme%2Fopen/packages/1', 'dev'))).toEqual({
      message: '404 Not found',
    });
  });

  it('GET /projects/:id/packages/:package_id/package_files: sizes and SHA-256, no MD5 or SHA-1 for generic files', async () => {
    const fx = packagesFx();
    const files = await body(await call(fx, 'GET', `${PKGS}/packages/1/package_files`, 'rep'));
    expect(files).toEqual([
      {
        id: 1,
        package_id: 1,
        created_at: '2021-03-01T09:00:00.000Z',
        file_name: 'tool.txt',
        size: 11,
        file_md5: null,
        file_sha1: null,
        file_sha256: createHash('sha256').update('hello tool\n').digest('hex'),
      },
      expect.objectContaining({ id: 2, file_name: 'tool.bin', size: 4 }),
    ]);
  });

  it('DELETE /projects/:id/packages/:package_id: 403 developers; 204 maintainers, and the files go with it', async () => {
    const fx = packagesFx();
    expect((await call(fx, 'DELETE', `${PKGS}/packages/1`, 'dev')).status).toBe(403);
    expect((await call(fx, 'DELETE', `${PKGS}/packages/1`, 'maint')).status).toBe(204);
    expect((await call(fx, 'GET', `${PKGS}/packages/1`, 'maint')).status).toBe(404);
    expect((await get(fx, `${GENERIC}/tool/1.0.0/tool.txt`, pat('maint'))).status).toBe(404);
    expect(await body(await call(fx, 'DELETE', `${PKGS}/packages/1`, 'maint'))).toEqual({
      message: '404 Not found',
    });
  });

  it('DELETE /projects/:id/packages/:package_id/package_files/:package_file_id: 204, then 404 Not Found', async () => {
    const fx = packagesFx();
    expect((await call(fx, 'DELETE', `${PKGS}/packages/1/package_files/1`, 'dev')).status).toBe(403);
    expect((await call(fx, 'DELETE', `${PKGS}/packages/1/package_files/1`, 'maint')).status).toBe(204);
    expect(await body(await call(fx, 'DELETE', `${PKGS}/packages/2/package_files/2`, 'maint'))).toEqual({
      message: '404 Not Found',
    });
    const files = await body(await call(fx, 'GET', `${PKGS}/packages/1/package_files`, 'maint'));
    expect(files.map((f: { id: number }) => f.id)).toEqual([2]);
  });
});

describe('group packages', () => {
  it('GET /groups/:id/packages: the packages of projects the viewer may see, with project_id and project_path', async () => {
    const fx = packagesFx();
    const names = async (token?: string, q = '') =>
      (await body(await call(fx, 'GET', `/api/v4/groups/acme/packages${q}`, token))).map(
        (x: { name: string }) => x.name,
      );
    expect(await names()).toEqual(['lib']);
    expect(await names('outsider')).toEqual(['lib', 'inner']);
    expect(await names('dev')).toEqual(['tool', 'tool', 'lib', 'inner']);
    expect(await names('dev', '?exclude_subgroups=true')).toEqual(['tool', 'tool', 'lib']);
    expect(await names('dev', '?order_by=project_path&sort=desc')).toEqual(['inner', 'tool', 'tool', 'lib']);
    const [first] = await body(await call(fx, 'GET', '/api/v4/groups/acme/packages?package_name=lib'));
    expect(first).toMatchObject({ name: 'lib', project_path: 'acme/open' });
    expect(typeof first.project_id).toBe('number');
  });

  it('GET /groups/:id/packages: 403 for a non-reporter of an internal group, 404 for a hidden one', async () => {
    const fx = packagesFx();
    expect((await call(fx, 'GET', '/api/v4/groups/acme%2Fsub/packages', 'outsider')).status).toBe(403);
    expect((await call(fx, 'GET', '/api/v4/groups/acme%2Fsub/packages')).status).toBe(404);
    expect((await call(fx, 'GET', '/api/v4/groups/acme%2Fsub/packages', 'dev')).status).toBe(200);
  });
});

describe('packages: scenario', () => {
  it('exports packages with text and base64 files, and the export loads into the same registry', async () => {
    const fx = packagesFx();
    await put(fx, `${GENERIC}/new/1.0.0/n.bin`, new Uint8Array([0xc3, 0x28]), pat('dev'));
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    const pkgs = (out.projects ?? []).find((p) => p.path === 'acme/pkgs')!.packages as {
      name: string;
      files: Record<string, string>[];
    }[];
    expect(pkgs.map((x) => x.name)).toEqual(['tool', 'tool', 'secret-tool', 'new']);
    expect(pkgs[0]!.files[0]).toEqual({ file_name: 'tool.txt', content: 'hello tool\n' });
    expect(pkgs[3]!.files[0]).toMatchObject({ file_name: 'n.bin', content_base64: 'wyg=' });
    const again = createFauxlab({ scenario: out });
    expect(exportScenario(again.state, { now: again.clock.iso() })).toEqual(out);
  });

  it('refuses a scenario package listed twice or with a bad version', () => {
    const bad = (packages: unknown[]) => () =>
      createFauxlab({
        scenario: {
          now: '2021-03-01T00:00:00Z',
          users: [{ username: 'u' }],
          projects: [{ path: 'u/p', packages }],
        } as never,
      });
    expect(
      bad([
        { name: 'a', version: '1.0.0' },
        { name: 'a', version: '1.0.0' },
      ]),
    ).toThrow(/listed twice/);
    expect(bad([{ name: 'a', version: '1...0' }])).toThrow(/valid generic package version/);
  });
});

describe('packages: project deletion', () => {
  it('DELETE /projects/:id: the project’s packages and their bytes go with it', async () => {
    const fx = packagesFx();
    const before = fx.state.packages.bytes;
    expect(before).toBeGreaterThan(0);
    expect((await call(fx, 'DELETE', '/api/v4/projects/acme%2Fopen', 'root')).status).toBe(202);
    expect(fx.state.packages.bytes).toBe(before - 3);
    const names = (await body(await call(fx, 'GET', '/api/v4/groups/acme/packages', 'root'))).map(
      (x: { name: string }) => x.name,
    );
    expect(names).not.toContain('lib');
  });
});

describe('generic packages: bodies of any content type', () => {
  it('PUT /projects/:id/packages/generic/...: a form-encoded or JSON-typed body is the file, byte for byte', async () => {
    const fx = packagesFx();
    const amps = 'a=1&'.repeat(5000);
    expect(
      (
        await put(fx, `${GENERIC}/raw/1.0.0/form.txt`, amps, {
          ...pat('dev'),
          'Content-Type': 'application/x-www-form-urlencoded',
        })
      ).status,
    ).toBe(201);
    expect(await (await get(fx, `${GENERIC}/raw/1.0.0/form.txt`, pat('dev'))).text()).toBe(amps);
    expect(
      (
        await put(fx, `${GENERIC}/raw/1.0.0/x.json`, 'not json', {
          ...pat('dev'),
          'Content-Type': 'application/json',
        })
      ).status,
    ).toBe(201);
    expect(await (await get(fx, `${GENERIC}/raw/1.0.0/x.json`, pat('dev'))).text()).toBe('not json');
  });
});
