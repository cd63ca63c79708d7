/**
 * Attacks on the PyPI registry: prototype keys as package names and form fields, file names that climb
 * out of their directory, package names with `..`, uploads past the instance bound, pathological
 * versions against `pypi_version_regex`.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { reliabilityWorld } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const PYPI = '/api/v4/projects/g-public%2Fp/packages/pypi';
const auth = { 'PRIVATE-TOKEN': 'dev-api' };
type Fx = ReturnType<typeof createFauxlab>;

function upload(fx: Fx, fields: Record<string, string>, fileName: string, bytes = new Uint8Array([1, 2, 3])) {
  const f = new FormData();
  for (const [k, v] of Object.entries({ requires_python: '', ...fields })) f.set(k, v);
  f.set('content', new Blob([bytes]), fileName);
  return fx.app.request(PYPI, { method: 'POST', headers: auth, body: f });
}

describe('PyPI registry attacks', () => {
  it('prototype keys as names and form fields stay plain data', async () => {
    const fx = createFauxlab({ scenario: reliabilityWorld });
    for (const name of ['__proto__', 'constructor', 'toString']) {
      const res = await upload(
        fx,
        { name, version: '1.0', __proto__x: 'y', 'constructor[prototype]': 'z' },
        `${name}-1.0.tar.gz`,
      );
      expect(res.status).toBe(201);
      // pip asks for the PEP 503 name (`__proto__` is `-proto-`).
      const index = await fx.app.request(`${PYPI}/simple/${name.replace(/[-_.]+/g, '-').toLowerCase()}`, {
        headers: auth,
      });
      expect(index.status).toBe(200);
      expect(await index.text()).toContain(`>${name}-1.0.tar.gz</a>`);
    }
    await expectUnharmed(fx);
  });

  it('a file name that climbs out is kept as its base name; an index path with .. is refused', async () => {
    const fx = createFauxlab({ scenario: reliabilityWorld });
    expect((await upload(fx, { name: 'climb', version: '1.0' }, '../../../etc/passwd.whl')).status).toBe(201);
    const html = await (await fx.app.request(`${PYPI}/simple/climb`, { headers: auth })).text();
    expect(html).toContain('>passwd.whl</a>');
    expect(html).not.toContain('etc');
    // `package_name_regex` takes `../x` (segments of dots): a name is data, and the index route's
    // `file_path` check refuses it as a path.
    expect((await upload(fx, { name: '../x', version: '1.0' }, 'x.whl')).status).toBe(201);
    const up = await fx.app.request(`${PYPI}/simple/..%2F..%2Fsecret`, { headers: auth });
    expect(up.status).toBe(400);
    await expectUnharmed(fx);
  });

  it('an upload past the instance bound is refused before it is kept; a pathological version is refused on RE2', async () => {
    const fx = createFauxlab({ scenario: reliabilityWorld, maxUploadsTotal: 1 << 20 });
    const before = fx.state;
    const res = await upload(fx, { name: 'big', version: '1.0' }, 'big.whl', new Uint8Array(2 << 20));
    expect([res.status, await res.json()]).toEqual([400, { message: '400 Bad request - File is too large' }]);
    const v = `1${'.0'.repeat(20000)}-${'-'.repeat(20000)}!`;
    expect((await upload(fx, { name: 'v', version: v }, 'v.whl')).status).toBe(400);
    expect(fx.state).toBe(before);
    await expectUnharmed(fx);
  });
});
