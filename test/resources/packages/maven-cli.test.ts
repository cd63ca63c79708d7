/**
 * The real `mvn` (3.8) against fauxlab's Maven repository over HTTP: `deploy:deploy-file` of a jar and
 * of a parent POM to a project's registry with the `Private-Token` header from settings.xml, then
 * builds whose parent POM Maven resolves from the group's registry and from the instance's. Nothing
 * reaches another repository: settings.xml mirrors `*` to fauxlab, the local repository is a temporary
 * directory seeded with Debian's plugins (/usr/share/maven-repo), and the plugin is named by its full
 * coordinates. Skipped when mvn or Debian's maven-deploy-plugin (`apt-get install
 * libmaven-deploy-plugin-java`) is not installed.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveNode } from '../../../src/host/node-server.js';
import { body, call, packagesFx } from './world.js';

const DEBIAN_REPO = '/usr/share/maven-repo';
const DEPLOY_PLUGIN = 'org.apache.maven.plugins:maven-deploy-plugin:3.0.0';
const hasMvn = (() => {
  try {
    execFileSync('mvn', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const hasPlugin = existsSync(`${DEBIAN_REPO}/org/apache/maven/plugins/maven-deploy-plugin/3.0.0`);
const skip = !hasMvn || !hasPlugin;
if (skip)
  console.warn(
    `maven-cli.test.ts skipped: ${!hasMvn ? 'mvn is not installed' : 'Debian’s maven-deploy-plugin 3.0.0 is not in /usr/share/maven-repo (apt-get install libmaven-deploy-plugin-java)'}`,
  );

const fx = packagesFx();
let server: Server;
let base = '';
let home = '';

function mvn(args: string[], cwd = home): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      'mvn',
      ['-B', '-s', join(home, 'settings.xml'), `-Dmaven.repo.local=${join(home, 'repo')}`, ...args],
      {
        cwd,
        env: { PATH: process.env.PATH, HOME: home, JAVA_HOME: process.env.JAVA_HOME ?? '', MAVEN_OPTS: '' },
        timeout: 180_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

/** settings.xml: the token as a header for the server `fauxlab`, every repository mirrored to `url`. */
function settings(url: string, tokenValue = 'dev') {
  writeFileSync(
    join(home, 'settings.xml'),
    `<settings>
  <servers>
    <server>
      <id>fauxlab</id>
      <configuration><httpHeaders><property><name>Private-Token</name><value>${tokenValue}</value></property></httpHeaders></configuration>
    </server>
  </servers>
  <mirrors><mirror><id>fauxlab</id><mirrorOf>*</mirrorOf><url>${url}</url></mirror></mirrors>
</settings>
`,
  );
}

const pom = (g: string, a: string, v: string, packaging: string, parent?: [string, string, string]) =>
  `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
${parent ? `  <parent><groupId>${parent[0]}</groupId><artifactId>${parent[1]}</artifactId><version>${parent[2]}</version><relativePath/></parent>\n` : ''}  <groupId>${g}</groupId>
  <artifactId>${a}</artifactId>
  <version>${v}</version>
  <packaging>${packaging}</packaging>
  <properties><fauxlab.marker>from-${a}</fauxlab.marker></properties>
</project>
`;

const PROJECT = () => `${base}/api/v4/projects/acme%2Fpkgs/packages/maven`;
const JAR = Buffer.from('PK\u0003\u0004 not really a jar, but bytes all the same');

describe.skipIf(skip)('mvn against fauxlab’s Maven repository', () => {
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'fauxlab-mvn-'));
    // Debian's plugins and their dependencies, as artifacts installed locally (no _remote.repositories).
    cpSync(DEBIAN_REPO, join(home, 'repo'), { recursive: true, dereference: true });
    await new Promise<void>((resolve) => {
      server = serveNode({ fetch: fx.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => {
        base = `http://127.0.0.1:${info.port}`;
        resolve();
      });
    });
  }, 120_000);

  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(home, { recursive: true, force: true });
  });

  it('deploy-file of a jar: the package, its files and checksums; a rerun of the same version is taken', async () => {
    settings(PROJECT());
    writeFileSync(join(home, 'app.jar'), JAR);
    const args = [
      `${DEPLOY_PLUGIN}:deploy-file`,
      `-Dfile=${join(home, 'app.jar')}`,
      '-DgroupId=com.acme',
      '-DartifactId=app',
      '-Dversion=1.0',
      '-Dpackaging=jar',
      '-DrepositoryId=fauxlab',
      `-Durl=${PROJECT()}`,
    ];
    const run = await mvn(args);
    expect(run.out).toContain('BUILD SUCCESS');
    expect(run.code).toBe(0);
    const [pkg] = (await body(
      await call(fx, 'GET', '/projects/acme%2Fpkgs/packages?package_type=maven', 'rep'),
    )) as { id: number; name: string; version: string }[];
    expect([pkg!.name, pkg!.version]).toEqual(['com/acme/app', '1.0']);
    const files = (await body(
      await call(fx, 'GET', `/projects/acme%2Fpkgs/packages/${pkg!.id}/package_files`, 'rep'),
    )) as { file_name: string; file_sha1: string }[];
    expect(files.map((f) => f.file_name)).toEqual(['app-1.0.jar', 'app-1.0.pom']);
    expect(files[0]!.file_sha1).toBe(createHash('sha1').update(JAR).digest('hex'));
    const jar = await fx.app.request(
      `/api/v4/projects/acme%2Fpkgs/packages/maven/com/acme/app/1.0/app-1.0.jar`,
      {
        headers: { 'Private-Token': 'rep' },
      },
    );
    expect(Buffer.from(await jar.arrayBuffer())).toEqual(JAR);
    // The versions mvn merged into the artifact's metadata.
    const meta = await fx.app.request(
      '/api/v4/projects/acme%2Fpkgs/packages/maven/com/acme/app/maven-metadata.xml',
      {
        headers: { 'Private-Token': 'rep' },
      },
    );
    expect(await meta.text()).toContain('<version>1.0</version>');
    // 1.1 next: mvn reads the metadata back and uploads it with both versions.
    const again = await mvn(args.map((a) => (a === '-Dversion=1.0' ? '-Dversion=1.1' : a)));
    expect(again.code).toBe(0);
    const merged = await fx.app.request(
      '/api/v4/projects/acme%2Fpkgs/packages/maven/com/acme/app/maven-metadata.xml',
      {
        headers: { 'Private-Token': 'rep' },
      },
    );
    expect(await merged.text()).toMatch(/<version>1\.0<\/version>\s*<version>1\.1<\/version>/);
  }, 200_000);

  it('a build resolves its parent POM from the group’s registry and from the instance’s', async () => {
    // The parent `com.acme:parent:1.0`, deployed to the project; then a build under it via the group.
    settings(PROJECT());
    writeFileSync(join(home, 'parent.pom'), pom('com.acme', 'parent', '1.0', 'pom'));
    const deployParent = await mvn([
      `${DEPLOY_PLUGIN}:deploy-file`,
      `-Dfile=${join(home, 'parent.pom')}`,
      `-DpomFile=${join(home, 'parent.pom')}`,
      '-DrepositoryId=fauxlab',
      `-Durl=${PROJECT()}`,
    ]);
    expect(deployParent.out).toContain('BUILD SUCCESS');

    const child = join(home, 'child');
    mkdirSync(child, { recursive: true });
    writeFileSync(
      join(child, 'pom.xml'),
      pom('com.acme', 'child', '1.0', 'pom', ['com.acme', 'parent', '1.0']).replace(
        '</properties>',
        '</properties>\n  <build><defaultGoal>validate</defaultGoal></build>',
      ),
    );
    settings(`${base}/api/v4/groups/acme/-/packages/maven`, 'rep');
    const viaGroup = await mvn(['validate'], child);
    expect(viaGroup.out).toContain('BUILD SUCCESS');
    expect(viaGroup.out).toMatch(
      /Downloaded from fauxlab: .*\/groups\/acme\/-\/packages\/maven\/com\/acme\/parent\/1\.0\/parent-1\.0\.pom/,
    );

    // The instance's registry finds `acme:pkgs` in the project `acme/pkgs`.
    settings(PROJECT());
    writeFileSync(join(home, 'pkgs.pom'), pom('acme', 'pkgs', '2.0', 'pom'));
    expect(
      (
        await mvn([
          `${DEPLOY_PLUGIN}:deploy-file`,
          `-Dfile=${join(home, 'pkgs.pom')}`,
          `-DpomFile=${join(home, 'pkgs.pom')}`,
          '-DrepositoryId=fauxlab',
          `-Durl=${PROJECT()}`,
        ])
      ).out,
    ).toContain('BUILD SUCCESS');
    const other = join(home, 'other');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'pom.xml'), pom('org.example', 'other', '1.0', 'pom', ['acme', 'pkgs', '2.0']));
    settings(`${base}/api/v4/packages/maven`, 'rep');
    const viaInstance = await mvn(['validate'], other);
    expect(viaInstance.out).toContain('BUILD SUCCESS');
    expect(viaInstance.out).toMatch(
      /Downloaded from fauxlab: .*\/api\/v4\/packages\/maven\/acme\/pkgs\/2\.0\/pkgs-2\.0\.pom/,
    );

    // A reader without the token: the private project's packages are not there for it.
    settings(`${base}/api/v4/packages/maven`, 'outsider');
    rmSync(join(home, 'repo', 'acme'), { recursive: true, force: true });
    const refused = await mvn(['validate'], other);
    expect(refused.code).not.toBe(0);
    expect(refused.out).toMatch(/403|Forbidden/);
  }, 300_000);
});
