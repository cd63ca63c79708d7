/**
 * The Go proxy (`lib/api/go_proxy.rb`) in process: the version list from the repository's tags, `.info`,
 * `.mod` and `.zip` of tags, branches and pseudo-versions, the module finder's placement of a module in the
 * project, the `go_proxy` flag, and who is refused how.
 */
import { inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { body, call } from './world.js';
import { GO, goFx } from './go-world.js';

type Fx = ReturnType<typeof goFx>;
const M = 'localhost/acme/gomod';
const get = (fx: Fx, path: string, headers: Record<string, string> = { 'Private-Token': 'dev' }) =>
  fx.app.request(`${GO}/${path}`, { headers });
const text = async (r: Response) => [r.status, await r.text()] as const;
const basic = (user: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

/** The entries of a zip (stored or deflated), from its local headers. */
function unzip(buf: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (buf.readUInt32LE(at) === 0x04034b50) {
    const method = buf.readUInt16LE(at + 8);
    const size = buf.readUInt32LE(at + 18);
    const nameLen = buf.readUInt16LE(at + 26);
    const extra = buf.readUInt16LE(at + 28);
    const name = buf.subarray(at + 30, at + 30 + nameLen).toString('utf8');
    const data = buf.subarray(at + 30 + nameLen + extra, at + 30 + nameLen + extra + size);
    out[name] = (method === 8 ? inflateRawSync(data) : data).toString('utf8');
    at += 30 + nameLen + extra + size;
  }
  return out;
}

async function shaOf(fx: Fx, tag: string): Promise<string> {
  const r = await call(fx, 'GET', `/projects/acme%2Fgomod/repository/tags/${tag}`, 'dev');
  return ((await body(r)) as { commit: { id: string } }).commit.id;
}

describe('Go proxy: list', () => {
  it('lists the semver tags whose go.mod names the module, in ref order, as text', async () => {
    const fx = goFx();
    const r = await get(fx, `${M}/@v/list`);
    expect(r.headers.get('content-type')).toBe('text/plain');
    // v2.0.0 needs a /v2 module path, v1.2.0's go.mod names another module, notsemver is no version.
    expect(await text(r)).toEqual([200, 'v1.0.0\nv1.1.0-rc.1']);
  });

  it('a module in a subdirectory has its own go.mod and versions; a missing one has none', async () => {
    const fx = goFx();
    expect(await text(await get(fx, `${M}/lib/@v/list`))).toEqual([200, 'v1.0.0\nv1.1.0-rc.1\nv1.2.0']);
    expect(await text(await get(fx, `${M}/nothere/@v/list`))).toEqual([200, '']);
    expect(await text(await get(fx, `${M}/__proto__/@v/list`))).toEqual([200, '']);
  });

  it('the name is cleaned as a path (Pathname#cleanpath) and double-decoded (CGI.unescape)', async () => {
    const fx = goFx();
    expect(await text(await get(fx, `${M}/sub/../lib/@v/list`))).toEqual([
      200,
      'v1.0.0\nv1.1.0-rc.1\nv1.2.0',
    ]);
    expect(await text(await get(fx, `${M}%252Flib/@v/list`))).toEqual([200, 'v1.0.0\nv1.1.0-rc.1\nv1.2.0']);
    // Climbing out of the project's path is another module: not this project's.
    expect(await text(await get(fx, `${M}/../../other/x/@v/list`))).toEqual([
      404,
      '{"message":"404 Not Found"}',
    ]);
  });

  it('case encoding: `!a` is `A`, so a capital in the project path must come encoded', async () => {
    const fx = goFx();
    // The project path is lowercase: `!acme` decodes to `Acme`, another path.
    expect((await get(fx, 'localhost/!acme/gomod/@v/list')).status).toBe(404);
  });

  it('another host or no host is no module here (404); a blank name is a 400', async () => {
    const fx = goFx();
    expect(await text(await get(fx, 'example.com/acme/gomod/@v/list'))).toEqual([
      404,
      '{"message":"404 Not Found"}',
    ]);
    expect(await text(await get(fx, '%2520/@v/list'))).toEqual([
      400,
      '{"message":"400 Bad request - Module Name attribute missing"}',
    ]);
  });
});

describe('Go proxy: versions', () => {
  it('.info answers the version and its commit time; .mod the go.mod', async () => {
    const fx = goFx();
    const info = await get(fx, `${M}/@v/v1.0.0.info`);
    expect(info.status).toBe(200);
    expect(await info.json()).toEqual({ Version: 'v1.0.0', Time: '2021-03-01T10:00:00.000+00:00' });
    const mod = await get(fx, `${M}/@v/v1.0.0.mod`);
    expect(mod.headers.get('content-type')).toBe('text/plain');
    expect(await mod.text()).toBe(`module ${M}\n\ngo 1.16\n`);
  });

  it('.zip: the module directory under module@version/, nested modules left out', async () => {
    const fx = goFx();
    const r = await get(fx, `${M}/@v/v1.0.0.zip`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/zip');
    expect(r.headers.get('content-disposition')).toBe(
      'attachment; filename="v1.0.0.zip"; filename*=UTF-8\'\'v1.0.0.zip',
    );
    expect(unzip(Buffer.from(await r.arrayBuffer()))).toEqual({
      [`${M}@v1.0.0/go.mod`]: `module ${M}\n\ngo 1.16\n`,
      [`${M}@v1.0.0/main.go`]: 'package gomod\n\nconst Version = "one"\n',
    });
    const lib = await get(fx, `${M}/lib/@v/v1.1.0-rc.1.zip`);
    expect(Object.keys(unzip(Buffer.from(await lib.arrayBuffer())))).toEqual([
      `${M}/lib@v1.1.0-rc.1/go.mod`,
      `${M}/lib@v1.1.0-rc.1/lib.go`,
    ]);
  });

  it('a branch named as a version serves as one (find_tag || find_branch)', async () => {
    const fx = goFx();
    expect(await (await get(fx, `${M}/@v/v1.5.0.info`)).json()).toEqual({
      Version: 'v1.5.0',
      Time: '2021-03-01T10:00:00.000+00:00',
    });
  });

  it('invalid versions are 404: wrong major for the path, go.mod of another module, unknown', async () => {
    const fx = goFx();
    for (const v of ['v2.0.0', 'v1.2.0', 'v9.9.9'])
      expect(await text(await get(fx, `${M}/@v/${v}.info`))).toEqual([404, '{"message":"404 Not Found"}']);
    // Not a version the route takes (capitals are case-encoded, no `v`): no such route.
    for (const v of ['V1.0.0', '1.0.0', 'v1.0'])
      expect(await text(await get(fx, `${M}/@v/${v}.info`))).toEqual([404, '{"error":"404 Not Found"}']);
  });

  it('pseudo-versions name a commit by 12 hex digits and its committed time', async () => {
    const fx = goFx();
    const sha = await shaOf(fx, 'v1.1.0-rc.1');
    const short = sha.slice(0, 12);
    for (const v of [`v0.0.0-20210302080000-${short}`, `v1.0.1-0.20210302080000-${short}`]) {
      const r = await get(fx, `${M}/@v/${v}.info`);
      expect([v, r.status]).toEqual([v, 200]);
      expect(await r.json()).toEqual({ Version: v, Time: '2021-03-02T08:00:00.000+00:00' });
    }
    const zip = unzip(
      Buffer.from(await (await get(fx, `${M}/@v/v0.0.0-20210302080000-${short}.zip`)).arrayBuffer()),
    );
    expect(zip[`${M}@v0.0.0-20210302080000-${short}/main.go`]).toContain('"two"');
    for (const v of [
      `v0.0.0-20210302080001-${short}`, // the time is not the commit's
      `v0.0.0-20210302080000-${sha.slice(0, 11)}`, // shorter than canonical
      'v0.0.0-20210302080000-000000000000', // no such commit
      `v1.0.1-20210302080000-${short}`, // a patch needs the `0.` prefix
    ])
      expect([v, (await get(fx, `${M}/@v/${v}.info`)).status]).toEqual([v, 404]);
  });
});

describe('Go proxy: access and the feature flag', () => {
  it('is off unless the go_proxy flag is on (404), for the project as actor', async () => {
    const fx = goFx('localhost', { flag: false });
    expect(await text(await get(fx, `${M}/@v/list`))).toEqual([404, '{"message":"404 Not Found"}']);
    const set = await call(fx, 'POST', '/features/go_proxy', 'root', {
      value: 'true',
      project: 'acme/gomod',
    });
    expect(set.status).toBe(201);
    expect((await get(fx, `${M}/@v/list`)).status).toBe(200);
  });

  it('credentials: a token, a personal access token as any Basic user; deploy tokens are not taken', async () => {
    const fx = goFx();
    expect((await get(fx, `${M}/@v/list`, basic('whoever', 'rep'))).status).toBe(200);
    expect((await get(fx, `${M}/@v/list`, { Authorization: 'Bearer dev' })).status).toBe(200);
    // Not a personal access token: 401.
    expect(await text(await get(fx, `${M}/@v/list`, basic('whoever', 'nope')))).toEqual([
      401,
      '{"message":"401 Unauthorized"}',
    ]);
    // A deploy token is not one of the Go proxy's credentials: the request is anonymous.
    expect((await get(fx, `${M}/@v/list`, { 'Deploy-Token': 'pkg-read' })).status).toBe(401);
  });

  it('anonymous 401, an outsider 404 Project Not Found, a guest 403', async () => {
    const fx = goFx();
    expect(await text(await get(fx, `${M}/@v/list`, {}))).toEqual([401, '{"message":"401 Unauthorized"}']);
    expect(await text(await get(fx, `${M}/@v/list`, { 'Private-Token': 'outsider' }))).toEqual([
      404,
      '{"message":"404 Project Not Found"}',
    ]);
    expect(await text(await get(fx, `${M}/@v/v1.0.0.zip`, { 'Private-Token': 'guest' }))).toEqual([
      403,
      '{"message":"403 Forbidden"}',
    ]);
  });

  it('a project with its packages off is 403', async () => {
    const fx = goFx();
    const off = await call(fx, 'PUT', '/projects/acme%2Fgomod', 'maint', { packages_enabled: false });
    expect(off.status).toBe(200);
    expect(await text(await get(fx, `${M}/@v/list`))).toEqual([403, '{"message":"403 Forbidden"}']);
  });
});
