import { describe, expect, test } from 'vitest';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const NAMES = [
  '__proto__[sudo]',
  '__proto__[polluted]',
  '__proto__[per_page]',
  'a[__proto__][x]',
  'a[][__proto__][x]',
  'constructor[prototype][x]',
  '__proto__',
  'constructor',
];

/** Names that can share one request (Rack refuses a name used both as a hash and an array or string). */
const TOGETHER = [
  '__proto__[sudo]',
  '__proto__[polluted]',
  'a[__proto__][x]',
  'b[][__proto__][x]',
  'constructor[prototype][x]',
];

describe('security: prototype pollution through parameter names', () => {
  test('GET /api/v4/version?__proto__[sudo]=root (and every bracketed form): Object.prototype untouched, users unaffected', async () => {
    const fx = reliabilityFx();
    for (const name of NAMES) {
      const q = `${encodeURIComponent(name)}=root`;
      expect((await fx.app.request(`/api/v4/version?${q}`)).status).toBe(401);
      expect((await fx.app.request(`/nowhere?${q}`)).status).toBe(404);
      const res = await fx.app.request(`/api/v4/projects?${q}`);
      expect(res.status).toBe(200);
    }
    fx.requests();
    await expectUnharmed(fx);
  });

  test('POST /api/v4/projects/:id/issues with __proto__ in a form, multipart or JSON body: an ordinary undeclared key', async () => {
    const fx = reliabilityFx();
    const path = '/api/v4/projects/g-public%2Fp/issues';
    const headers = { 'PRIVATE-TOKEN': 'dev-api' };
    const form = new URLSearchParams(TOGETHER.map((n) => [n, '1']));
    form.set('title', 'form');
    const a = await fx.app.request(path, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    expect(a.status).toBe(201);
    const multi = new FormData();
    for (const n of TOGETHER) multi.append(n, '1');
    multi.append('title', 'multipart');
    expect((await fx.app.request(path, { method: 'POST', headers, body: multi })).status).toBe(201);
    const json = await fx.app.request(path, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: '{"title":"json","__proto__":{"confidential":true,"polluted":"yes"},"extra":{"__proto__":{"x":1}}}',
    });
    expect(json.status).toBe(201);
    expect(((await json.json()) as { confidential: boolean }).confidential).toBe(false);
    fx.requests();
    await expectUnharmed(fx);
  });

  test('GET /api/v4/projects?__proto__[per_page]=1: the page size stays the default for everyone', async () => {
    const fx = reliabilityFx();
    await fx.app.request('/api/v4/projects?__proto__[per_page]=1&a[__proto__][per_page]=1');
    const res = await fx.app.request('/api/v4/projects', { headers: { 'PRIVATE-TOKEN': 'root-api' } });
    expect(((await res.json()) as unknown[]).length).toBeGreaterThan(1);
    await expectUnharmed(fx);
  });
});
