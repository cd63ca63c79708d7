/**
 * Attacks on the npm registry: prototype keys as package names, dependency names, versions and
 * dist-tags; tarballs past the limits refused before their base64 is decoded; file names that climb out
 * of the package; names the platform's regexes refuse.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { reliabilityWorld } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const NPM = '/api/v4/projects/g-public%2Fp/packages/npm';
const auth = { Authorization: 'Bearer dev-api' };
type Fx = ReturnType<typeof createFauxlab>;

function doc(
  name: string,
  version: string,
  data: string,
  extra: Record<string, unknown> = {},
  length?: number,
) {
  const bytes = Buffer.from(data, 'base64');
  return {
    name,
    'dist-tags': { latest: version },
    versions: {
      [version]: {
        name,
        version,
        dist: { shasum: createHash('sha1').update(bytes).digest('hex') },
        ...extra,
      },
    },
    _attachments: { [`${name}-${version}.tgz`]: { data, length: length ?? bytes.length } },
  };
}
const put = (fx: Fx, name: string, body: string) =>
  fx.app.request(`${NPM}/${encodeURIComponent(name)}`, {
    method: 'PUT',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body,
  });

describe('npm registry attacks', () => {
  it('prototype keys as the package name, dependency names and dist-tags stay plain data', async () => {
    const fx = createFauxlab({ scenario: reliabilityWorld });
    const d = doc('@g-public/__proto__', '1.0.0', Buffer.from('x').toString('base64'), {
      dependencies: JSON.parse('{"__proto__":"1.0.0","constructor":"2.0.0","toString":"3"}') as unknown,
    });
    // A `__proto__` key of the JSON text is an own key of the parsed document, not its prototype.
    const text = JSON.stringify(d).replace('"dist-tags":{"latest"', '"dist-tags":{"__proto__"');
    const res = await put(fx, '@g-public/__proto__', text);
    expect(res.status).toBe(200);
    const meta = await fx.app.request(`${NPM}/@g-public%2f__proto__`, { headers: auth });
    expect(meta.status).toBe(200);
    const raw = await meta.text();
    expect(raw).toContain('"dependencies":{"__proto__":"1.0.0","constructor":"2.0.0","toString":"3"}');
    // The publish's tag was named `__proto__`: kept as a tag, and `latest` falls back to the version.
    const tags = await fx.app.request(`${NPM}/-/package/@g-public%2f__proto__/dist-tags`, { headers: auth });
    expect(await tags.text()).toBe('{"__proto__":"1.0.0","latest":"1.0.0"}');
    const del = await fx.app.request(`${NPM}/-/package/@g-public%2f__proto__/dist-tags/constructor`, {
      method: 'DELETE',
      headers: { Authorization: 'Bearer maint-api' },
    });
    expect(del.status).toBe(404);
    const byName = await fx.app.request(`${NPM}/constructor`, { headers: auth });
    expect(byName.status).toBe(404);
    await expectUnharmed(fx);
  });

  it('a tarball past the instance bound is refused from the base64 length, before it is decoded', async () => {
    const fx = createFauxlab({ scenario: reliabilityWorld, maxUploadsTotal: 1 << 20 });
    const before = fx.state;
    // 3 MiB of base64 declaring 10 bytes: the declared length does not let it through.
    const big = 'A'.repeat(3 << 20);
    const res = await put(fx, '@g-public/big', JSON.stringify(doc('@g-public/big', '1.0.0', big, {}, 10)));
    expect([res.status, await res.json()]).toEqual([400, { message: 'File is too large.' }]);
    // A declared length past npm_max_file_size (500 MiB) is refused whatever the data.
    const liar = await put(
      fx,
      '@g-public/big',
      JSON.stringify(doc('@g-public/big', '1.0.0', 'eA==', {}, 600 << 20)),
    );
    expect([liar.status, await liar.json()]).toEqual([400, { message: 'File is too large.' }]);
    expect(fx.state).toBe(before);
    await expectUnharmed(fx);
  });

  it('a body past the request cap is refused with 413 while it streams', async () => {
    const fx = createFauxlab({ scenario: reliabilityWorld, maxBodySize: 1 << 20 });
    let sent = 0;
    const chunk = new TextEncoder().encode('A'.repeat(64 << 10));
    const stream = new ReadableStream<Uint8Array>({
      start(ctl) {
        ctl.enqueue(new TextEncoder().encode('{"name":"@g-public/s","_attachments":{"x":{"data":"'));
      },
      pull(ctl) {
        // Bounded: the server stops reading long before this runs out.
        if (sent >= 64 << 20) return ctl.close();
        sent += chunk.length;
        ctl.enqueue(chunk);
      },
    });
    const res = await fx.app.request(`${NPM}/@g-public%2fs`, {
      method: 'PUT',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(sent).toBeLessThan(8 << 20);
    await expectUnharmed(fx);
  });

  it('names that climb out of the package or break the regexes are refused; file names are no paths', async () => {
    const fx = createFauxlab({ scenario: reliabilityWorld });
    for (const name of [
      '@g-public/../../x',
      '@g-public/a/b',
      '@g-public/x\u0000',
      '@g-public/' + 'a.'.repeat(5000) + '!',
    ])
      expect((await put(fx, name, JSON.stringify(doc(name, '1.0.0', 'eA==')))).status).toBe(400);
    expect((await put(fx, '@g-public/ok', JSON.stringify(doc('@g-public/ok', '1.0.0', 'eA==')))).status).toBe(
      200,
    );
    for (const path of [
      `${NPM}/@g-public/ok/-/../../../../etc/passwd`,
      `${NPM}/@g-public/ok/-/@g-public/ok-1.0.0.tgz/..`,
      `${NPM}/@g-public/ok/-/%2e%2e%2f%2e%2e%2fetc%2fpasswd`,
    ]) {
      const res = await fx.app.request(path, { headers: auth });
      expect(res.status).toBe(404);
    }
    // A version of a pathological length against the semver pattern: refused, on RE2, at once.
    const v = `1.0.0-${'0a.'.repeat(20000)}!`;
    expect((await put(fx, '@g-public/v', JSON.stringify(doc('@g-public/v', v, 'eA==')))).status).toBe(400);
    await expectUnharmed(fx);
  });
});
