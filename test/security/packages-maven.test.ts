/**
 * Attacks on the Maven repository: prototype keys as group and artifact ids, paths and file names that
 * climb (`..`, encoded slashes), an upload declaring more than the bound refused before its body is read.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { reliabilityWorld } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const MVN = '/api/v4/projects/g-public%2Fp/packages/maven';
const auth = { 'PRIVATE-TOKEN': 'dev-api' };
type Fx = ReturnType<typeof createFauxlab>;

const put = (fx: Fx, path: string, bytes: string | Uint8Array<ArrayBuffer> = 'jar') =>
  fx.app.request(`${MVN}/${path}`, { method: 'PUT', headers: auth, body: bytes });
const get = (fx: Fx, path: string) => fx.app.request(`${MVN}/${path}`, { headers: auth });

describe('Maven repository attacks', () => {
  it('prototype keys as group ids, artifact ids, versions and file names stay plain data', async () => {
    const fx = createFauxlab({ scenario: reliabilityWorld });
    for (const key of ['__proto__', 'constructor', 'prototype', 'toString']) {
      const path = `${key}/${key}/${key}`;
      expect((await put(fx, `${path}/${key}.jar`, `bytes of ${key}`)).status).toBe(200);
      expect((await put(fx, `${key}/${key}/maven-metadata.xml`, `<m>${key}</m>`)).status).toBe(200);
      const res = await get(fx, `${path}/${key}.jar`);
      expect([res.status, await res.text()]).toEqual([200, `bytes of ${key}`]);
      expect(await (await get(fx, `${key}/${key}/maven-metadata.xml`)).text()).toBe(`<m>${key}</m>`);
    }
    await expectUnharmed(fx);
  });

  it('paths and file names with .. are names: nothing outside the package is read or written', async () => {
    const fx = createFauxlab({ scenario: reliabilityWorld });
    // `maven_path_regex` takes `..` segments (an encoded slash joins them to the path): the path is the
    // package's name, kept as given, and reaches no other project or package.
    const climb = '..%2F..%2F..%2Fprojects%2Fg-private%2Fp%2Fpackages%2Fmaven%2Fcom/app/1.0';
    expect((await put(fx, `${climb}/app.jar`, 'dots')).status).toBe(200);
    const res = await get(fx, `${climb}/app.jar`);
    expect([res.status, await res.text()]).toEqual([200, 'dots']);
    expect((await get(fx, 'com/app/1.0/app.jar')).status).toBe(404);
    const other = await fx.app.request('/api/v4/projects/g-private%2Fp/packages/maven/com/app/1.0/app.jar', {
      headers: { 'PRIVATE-TOKEN': 'root-api' },
    });
    expect(other.status).toBe(404);
    // A slash in the file name (encoded) is no file name: refused by `maven_file_name_regex`.
    expect((await put(fx, 'com/acme/app/1.0/..%2F..%2Fetc%2Fpasswd', 'x')).status).toBe(400);
    await expectUnharmed(fx);
  });

  it('an upload declaring more than the bound is refused before its body is read', async () => {
    // No journal: it records a request's body after the answer, which would read the endless stream.
    const fx = createFauxlab({ scenario: reliabilityWorld, maxUploadsTotal: 1 << 20, journal: false });
    const before = fx.state;
    let pulled = 0;
    // A body that never ends: answered while the stream is still open, so the body was never awaited.
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        if (pulled === 1) controller.enqueue(new Uint8Array(1024));
        return new Promise(() => {});
      },
    });
    const res = await fx.app.request(`${MVN}/com/acme/big/1.0/big.jar`, {
      method: 'PUT',
      headers: { ...auth, 'Content-Length': String(2 << 20) },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect([res.status, await res.json()]).toEqual([400, { message: '400 Bad request - File is too large' }]);
    expect(pulled).toBeLessThanOrEqual(1);
    // Without a declared length the bytes are counted as they come: the same answer.
    const big = await put(fx, 'com/acme/big/1.0/big.jar', new Uint8Array((1 << 20) + 1));
    expect(big.status).toBe(400);
    expect(fx.state).toBe(before);
    await expectUnharmed(fx);
  });
});
