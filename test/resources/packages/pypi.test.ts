/**
 * The PyPI registry over HTTP (`lib/api/pypi_packages.rb`): twine's upload and its refusals, the PEP 503
 * simple index, downloads by digest and name, and `BasicAuthHelpers`' credentials and 401s.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { body, call, packagesFx, packagesWorld } from './world.js';

type Fx = ReturnType<typeof packagesFx>;
const PYPI = '/api/v4/projects/acme%2Fpkgs/packages/pypi';
const basic = (user: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

function form(fields: Record<string, string>, file?: { name: string; bytes: Buffer }) {
  const f = new FormData();
  f.set(':action', 'file_upload');
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  if (file) f.set('content', new Blob([new Uint8Array(file.bytes)]), file.name);
  return f;
}
const upload = (
  fx: Fx,
  f: FormData,
  headers: Record<string, string> = basic('__token__', 'dev'),
  path = PYPI,
) => fx.app.request(path, { method: 'POST', headers, body: f });
const wheel = (name = 'demo', version = '1.0.0', bytes = Buffer.from(`wheel ${name} ${version}`)) => ({
  fields: {
    name,
    version,
    requires_python: '>=3.8',
    sha256_digest: createHash('sha256').update(bytes).digest('hex'),
    md5_digest: createHash('md5').update(bytes).digest('hex'),
  },
  file: { name: `${name}-${version}-py3-none-any.whl`, bytes },
});

describe('PyPI: upload', () => {
  it('POST /projects/:id/packages/pypi: 201 Created, a pypi package with its file and digests', async () => {
    const fx = packagesFx();
    const w = wheel();
    const res = await upload(fx, form(w.fields, w.file));
    expect([res.status, await body(res)]).toEqual([201, { message: '201 Created' }]);
    const [pkg] = (await body(
      await call(fx, 'GET', '/projects/acme%2Fpkgs/packages?package_type=pypi', 'rep'),
    )) as {
      id: number;
      name: string;
      version: string;
    }[];
    expect([pkg!.name, pkg!.version]).toEqual(['demo', '1.0.0']);
    const files = (await body(
      await call(fx, 'GET', `/projects/acme%2Fpkgs/packages/${pkg!.id}/package_files`, 'rep'),
    )) as Record<string, unknown>[];
    expect(files).toEqual([
      expect.objectContaining({
        file_name: 'demo-1.0.0-py3-none-any.whl',
        file_md5: w.fields.md5_digest,
        file_sha256: w.fields.sha256_digest,
      }),
    ]);
    // A second file of the version (an sdist) joins the same package.
    const sdist = { ...w.file, name: 'demo-1.0.0.tar.gz' };
    expect((await upload(fx, form(w.fields, sdist))).status).toBe(201);
    expect(
      (await body(
        await call(fx, 'GET', `/projects/acme%2Fpkgs/packages/${pkg!.id}/package_files`, 'rep'),
      )) as unknown[],
    ).toHaveLength(2);
  });

  it('refusals in the platform’s order: the project, the params, the credential, the ability, the size, the formats', async () => {
    const fx = packagesFx();
    const w = wheel();
    const st = async (res: Response) => [res.status, await body(res)];
    expect(
      await st(await upload(fx, form(w.fields, w.file), {}, '/api/v4/projects/999/packages/pypi')),
    ).toEqual([404, { message: '404 Not Found' }]);
    expect(await st(await upload(fx, form({ name: 'demo' })))).toEqual([
      400,
      { error: 'content is missing, requires_python is missing, version is missing' },
    ]);
    const anon = await upload(fx, form(w.fields, w.file), {});
    expect([anon.status, anon.headers.get('www-authenticate')]).toEqual([
      401,
      'Basic realm="GitLab Packages Registry"',
    ]);
    expect(await st(await upload(fx, form(w.fields, w.file), basic('x', 'outsider')))).toEqual([
      404,
      { message: '404 Not Found' },
    ]);
    expect(await st(await upload(fx, form(w.fields, w.file), basic('x', 'rep')))).toEqual([
      403,
      { message: '403 Forbidden' },
    ]);
    expect(await st(await upload(fx, form({ ...w.fields, version: 'not a version' }, w.file)))).toEqual([
      400,
      { message: 'Validation failed: Version is invalid' },
    ]);
    expect(await st(await upload(fx, form({ ...w.fields, name: 'bad name!' }, w.file)))).toEqual([
      400,
      { message: 'Validation failed: Name is invalid' },
    ]);
    const small = createFauxlab({ scenario: packagesWorld, maxUploadsTotal: 64 });
    const big = wheel('demo', '1.0.0', Buffer.alloc(1024, 1));
    expect(await st(await upload(small, form(big.fields, big.file)))).toEqual([
      400,
      { message: '400 Bad request - File is too large' },
    ]);
  });

  it('credentials: Basic with a personal, deploy or job token as the password; Private-Token and Deploy-Token headers', async () => {
    const fx = packagesFx();
    const w = (n: string) => wheel(n);
    expect((await upload(fx, form(w('a').fields, w('a').file), basic('pusher', 'pkg-write'))).status).toBe(
      201,
    );
    expect((await upload(fx, form(w('b').fields, w('b').file), { 'Deploy-Token': 'pkg-write' })).status).toBe(
      201,
    );
    expect((await upload(fx, form(w('c').fields, w('c').file), { 'PRIVATE-TOKEN': 'dev' })).status).toBe(201);
    expect((await upload(fx, form(w('d').fields, w('d').file), basic('pusher', 'pkg-read'))).status).toBe(
      401,
    );
    expect((await upload(fx, form(w('e').fields, w('e').file), basic('x', 'wrong'))).status).toBe(401);
  });
});

describe('PyPI: simple index and files', () => {
  it('GET simple/:package_name: PEP 503 links with #sha256= and data-requires-python, by normalised name', async () => {
    const fx = packagesFx();
    const w = wheel('My_Pkg', '2.0');
    await upload(fx, form({ ...w.fields, requires_python: '>=3.8,<4' }, w.file));
    const res = await fx.app.request(`${PYPI}/simple/my-pkg`, { headers: basic('x', 'rep') });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    const pid = (await body(await call(fx, 'GET', '/projects/acme%2Fpkgs', 'rep'))).id as number;
    const sha = w.fields.sha256_digest;
    expect(html).toContain('<title>Links for My_Pkg</title>');
    expect(html).toContain(
      `<a href="http://localhost/api/v4/projects/${pid}/packages/pypi/files/${sha}/My_Pkg-2.0-py3-none-any.whl#sha256=${sha}" data-requires-python="&gt;=3.8,&lt;4">My_Pkg-2.0-py3-none-any.whl</a><br>`,
    );
    // The file: no credential needed, the digest and the name must match.
    const file = await fx.app.request(`${PYPI}/files/${sha}/My_Pkg-2.0-py3-none-any.whl`);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(w.file.bytes)).toBe(true);
    const wrong = await fx.app.request(`${PYPI}/files/${'0'.repeat(64)}/My_Pkg-2.0-py3-none-any.whl`);
    expect([wrong.status, await body(wrong)]).toEqual([404, { message: '404 Not found' }]);
  });

  it('who reads the index: anonymous 401 with the realm, others 404, no read_package 403, an unknown name 404', async () => {
    const fx = packagesFx();
    const w = wheel();
    await upload(fx, form(w.fields, w.file));
    const anon = await fx.app.request(`${PYPI}/simple/demo`);
    expect([anon.status, anon.headers.get('www-authenticate')]).toEqual([
      401,
      'Basic realm="GitLab Packages Registry"',
    ]);
    expect((await fx.app.request(`${PYPI}/simple/demo`, { headers: basic('x', 'outsider') })).status).toBe(
      404,
    );
    expect(
      (await fx.app.request(`${PYPI}/simple/demo`, { headers: basic('pusher', 'pkg-write') })).status,
    ).toBe(200);
    const none = await fx.app.request(`${PYPI}/simple/other`, { headers: basic('x', 'rep') });
    expect([none.status, await body(none)]).toEqual([404, { message: '404 Not found' }]);
    const climb = await fx.app.request(`${PYPI}/simple/a%2F..%2F..%2Fb`, { headers: basic('x', 'rep') });
    expect([climb.status, await body(climb)]).toEqual([
      400,
      { error: 'package_name should be a valid file path' },
    ]);
  });
});
