/**
 * The Maven repository over HTTP (`lib/api/maven_packages.rb`): the PUTs of `mvn deploy` with their
 * checksum uploads, the package records they make, downloads per project, group and instance with the
 * checksums, the credentials 13.12 takes, and the refusals in the platform's order.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { body, call, packagesFx } from './world.js';

type Fx = ReturnType<typeof packagesFx>;
const MVN = '/api/v4/projects/acme%2Fpkgs/packages/maven';
const token = (t: string) => ({ 'Private-Token': t });
const hex = (alg: string, b: Buffer | string) => createHash(alg).update(b).digest('hex');

const put = (fx: Fx, path: string, bytes: Buffer | string, headers: Record<string, string> = token('dev')) =>
  fx.app.request(`${MVN}/${path}`, {
    method: 'PUT',
    headers,
    body: typeof bytes === 'string' ? bytes : new Uint8Array(bytes),
  });
const get = (fx: Fx, url: string, headers: Record<string, string> = token('rep')) =>
  fx.app.request(url, { headers });

const JAR = Buffer.from([0x50, 0x4b, 3, 4, 0, 1, 2, 255]);
const POM =
  '<project><groupId>com.acme</groupId><artifactId>app</artifactId><version>1.0</version></project>';
const META = '<metadata><groupId>com.acme</groupId><artifactId>app</artifactId></metadata>';

/** What `mvn deploy` of `com.acme:app:1.0` sends: each file, its `.sha1`, its `.md5`. */
async function deploy(fx: Fx, headers: Record<string, string> = token('dev'), version = '1.0') {
  const statuses: number[] = [];
  const files: [string, Buffer | string][] = [
    [`com/acme/app/${version}/app-${version}.jar`, JAR],
    [`com/acme/app/${version}/app-${version}.pom`, POM],
    ['com/acme/app/maven-metadata.xml', META],
  ];
  for (const [path, bytes] of files) {
    statuses.push((await put(fx, path, bytes, headers)).status);
    statuses.push((await put(fx, `${path}.sha1`, hex('sha1', bytes), headers)).status);
    statuses.push((await put(fx, `${path}.md5`, hex('md5', bytes), headers)).status);
  }
  return statuses;
}

describe('Maven: deploy', () => {
  it('the PUTs of mvn deploy: 200 per file, 204 per matching .sha1, 200 per .md5; a versioned and a versionless package', async () => {
    const fx = packagesFx();
    expect(await deploy(fx)).toEqual([200, 204, 200, 200, 204, 200, 200, 204, 200]);
    const list = (await body(
      await call(fx, 'GET', '/projects/acme%2Fpkgs/packages?package_type=maven', 'rep'),
    )) as { id: number; name: string; version: string | null; package_type: string }[];
    // The artifact's metadata package is versionless: listed only when asked for.
    expect(list.map((p) => [p.name, p.version, p.package_type])).toEqual([['com/acme/app', '1.0', 'maven']]);
    const all = (await body(
      await call(
        fx,
        'GET',
        '/projects/acme%2Fpkgs/packages?package_type=maven&include_versionless=true',
        'rep',
      ),
    )) as { id: number; name: string; version: string | null }[];
    expect(all.map((p) => [p.name, p.version])).toEqual([
      ['com/acme/app', '1.0'],
      ['com/acme/app', null],
    ]);
    const files = (await body(
      await call(fx, 'GET', `/projects/acme%2Fpkgs/packages/${list[0]!.id}/package_files`, 'rep'),
    )) as Record<string, unknown>[];
    expect(files.map((f) => [f.file_name, f.size, f.file_md5, f.file_sha1])).toEqual([
      ['app-1.0.jar', JAR.length, hex('md5', JAR), hex('sha1', JAR)],
      ['app-1.0.pom', POM.length, hex('md5', POM), hex('sha1', POM)],
    ]);
  });

  it('the upload answers the package file record; a .sha1 that does not match is 409 Conflict', async () => {
    const fx = packagesFx();
    const res = await put(fx, 'com/acme/app/1.0/app-1.0.jar', JAR);
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({
      file_name: 'app-1.0.jar',
      size: JAR.length,
      file_md5: hex('md5', JAR),
      file_sha1: hex('sha1', JAR),
      file_sha256: hex('sha256', JAR),
    });
    const bad = await put(fx, 'com/acme/app/1.0/app-1.0.jar.sha1', 'f'.repeat(40));
    expect([bad.status, await body(bad)]).toEqual([409, { message: '409 Conflict' }]);
    // A checksum of a file never uploaded: `404 Not found`.
    const none = await put(fx, 'com/acme/app/1.0/other.jar.sha1', 'f'.repeat(40));
    expect([none.status, await body(none)]).toEqual([404, { message: '404 Not found' }]);
  });

  it('a -SNAPSHOT directory’s maven-metadata.xml belongs to the version (Gradle uploads it first)', async () => {
    const fx = packagesFx();
    expect((await put(fx, 'com/acme/app/1.1-SNAPSHOT/maven-metadata.xml', META)).status).toBe(200);
    expect((await put(fx, 'com/acme/app/1.1-SNAPSHOT/app-1.1-20210301.120000-1.jar', JAR)).status).toBe(200);
    const list = (await body(
      await call(fx, 'GET', '/projects/acme%2Fpkgs/packages?package_type=maven', 'rep'),
    )) as { id: number; name: string; version: string }[];
    expect(list.map((p) => [p.name, p.version])).toEqual([['com/acme/app', '1.1-SNAPSHOT']]);
    const files = (await body(
      await call(fx, 'GET', `/projects/acme%2Fpkgs/packages/${list[0]!.id}/package_files`, 'rep'),
    )) as { file_name: string }[];
    expect(files.map((f) => f.file_name)).toEqual(['maven-metadata.xml', 'app-1.1-20210301.120000-1.jar']);
  });

  it('refusals in the platform’s order: the credential, the file name, the project, the ability, the model', async () => {
    const fx = packagesFx();
    const st = async (res: Response) => [res.status, await body(res)];
    const before = fx.state;
    // `authenticate_non_get!`, before the project is looked up.
    expect(await st(await put(fx, 'com/acme/app/1.0/a.jar', JAR, {}))).toEqual([
      401,
      { message: '401 Unauthorized' },
    ]);
    expect(await st(await put(fx, 'com/acme/app/1.0/a%20b.jar', JAR))).toEqual([
      400,
      { error: 'file_name is invalid' },
    ]);
    expect(
      await st(
        await fx.app.request('/api/v4/projects/999/packages/maven/com/acme/app/1.0/a.jar', {
          method: 'PUT',
          headers: token('dev'),
          body: new Uint8Array(JAR),
        }),
      ),
    ).toEqual([404, { message: '404 Project Not Found' }]);
    expect(await st(await put(fx, 'com/acme/app/1.0/a.jar', JAR, token('outsider')))).toEqual([
      404,
      { message: '404 Project Not Found' },
    ]);
    expect(await st(await put(fx, 'com/acme/app/1.0/a.jar', JAR, token('rep')))).toEqual([
      403,
      { message: '403 Forbidden' },
    ]);
    // `Packages::Package` and `Packages::Maven::Metadatum` validations.
    expect(await st(await put(fx, 'app/1.0/a.jar', JAR))).toEqual([
      400,
      {
        message:
          "Validation failed: Maven metadatum app group can't be blank, Maven metadatum app group is invalid",
      },
    ]);
    expect(await st(await put(fx, 'com/acme/app/.../a.jar', JAR))).toEqual([
      400,
      { message: 'Validation failed: Version is invalid' },
    ]);
    expect(await st(await put(fx, 'com/ac%20me/app/1.0/a.jar', JAR))).toEqual([
      400,
      {
        message:
          'Validation failed: Name is invalid, Maven metadatum path is invalid, Maven metadatum app group is invalid',
      },
    ]);
    expect(fx.state).toBe(before);
  });

  it('takes Private-Token, Job-Token and Deploy-Token; Basic auth is not 13.12’s for Maven', async () => {
    const fx = packagesFx();
    expect((await put(fx, 'com/acme/a/1.0/a.jar', JAR, { 'Deploy-Token': 'pkg-write' })).status).toBe(200);
    expect((await put(fx, 'com/acme/b/1.0/b.jar', JAR, { 'Deploy-Token': 'pkg-read' })).status).toBe(403);
    expect((await put(fx, 'com/acme/b/1.0/b.jar', JAR, { 'Deploy-Token': 'nope' })).status).toBe(401);
    const basic = { Authorization: `Basic ${Buffer.from('dev:dev').toString('base64')}` };
    expect((await put(fx, 'com/acme/b/1.0/b.jar', JAR, basic)).status).toBe(401);
    const jobs = (await body(
      await call(fx, 'GET', '/api/v4/projects/acme%2Fweb/pipelines/8/jobs', 'dev'),
    )) as { id: number; name: string }[];
    const id = jobs.find((j) => j.name === 'compile')!.id;
    const job = (await body(await call(fx, 'GET', `/__fauxlab/jobs/${id}/token`))).token as string;
    fx.clock.advance(1000);
    expect((await put(fx, 'com/acme/c/1.0/c.jar', JAR, { 'Job-Token': job })).status).toBe(200);
    const list = (await body(
      await call(fx, 'GET', '/projects/acme%2Fpkgs/packages?package_type=maven&package_name=acme/c', 'rep'),
    )) as { pipeline?: { id: number } }[];
    expect(list[0]!.pipeline?.id).toBe(8);
    // Reads with the same credentials.
    expect((await get(fx, `${MVN}/com/acme/a/1.0/a.jar`, { 'Deploy-Token': 'pkg-read' })).status).toBe(200);
    expect((await get(fx, `${MVN}/com/acme/a/1.0/a.jar`, { 'Job-Token': job })).status).toBe(200);
    expect((await get(fx, `${MVN}/com/acme/a/1.0/a.jar`, basic)).status).toBe(404);
  });
});

describe('Maven: downloads', () => {
  it('per project: the file as an attachment, its .sha1 and .md5 as text; unknown paths and files 404', async () => {
    const fx = packagesFx();
    await deploy(fx);
    const jar = await get(fx, `${MVN}/com/acme/app/1.0/app-1.0.jar`);
    expect(jar.status).toBe(200);
    expect(jar.headers.get('content-type')).toBe('application/octet-stream');
    expect(jar.headers.get('content-disposition')).toBe(
      `attachment; filename="app-1.0.jar"; filename*=UTF-8''app-1.0.jar`,
    );
    expect(Buffer.from(await jar.arrayBuffer())).toEqual(JAR);
    const sha1 = await get(fx, `${MVN}/com/acme/app/1.0/app-1.0.jar.sha1`);
    expect([sha1.status, sha1.headers.get('content-type'), await sha1.text()]).toEqual([
      200,
      'text/plain',
      hex('sha1', JAR),
    ]);
    expect(await (await get(fx, `${MVN}/com/acme/app/1.0/app-1.0.jar.md5`)).text()).toBe(hex('md5', JAR));
    expect(await (await get(fx, `${MVN}/com/acme/app/maven-metadata.xml`)).text()).toBe(META);
    const missing = await get(fx, `${MVN}/com/acme/app/2.0/app-2.0.jar`);
    expect([missing.status, await body(missing)]).toEqual([404, { message: '404 Not found' }]);
    expect((await get(fx, `${MVN}/com/acme/app/1.0/nope.jar`)).status).toBe(404);
    // A private project: anonymous and outsiders are told it is not there; read_package takes a reporter.
    expect((await get(fx, `${MVN}/com/acme/app/1.0/app-1.0.jar`, {})).status).toBe(404);
    expect((await get(fx, `${MVN}/com/acme/app/1.0/app-1.0.jar`, token('outsider'))).status).toBe(404);
    expect((await get(fx, `${MVN}/com/acme/app/1.0/app-1.0.jar`, token('guest'))).status).toBe(403);
  });

  it('a second deploy’s maven-metadata.xml is the one served (the newest file of the name)', async () => {
    const fx = packagesFx();
    await deploy(fx);
    const next = META.replace('</metadata>', '<versioning><latest>1.1</latest></versioning></metadata>');
    expect((await put(fx, 'com/acme/app/maven-metadata.xml', next)).status).toBe(200);
    expect(await (await get(fx, `${MVN}/com/acme/app/maven-metadata.xml`)).text()).toBe(next);
    expect(await (await get(fx, `${MVN}/com/acme/app/maven-metadata.xml.sha1`)).text()).toBe(
      hex('sha1', next),
    );
  });

  it('per group: the packages of its and its subgroups’ projects the viewer sees', async () => {
    const fx = packagesFx();
    await deploy(fx);
    const G = '/api/v4/groups/acme/-/packages/maven/com/acme/app/1.0/app-1.0.jar';
    expect((await get(fx, G)).status).toBe(200);
    expect(
      (await get(fx, '/api/v4/groups/acme%2Fsub/-/packages/maven/com/acme/app/1.0/app-1.0.jar')).status,
    ).toBe(404);
    // The private project is not among an outsider's projects: not found in the group.
    const out = await get(fx, G, token('outsider'));
    expect([out.status, await body(out)]).toEqual([404, { message: '404 Not found' }]);
    const missing = await get(fx, '/api/v4/groups/nope/-/packages/maven/com/acme/app/1.0/app-1.0.jar');
    expect([missing.status, await body(missing)]).toEqual([404, { message: '404 Group Not Found' }]);
    // The group's deploy token reads its projects' packages.
    expect((await get(fx, G, { 'Deploy-Token': 'group-write' })).status).toBe(200);
  });

  it('at the instance: the project whose path is the package name; none is 403 Forbidden', async () => {
    const fx = packagesFx();
    // `acme/pkgs` holds `acme/pkgs` (group id `acme`, artifact `pkgs`).
    expect((await put(fx, 'acme/pkgs/2.0/pkgs-2.0.jar', JAR)).status).toBe(200);
    const I = '/api/v4/packages/maven/acme/pkgs/2.0/pkgs-2.0.jar';
    expect((await get(fx, I)).status).toBe(200);
    expect(await (await get(fx, `${I}.sha1`)).text()).toBe(hex('sha1', JAR));
    expect((await get(fx, I, {})).status).toBe(403);
    const none = await get(fx, '/api/v4/packages/maven/com/acme/app/1.0/app-1.0.jar');
    expect([none.status, await body(none)]).toEqual([403, { message: '403 Forbidden' }]);
  });
});
