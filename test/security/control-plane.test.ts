import { request } from 'node:http';
import { describe, expect, test } from 'vitest';
import { adminTokenOf, exposureWarning } from '../../src/admin/guard.js';
import { localServers } from '../helpers.js';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const listen = localServers();

/** A GET with its own Host header (fetch does not let a caller set one). */
function get(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('security: who may drive the control plane', () => {
  test('POST /__fauxlab/reset as a cross-origin simple request (text/plain, form, none): 415, nothing happens', async () => {
    const fx = reliabilityFx();
    await fx.app.request('/__fauxlab/clock', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"advance":"1h"}',
    });
    const clock = fx.clock.iso();
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      undefined,
    ]) {
      for (const path of ['/__fauxlab/reset', '/__fauxlab/faults', '/__fauxlab/clock']) {
        const res = await fx.app.request(path, {
          method: 'POST',
          headers: type ? { 'Content-Type': type } : {},
          body: '{"status":500,"advance":"1d"}',
        });
        expect(res.status).toBe(415);
        expect(await res.json()).toEqual({
          message:
            '415 Unsupported Media Type - send control plane POSTs as "Content-Type: application/json"',
        });
      }
    }
    expect(fx.clock.iso()).toBe(clock);
    expect(fx.faults.list()).toEqual([]);
    await expectUnharmed(fx);
  });

  test('GET /__fauxlab/state with a rebound Host (evil.test): 403 over the network; loopback names and the base URL pass', async () => {
    const fx = reliabilityFx({ baseUrl: 'http://gitlab.test:8080' });
    const base = await listen(fx.app.fetch);
    const port = new URL(base).port;
    const clock = (host: string) => get(base, '/__fauxlab/clock', { Host: host });
    const refused = await clock(`evil.test:${port}`);
    expect(refused.status).toBe(403);
    expect((JSON.parse(refused.body) as { message: string }).message).toContain('"evil.test"');
    expect((await get(base, '/__fauxlab/state', { Host: 'evil.test' })).status).toBe(403);
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `127.9.9.9:${port}`,
      `[::1]:${port}`,
      'gitlab.test:8080',
    ])
      expect((await clock(host)).status, host).toBe(200);
    expect((await get(base, '/api/v4/version', { Host: 'evil.test' })).status).toBe(401);
    await expectUnharmed(fx);
  });

  test('GET /__fauxlab/clock with --admin-token: any Host, Bearer in any case; missing and wrong tokens named apart', async () => {
    const fx = reliabilityFx({ controlPlaneToken: 's3cret' });
    const base = await listen(fx.app.fetch);
    const clock = (headers: Record<string, string>) =>
      get(base, '/__fauxlab/clock', { Host: 'shared.example', ...headers });
    for (const auth of ['Bearer s3cret', 'bearer s3cret', 'BEARER  s3cret'])
      expect((await clock({ Authorization: auth })).status).toBe(200);
    const missing = await clock({});
    expect(missing.status).toBe(401);
    expect(missing.body).toMatch(/admin token missing/);
    const wrong = await clock({ Authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.body)).toEqual({ message: '401 Unauthorized - wrong admin token' });
    await expectUnharmed(fx);
  });

  test('fauxlab serve --admin-token / FAUXLAB_ADMIN_TOKEN: the flag, else the variable; an empty one is refused', () => {
    expect(adminTokenOf('flag', 'env')).toBe('flag');
    expect(adminTokenOf(undefined, 'env')).toBe('env');
    expect(adminTokenOf(undefined, undefined)).toBeUndefined();
    expect(() => adminTokenOf('', undefined)).toThrow(
      '--admin-token is empty: give a token, or leave it out',
    );
    expect(() => adminTokenOf(undefined, ' ')).toThrow('FAUXLAB_ADMIN_TOKEN is empty');
  });

  test('fauxlab serve --host 0.0.0.0 without a token: a warning with the reachable URL; none on loopback or with a token', () => {
    const w = exposureWarning('0.0.0.0', 4000, undefined)!;
    expect(w).toMatch(/^fauxlab: warning: listening on 0\.0\.0\.0 without an admin token/);
    expect(w).toMatch(/http:\/\/[^ ]+:4000/);
    expect(w).not.toContain('127.0.0.1');
    expect(exposureWarning('192.168.1.5', 4000, undefined)).toContain('http://192.168.1.5:4000');
    expect(exposureWarning('127.0.0.1', 4000, undefined)).toBeUndefined();
    expect(exposureWarning('::1', 4000, undefined)).toBeUndefined();
    expect(exposureWarning('0.0.0.0', 4000, 'token')).toBeUndefined();
  });
});
