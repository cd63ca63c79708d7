/**
 * The RubyGems registry (`lib/api/rubygem_packages.rb`) in process: `gem push`'s body upload and the
 * extraction that names the package, downloads, the dependency API's Marshal answer, the stub index
 * routes, the `rubygem_packages` flag and the credentials `authenticate_with` takes.
 */
import { describe, expect, it } from 'vitest';
import { body, call } from './world.js';
import { gem, gemFx, GEMS } from './gem-world.js';

type Fx = ReturnType<typeof gemFx>;
const push = (fx: Fx, bytes: Buffer, headers: Record<string, string> = { Authorization: 'dev' }) =>
  fx.app.request(`${GEMS}/api/v1/gems`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/octet-stream', ...headers },
    body: new Uint8Array(bytes),
  });
const get = (fx: Fx, path: string, headers: Record<string, string> = { Authorization: 'dev' }) =>
  fx.app.request(`${GEMS}/${path}`, { headers });
const gems = async (fx: Fx, query = 'package_type=rubygems') =>
  (await body(await call(fx, 'GET', `/projects/acme%2Fpkgs/packages?${query}`, 'rep'))) as {
    id: number;
    name: string;
    version: string;
    package_type: string;
    status: string;
  }[];

describe('RubyGems: upload and extraction', () => {
  it('POST api/v1/gems: 201, the package named from its gemspec, the file <name>-<version>.gem', async () => {
    const fx = gemFx();
    const bytes = gem('hello', '1.0.0');
    const res = await push(fx, bytes);
    expect([res.status, await res.json()]).toEqual([201, { message: '201 Created' }]);
    const [pkg, ...rest] = await gems(fx);
    expect(rest).toEqual([]);
    expect(pkg).toMatchObject({
      name: 'hello',
      version: '1.0.0',
      package_type: 'rubygems',
      status: 'default',
    });
    const files = (await body(
      await call(fx, 'GET', `/projects/acme%2Fpkgs/packages/${pkg!.id}/package_files`, 'rep'),
    )) as { file_name: string; size: number }[];
    expect(files.map((f) => [f.file_name, f.size])).toEqual([['hello-1.0.0.gem', bytes.length]]);
    const dl = await get(fx, 'gems/hello-1.0.0.gem');
    expect(dl.status).toBe(200);
    expect(Buffer.from(await dl.arrayBuffer()).equals(bytes)).toBe(true);
    expect(dl.headers.get('content-disposition')).toContain('filename="hello-1.0.0.gem"');
  });

  it('a second push of the same name and version joins the existing package', async () => {
    const fx = gemFx();
    await push(fx, gem('hello', '1.0.0'));
    await push(fx, gem('hello', '1.0.0'));
    await push(fx, gem('hello', '1.1.0'));
    const list = await gems(fx);
    expect(list.map((p) => `${p.name} ${p.version}`)).toEqual(['hello 1.0.0', 'hello 1.1.0']);
    const files = (await body(
      await call(fx, 'GET', `/projects/acme%2Fpkgs/packages/${list[0]!.id}/package_files`, 'rep'),
    )) as { file_name: string }[];
    expect(files.map((f) => f.file_name)).toEqual(['hello-1.0.0.gem', 'hello-1.0.0.gem']);
  });

  it('a body that is no gem is accepted, then deleted by the extraction with its package', async () => {
    const fx = gemFx();
    expect((await push(fx, Buffer.from('not a gem'))).status).toBe(201);
    expect(await gems(fx, 'package_type=rubygems&status=processing')).toEqual([]);
    expect(await gems(fx)).toEqual([]);
    expect((await get(fx, 'gems/package.gem')).status).toBe(404);
  });

  it('refusals: anonymous 401, a reporter 403, a bad token 401, an outsider 404', async () => {
    const fx = gemFx();
    expect(await (await push(fx, gem('a', '1.0.0'), {})).json()).toEqual({ message: '401 Unauthorized' });
    const rep = await push(fx, gem('a', '1.0.0'), { Authorization: 'rep' });
    expect([rep.status, await rep.json()]).toEqual([403, { message: '403 Forbidden' }]);
    expect((await push(fx, gem('a', '1.0.0'), { Authorization: 'nope' })).status).toBe(401);
    const out = await push(fx, gem('a', '1.0.0'), { Authorization: 'outsider' });
    expect([out.status, await out.json()]).toEqual([404, { message: '404 Project Not Found' }]);
    expect(await gems(fx)).toEqual([]);
  });

  it('deploy tokens and Private-Token headers work as the bare Authorization value does', async () => {
    const fx = gemFx();
    expect((await push(fx, gem('a', '1.0.0'), { Authorization: 'pkg-write' })).status).toBe(201);
    expect((await push(fx, gem('b', '1.0.0'), { 'Private-Token': 'dev' })).status).toBe(201);
    expect((await push(fx, gem('c', '1.0.0'), { Authorization: 'pkg-read' })).status).toBe(403);
    expect((await get(fx, 'gems/a-1.0.0.gem', { Authorization: 'pkg-read' })).status).toBe(200);
  });
});

describe('RubyGems: reads', () => {
  it('the index files and gemspecs are not served in 13.12 (404 after the filters)', async () => {
    const fx = gemFx();
    for (const path of ['specs.4.8.gz', 'latest_specs.4.8.gz', 'quick/Marshal.4.8/hello-1.0.0.gemspec.rz'])
      expect([path, await (await get(fx, path)).json()]).toEqual([path, { message: '404 Not Found' }]);
    expect((await get(fx, 'specs.4.8.gz', {})).status).toBe(401);
  });

  it('dependencies: 200 without gems (the API probe), Marshal of each version, 404 for an unknown gem', async () => {
    const fx = gemFx();
    await push(fx, gem('hello', '1.0.0', [['rake', '>=', '12.0']]));
    await push(fx, gem('hello', '1.1.0'));
    const probe = await get(fx, 'api/v1/dependencies');
    expect([probe.status, await probe.text()]).toEqual([200, '200']);
    const deps = await get(fx, 'api/v1/dependencies?gems=hello');
    expect(deps.headers.get('content-type')).toBe('application/octet-stream');
    // Marshal.dump([{name: 'hello', number: '1.0.0', platform: 'ruby', dependencies: [['rake', '>= 12.0']]},
    // {name: 'hello', number: '1.1.0', platform: 'ruby', dependencies: []}]), as Ruby 3.1 writes it.
    expect(Buffer.from(await deps.arrayBuffer()).toString('hex')).toBe(MARSHALLED);
    const unknown = await get(fx, 'api/v1/dependencies?gems=hello,nothere');
    expect([unknown.status, await unknown.json()]).toEqual([404, { message: 'nothere not found' }]);
  });

  it('a gem file of another project is not found through this one', async () => {
    const fx = gemFx();
    await push(fx, gem('hello', '1.0.0'));
    const res = await fx.app.request('/api/v4/projects/acme%2Fopen/packages/rubygems/gems/hello-1.0.0.gem', {
      headers: { Authorization: 'root' },
    });
    expect(res.status).toBe(404);
  });

  it('is off unless the rubygem_packages flag is on (404 Not Found)', async () => {
    const fx = gemFx({ flag: false });
    const res = await push(fx, gem('a', '1.0.0'));
    expect([res.status, await res.json()]).toEqual([404, { message: '404 Not Found' }]);
  });

  it('a project with its packages off refuses downloads and uploads (403)', async () => {
    const fx = gemFx();
    await call(fx, 'PUT', '/projects/acme%2Fpkgs', 'maint', { packages_enabled: false });
    expect((await push(fx, gem('a', '1.0.0'))).status).toBe(403);
    expect((await get(fx, 'gems/a-1.0.0.gem')).status).toBe(403);
  });
});

const MARSHALLED =
  '04085b077b093a096e616d6549220a68656c6c6f063a0645543a0b6e756d62657249220a312e302e30063b06543a0d706c6174666f726d49220972756279063b06543a11646570656e64656e636965735b065b0749220972616b65063b065449220c3e3d2031322e30063b06547b093b0049220a68656c6c6f063b06543b0749220a312e312e30063b06543b0849220972756279063b06543b095b00';
