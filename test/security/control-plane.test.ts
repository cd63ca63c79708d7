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

/** A request with exactly these headers (Node adds only Host, and Content-Length for a body). */
function rawRequest(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method, headers },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
const rawPost = (base: string, path: string, headers: Record<string, string>, body?: string) =>
  rawRequest(base, 'POST', path, headers, body);

describe('security: who may drive the control plane', () => {
  test("POST /__fauxlab/* typed as a form or text (what a page's <form> sends): 415, nothing happens", async () => {
    const fx = reliabilityFx();
    await fx.app.request('/__fauxlab/clock', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"advance":"1h"}',
    });
    const clock = fx.clock.iso();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])
      for (const path of ['/__fauxlab/reset', '/__fauxlab/faults', '/__fauxlab/clock']) {
        const res = await fx.app.request(path, {
          method: 'POST',
          headers: { 'Content-Type': type },
          body: '{"status":500,"advance":"1d"}',
        });
        expect(res.status).toBe(415);
        expect(await res.json()).toEqual({
          message:
            '415 Unsupported Media Type - send control plane POSTs as "Content-Type: application/json" (or with no type)',
        });
      }
    expect(fx.clock.iso()).toBe(clock);
    expect(fx.faults.list()).toEqual([]);
    await expectUnharmed(fx);
  });

  test('POST /__fauxlab/reset as curl -X POST and requests.post(url) send it (no body, no type): accepted over HTTP', async () => {
    const fx = reliabilityFx();
    const base = await listen(fx.app.fetch);
    const made = await fx.app.request('/api/v4/projects/g-public%2Fp/issues', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'dev-api', 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'made before the reset' }),
    });
    const issue = `/api/v4/projects/g-public%2Fp/issues/${((await made.json()) as { iid: number }).iid}`;
    const read = () => fx.app.request(issue, { headers: { 'PRIVATE-TOKEN': 'dev-api' } });
    expect((await read()).status).toBe(200);
    // curl -X POST: no Content-Type, no Content-Length; python-requests: Content-Length: 0.
    for (const headers of [
      {},
      { 'Content-Length': '0' },
      { 'User-Agent': 'python-requests/2.28.1' },
    ] as Record<string, string>[]) {
      const res = await rawPost(base, '/__fauxlab/reset', headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ message: 'reset' });
    }
    expect((await read()).status).toBe(404);
    // A body with no type is read as JSON, as with the type.
    const advanced = await rawPost(base, '/__fauxlab/clock', {}, '{"advance":"1h"}');
    expect(advanced.status).toBe(200);
    await expectUnharmed(fx);
  });

  test('a control-plane write a browser makes for another site (Origin, Sec-Fetch-Site): 403, nothing happens; the own origin passes', async () => {
    const fx = reliabilityFx({ baseUrl: 'http://gitlab.test:8080' });
    const base = await listen(fx.app.fetch);
    const port = new URL(base).port;
    const clock = fx.clock.iso();
    const json = { 'Content-Type': 'application/json' };
    for (const headers of [
      { Origin: 'http://evil.test' },
      { Origin: 'null' },
      { Origin: `http://127.0.0.1:${Number(port) + 1}` },
      { Origin: `https://127.0.0.1:${port}` },
      { Origin: 'not a url' },
      { 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'same-site' },
      { 'Sec-Fetch-Site': 'cross-site', Origin: `http://127.0.0.1:${port}` },
      { ...json, Origin: 'http://evil.test' },
      { ...json, 'Sec-Fetch-Site': 'cross-site' },
    ] as Record<string, string>[])
      for (const path of ['/__fauxlab/reset', '/__fauxlab/clock', '/__fauxlab/faults']) {
        const res = await rawPost(base, path, headers, '{"advance":"1d","status":500}');
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        expect((JSON.parse(res.body) as { message: string }).message).toMatch(
          /^403 Forbidden - the control plane refuses writes made for another site's page/,
        );
      }
    const del = await rawRequest(base, 'DELETE', '/__fauxlab/faults/1', { Origin: 'http://evil.test' });
    expect(del.status).toBe(403);
    expect(fx.clock.iso()).toBe(clock);
    expect(fx.faults.list()).toEqual([]);
    // The server's own origin (the Host asked for, or the base URL's) and same-origin fetch metadata pass.
    for (const headers of [
      { Origin: `http://127.0.0.1:${port}` },
      { Origin: 'http://gitlab.test:8080' },
      { 'Sec-Fetch-Site': 'same-origin', Origin: `http://127.0.0.1:${port}` },
      { 'Sec-Fetch-Site': 'none' },
    ] as Record<string, string>[])
      expect((await rawPost(base, '/__fauxlab/clock', headers, '{"advance":"1m"}')).status).toBe(200);
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
