/**
 * Attacks on the RubyGems registry: prototype keys as gem names and dependency names, file names that
 * climb, a gzip bomb as metadata.gz, YAML alias bombs, tar headers that lie about sizes, uploads past
 * the instance bound.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { body, call } from '../resources/packages/world.js';
import { gem, gemspecYaml, gemWorld, GEMS, tar } from '../resources/packages/gem-world.js';
import { reliabilityWorld } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

type Fx = ReturnType<typeof createFauxlab>;
const push = (fx: Fx, bytes: Buffer) =>
  fx.app.request(`${GEMS}/api/v1/gems`, {
    method: 'POST',
    headers: { Authorization: 'dev', 'Content-Type': 'application/octet-stream' },
    body: new Uint8Array(bytes),
  });
const listed = async (fx: Fx) =>
  (
    (await body(await call(fx, 'GET', '/projects/acme%2Fpkgs/packages?package_type=rubygems', 'rep'))) as {
      name: string;
    }[]
  ).map((p) => p.name);
const metadataGem = (yaml: string | Buffer) =>
  tar([['metadata.gz', gzipSync(typeof yaml === 'string' ? Buffer.from(yaml) : yaml)]]);

describe('RubyGems registry attacks', () => {
  it('prototype keys as gem and dependency names stay plain data', async () => {
    const fx = createFauxlab({ scenario: gemWorld() });
    for (const name of ['__proto__', 'constructor', 'toString'])
      expect((await push(fx, gem(name, '1.0.0', [['__proto__', '>=', '0']]))).status).toBe(201);
    expect(await listed(fx)).toEqual(['__proto__', 'constructor', 'toString']);
    const deps = await fx.app.request(`${GEMS}/api/v1/dependencies?gems=__proto__,constructor`, {
      headers: { Authorization: 'dev' },
    });
    expect(deps.status).toBe(200);
    expect(
      (await fx.app.request(`${GEMS}/gems/__proto__-1.0.0.gem`, { headers: { Authorization: 'dev' } }))
        .status,
    ).toBe(200);
    await expectUnharmed(createFauxlab({ scenario: reliabilityWorld }));
  });

  it('file names that climb find nothing and leave the project', async () => {
    const fx = createFauxlab({ scenario: gemWorld() });
    await push(fx, gem('hello', '1.0.0'));
    for (const name of ['..%2F..%2Fpypi', '%2e%2e', '..%2Fhello-1.0.0.gem'])
      expect([
        name,
        (await fx.app.request(`${GEMS}/gems/${name}`, { headers: { Authorization: 'dev' } })).status,
      ]).toEqual([name, 404]);
  });

  it('a gem whose gemspec names an invalid package is dropped, as are bombs and lying tars', async () => {
    const fx = createFauxlab({ scenario: gemWorld() });
    const bomb = Buffer.alloc(64 * 1024 * 1024, 0x20);
    const aliases = `a: &a ["x","x","x","x","x","x","x","x","x","x"]\n${Array.from({ length: 12 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`).join('\n')}\nname: x\nversion: 1.0.0\n`;
    const lying = tar([['metadata.gz', gzipSync(gemspecYaml('liar', '1.0.0'))]]);
    lying.write('77777777777\0', 124);
    const started = Date.now();
    for (const bytes of [
      metadataGem(gemspecYaml('bad name!', '1.0.0')),
      metadataGem(bomb),
      metadataGem(aliases),
      lying,
      tar([['data.tar.gz', Buffer.from('x')]]),
    ])
      expect((await push(fx, bytes)).status).toBe(201);
    expect(await listed(fx)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(10_000);
    // Nothing stays behind, still processing.
    const processing = await call(fx, 'GET', '/projects/acme%2Fpkgs/packages?status=processing', 'rep');
    expect(await body(processing)).toEqual([]);
  });

  it('an upload past the instance bound is too large', async () => {
    const fx = createFauxlab({ scenario: gemWorld(), maxUploadsTotal: 1024 });
    const res = await push(fx, Buffer.concat([gem('big', '1.0.0'), Buffer.alloc(2048)]));
    expect([res.status, await res.json()]).toEqual([400, { message: '400 Bad request - File is too large' }]);
  });
});
