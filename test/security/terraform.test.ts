import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/index.js';
import { reliabilityWorld } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const fxOf = (maxUploadsTotal?: number) =>
  createFauxlab({ scenario: reliabilityWorld, ...(maxUploadsTotal !== undefined && { maxUploadsTotal }) });
const STATE = '/api/v4/projects/g-private%2Fp/terraform/state';
const AUTH = { Authorization: `Basic ${Buffer.from('maint:maint-api').toString('base64')}` };
const post = (fx: ReturnType<typeof fxOf>, path: string, data: string) =>
  fx.app.request(path, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': 'application/json' },
    body: data,
  });

describe('Terraform state: attacks', () => {
  it('prototype keys as state names and in lock bodies are plain names and fields', async () => {
    const fx = fxOf();
    for (const name of ['__proto__', 'constructor', 'hasOwnProperty', 'toString']) {
      expect((await post(fx, `${STATE}/${name}`, JSON.stringify({ serial: 1, name }))).status).toBe(200);
      const got = await fx.app.request(`${STATE}/${name}`, { headers: AUTH });
      expect([got.status, JSON.parse(await got.text())]).toEqual([200, { serial: 1, name }]);
    }
    // A state of a name no one posted is still missing.
    expect((await fx.app.request(`${STATE}/valueOf`, { headers: AUTH })).status).toBe(404);
    const lock = await post(
      fx,
      `${STATE}/__proto__/lock`,
      '{"__proto__":{"polluted":1},"ID":"x","Operation":"o","Info":"","Who":"w","Version":"1","Created":"c","Path":""}',
    );
    expect(lock.status).toBe(200);
    expect(JSON.parse(await lock.text())).toMatchObject({ ID: 'x', Who: 'maint' });
    await expectUnharmed(fx);
  });

  it('states past the instance’s upload total: 413 and nothing kept, while smaller ones still fit', async () => {
    const fx = fxOf(4096);
    const big = JSON.stringify({ serial: 1, pad: 'x'.repeat(5000) });
    const res = await post(fx, `${STATE}/big`, big);
    expect([res.status, await res.json()]).toEqual([413, { message: '413 Request Entity Too Large' }]);
    expect(fx.state.terraform.bytes).toBe(0);
    expect((await fx.app.request(`${STATE}/big`, { headers: AUTH })).status).toBe(404);
    const small = JSON.stringify({ serial: 1, pad: 'x'.repeat(3000) });
    expect((await post(fx, `${STATE}/small`, small)).status).toBe(200);
    // The total counts every version: the next one does not fit any more.
    expect(
      (await post(fx, `${STATE}/small`, JSON.stringify({ serial: 2, pad: 'x'.repeat(3000) }))).status,
    ).toBe(413);
    await expectUnharmed(fx);
  });

  it('a lock ID past 255 characters is refused before anything is locked', async () => {
    const fx = fxOf();
    const info = {
      ID: 'i'.repeat(100_000),
      Operation: 'o',
      Info: '',
      Who: 'w',
      Version: '1',
      Created: 'c',
      Path: '',
    };
    const res = await post(fx, `${STATE}/prod/lock`, JSON.stringify(info));
    expect(res.status).toBe(400);
    expect(Object.keys(fx.state.terraform.states)).toHaveLength(
      Object.keys(fxOf().state.terraform.states).length,
    );
    expect((await post(fx, `${STATE}/prod/lock`, JSON.stringify({ ...info, ID: 'ok' }))).status).toBe(200);
    await expectUnharmed(fx);
  });

  it('module uploads: traversal and prototype names refused or plain, nothing kept for a refused one', async () => {
    const fx = fxOf();
    const MOD = '/api/v4/projects/g-private%2Fp/packages/terraform/modules';
    const put = (path: string) =>
      fx.app.request(`${MOD}/${path}`, {
        method: 'PUT',
        headers: { 'PRIVATE-TOKEN': 'maint-api' },
        body: new Uint8Array([1, 2, 3]),
      });
    const before = fx.state.packages.bytes;
    for (const bad of [
      '..%2F..%2Fetc/aws/1.0.0/file',
      '__proto__/aws/1.0.0/file',
      'a/..%5C..%5Cx/1.0.0/file',
    ])
      expect([bad, (await put(bad)).status]).toEqual([bad, 500]);
    expect((await put('..%2F../aws/1.0.0/file')).status).toBe(500);
    expect(fx.state.packages.bytes).toBe(before);
    // A name the regex takes is a plain name, whatever it spells.
    expect((await put('constructor/aws/1.0.0/file')).status).toBe(201);
    const v = await fx.app.request(
      '/api/v4/packages/terraform/modules/v1/g-private/constructor/aws/versions',
      {
        headers: { Authorization: 'Bearer maint-api' },
      },
    );
    expect((await v.json()) as unknown).toMatchObject({ modules: [{ versions: [{ version: '1.0.0' }] }] });
    await expectUnharmed(fx);
  });

  it('module uploads past the instance’s upload total: 400 File is too large, nothing kept', async () => {
    const fx = fxOf(4096);
    const res = await fx.app.request(
      '/api/v4/projects/g-private%2Fp/packages/terraform/modules/big/aws/1.0.0/file',
      {
        method: 'PUT',
        headers: { 'PRIVATE-TOKEN': 'maint-api' },
        body: new Uint8Array(5000),
      },
    );
    expect([res.status, await res.json()]).toEqual([400, { message: '400 Bad request - File is too large' }]);
    expect(fx.state.packages.bytes).toBe(0);
    await expectUnharmed(fx);
  });
});
