import { describe, expect, it } from 'vitest';
import { body, call, packagesFx } from '../packages/world.js';

type Fx = ReturnType<typeof packagesFx>;

const V1 = '/api/v4/packages/terraform/modules/v1';
const UPLOAD = '/api/v4/projects/acme%2Fpkgs/packages/terraform/modules';
const TGZ = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4]);

const upload = (fx: Fx, path: string, headers: Record<string, string>, data: Uint8Array = TGZ) =>
  fx.app.request(path, { method: 'PUT', headers, body: data as Uint8Array<ArrayBuffer> });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const get = (fx: Fx, path: string, headers: Record<string, string> = {}) => fx.app.request(path, { headers });

describe('Terraform module registry: publish, then terraform init', () => {
  it('PUT .../:module_name/:module_system/:module_version/file, discovery, versions, download, file', async () => {
    const fx = packagesFx();
    const put = await upload(fx, `${UPLOAD}/vpc/aws/1.0.0/file`, { 'PRIVATE-TOKEN': 'dev' });
    expect([put.status, await body(put)]).toEqual([201, { message: '201 Created' }]);
    expect((await upload(fx, `${UPLOAD}/vpc/aws/1.1.0-rc.1/file`, { 'PRIVATE-TOKEN': 'dev' })).status).toBe(
      201,
    );

    // What `terraform init` asks, in order: discovery, the versions, the download URL, the archive.
    const disco = await get(fx, '/.well-known/terraform.json');
    expect([disco.status, await body(disco)]).toEqual([
      200,
      { 'modules.v1': '/api/v4/packages/terraform/modules/v1/' },
    ]);
    const versions = await get(fx, `${V1}/acme/vpc/aws/versions`, bearer('dev'));
    expect([versions.status, await body(versions)]).toEqual([
      200,
      {
        modules: [
          {
            versions: ['1.0.0', '1.1.0-rc.1'].map((version) => ({
              version,
              submodules: [],
              root: { dependencies: [], providers: [{ name: 'aws', version: '' }] },
            })),
            source: 'http://localhost/acme/pkgs',
          },
        ],
      },
    ]);
    const dl = await get(fx, `${V1}/acme/vpc/aws/1.0.0/download`, bearer('dev'));
    expect([dl.status, await dl.text()]).toEqual([204, '']);
    const target = dl.headers.get('X-Terraform-Get')!;
    expect(target).toMatch(
      /^\/api\/v4\/packages\/terraform\/modules\/v1\/acme\/vpc\/aws\/1\.0\.0\/file\?token=[\w-]+\.[\w-]+\.[\w-]+&archive=tgz$/,
    );
    // go-getter fetches it with no other credential than the token in it.
    const file = await get(fx, target);
    expect(file.status).toBe(200);
    expect(file.headers.get('Content-Disposition')).toBe(
      `attachment; filename="vpc-aws-1.0.0.tgz"; filename*=UTF-8''vpc-aws-1.0.0.tgz`,
    );
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(TGZ);

    // A package of the packages area, with its file.
    const list = (await body(
      await call(fx, 'GET', '/api/v4/projects/acme%2Fpkgs/packages?package_type=terraform_module', 'dev'),
    )) as {
      id: number;
      name: string;
      version: string;
      package_type: string;
    }[];
    expect(list.map((x) => [x.name, x.version, x.package_type])).toEqual([
      ['vpc/aws', '1.0.0', 'terraform_module'],
      ['vpc/aws', '1.1.0-rc.1', 'terraform_module'],
    ]);
    const files = await body(
      await call(fx, 'GET', `/api/v4/projects/acme%2Fpkgs/packages/${list[0]!.id}/package_files`, 'dev'),
    );
    expect(files).toMatchObject([{ file_name: 'vpc-aws-1.0.0.tgz', size: TGZ.length }]);
  });

  it('the file’s JWT: 5 minutes, signed by the instance (a changed one is 401); none means anonymous', async () => {
    const fx = packagesFx();
    await upload(fx, `${UPLOAD}/vpc/aws/1.0.0/file`, { 'PRIVATE-TOKEN': 'dev' });
    const target = (await get(fx, `${V1}/acme/vpc/aws/1.0.0/download`, bearer('rep'))).headers.get(
      'X-Terraform-Get',
    )!;
    const [path, query] = target.split('?');
    const token = new URLSearchParams(query).get('token')!;
    const [h, p, s] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), exp: 9e9 }),
    ).toString('base64url');
    expect((await get(fx, `${path}?token=${h}.${forged}.${s}&archive=tgz`)).status).toBe(401);
    // No token: anonymous, who sees no package of the private project (the public group's 404).
    expect((await get(fx, `${path}?archive=tgz`)).status).toBe(404);
    expect((await get(fx, '/.well-known/terraform')).status).toBe(404);
    fx.clock.advance(299_000);
    expect((await get(fx, target)).status).toBe(200);
    fx.clock.advance(2_000);
    expect((await get(fx, target)).status).toBe(401);
  });

  it('reads take Bearer tokens only: personal, deploy and job tokens; PRIVATE-TOKEN is not read (anonymous)', async () => {
    const fx = packagesFx();
    await upload(fx, `${UPLOAD}/vpc/aws/1.0.0/file`, { 'PRIVATE-TOKEN': 'dev' });
    const versionsOf = async (headers: Record<string, string>) =>
      (
        (await body(await get(fx, `${V1}/acme/vpc/aws/versions`, headers))) as {
          modules: { versions: unknown[] }[];
        }
      ).modules[0]!.versions.length;
    expect(await versionsOf(bearer('rep'))).toBe(1);
    expect(await versionsOf(bearer('pkg-read'))).toBe(1);
    // The private project's packages are not the anonymous caller's: an empty list of the public group.
    expect(await versionsOf({ 'PRIVATE-TOKEN': 'rep' })).toBe(0);
    expect(await versionsOf({})).toBe(0);
    expect((await get(fx, `${V1}/acme/vpc/aws/versions`, bearer('nope'))).status).toBe(401);
    const hidden = await get(fx, `${V1}/acme/vpc/aws/1.0.0/download`);
    expect([hidden.status, await body(hidden)]).toEqual([404, { message: '404 Not Found' }]);
    // A namespace no one can read, or none: the namespace's 403.
    expect((await get(fx, `${V1}/nowhere/vpc/aws/versions`, bearer('rep'))).status).toBe(403);
  });

  it('upload rules: a version once per project, a name once per root namespace, semver only, lower-case names', async () => {
    const fx = packagesFx();
    const dev = { 'PRIVATE-TOKEN': 'dev' };
    expect((await upload(fx, `${UPLOAD}/vpc/aws/1.0.0/file`, dev)).status).toBe(201);
    const again = await upload(fx, `${UPLOAD}/vpc/aws/1.0.0/file`, dev);
    expect([again.status, await body(again)]).toEqual([403, { message: 'Package version already exists.' }]);
    const other = await upload(
      fx,
      '/api/v4/projects/acme%2Fopen/packages/terraform/modules/vpc/aws/2.0.0/file',
      dev,
    );
    expect([other.status, await body(other)]).toEqual([403, { message: 'Package already exists.' }]);
    expect((await upload(fx, `${UPLOAD}/vpc/aws/1.0/file`, dev)).status).toBe(404);
    expect((await upload(fx, `${UPLOAD}/VPC/aws/1.0.0/file`, dev)).status).toBe(500);
  });

  it('upload credentials: Deploy-Token, Job-Token or PRIVATE-TOKEN; 401 for no one, 404 for an outsider, 403 below developer', async () => {
    const fx = packagesFx();
    expect((await upload(fx, `${UPLOAD}/a/b/1.0.0/file`, { 'DEPLOY-TOKEN': 'pkg-write' })).status).toBe(201);
    expect((await upload(fx, `${UPLOAD}/a/b/1.0.1/file`, { 'DEPLOY-TOKEN': 'pkg-read' })).status).toBe(403);
    expect((await upload(fx, `${UPLOAD}/a/b/1.0.2/file`, {})).status).toBe(401);
    expect((await upload(fx, `${UPLOAD}/a/b/1.0.2/file`, { 'PRIVATE-TOKEN': 'outsider' })).status).toBe(404);
    expect((await upload(fx, `${UPLOAD}/a/b/1.0.2/file`, { 'PRIVATE-TOKEN': 'rep' })).status).toBe(403);
    // Basic auth is not among the upload's credentials.
    const basicAuth = { Authorization: `Basic ${Buffer.from('dev:dev').toString('base64')}` };
    expect((await upload(fx, `${UPLOAD}/a/b/1.0.2/file`, basicAuth)).status).toBe(401);
  });
});
