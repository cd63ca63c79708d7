import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../../src/core/respond.js';
import type { RequestEnv } from '../../src/host/env.js';
import {
  BODY_NOT_KEPT,
  DEFAULT_BODY_BYTES,
  Journal,
  PendingEntry,
  type HeldBody,
} from '../../src/testing/journal.js';
import { activeToday, smallWorld, world } from '../helpers.js';

const ROOT = { 'PRIVATE-TOKEN': 'root-api' };
const SECRET_JSON = '{"name":"x","token":"s3cret"}';

/** An instance whose `/held` route answers `body` (its journal caught from the route's binding). */
function heldWorld(body: () => Uint8Array<ArrayBuffer>, journal: object | false) {
  const seen: { journal?: Journal } = {};
  const fx = world({
    scenario: activeToday(smallWorld),
    journal: journal as never,
    routes: (r) => {
      r.get('/held', (c) => {
        seen.journal = (c.env as RequestEnv).fauxlab.journal;
        return jsonResponse(body(), 200);
      });
      r.get('/held/error', () => jsonResponse(body(), 422));
    },
  });
  return { fx, seen };
}

afterEach(() => vi.restoreAllMocks());

describe('the journal holds references, and does its work when read', () => {
  it('an entry holds the bytes its response was made of (a replay the kept ones), decoded and filtered only when read', async () => {
    const bytes = new Uint8Array(Buffer.from(SECRET_JSON));
    const on = heldWorld(() => bytes, { responseBodies: 'all' });
    const off = heldWorld(() => bytes, false);
    const decode = vi.spyOn(TextDecoder.prototype, 'decode');
    const parse = vi.spyOn(JSON, 'parse');
    const calls = () => decode.mock.calls.length + parse.mock.calls.length;
    // The same requests with the journal off: what the rest of the request path decodes and parses.
    for (let i = 0; i < 2; i++)
      expect((await off.fx.app.request('/api/v4/held', { headers: ROOT })).status).toBe(200);
    const without = calls();
    for (let i = 0; i < 2; i++)
      expect((await on.fx.app.request('/api/v4/held', { headers: ROOT })).status).toBe(200);
    expect(calls() - without).toBe(without);
    const journal = on.seen.journal!;
    // The route ran once: the second answer was replayed, and its entry holds the kept bytes, the same object.
    expect(journal.held(1)?.response).toBe(bytes);
    expect(journal.held(2)?.response).toBe(bytes);
    expect(journal.bodiesRead).toBe(0);
    const before = calls();
    const entries = on.fx.requests();
    expect(calls()).toBeGreaterThan(before);
    expect(entries.map((e) => e.responseBody)).toEqual([
      '{"name":"x","token":"[FILTERED]"}',
      '{"name":"x","token":"[FILTERED]"}',
    ]);
    expect(journal.bodiesRead).toBe(2);
    // Made once: the entry now holds its filtered text, not the response's bytes.
    expect(journal.held(1)).toBeUndefined();
    expect(journal.heldBytes).toBe(0);
  });

  it('an error body (recorded by default) is held, not read, when the answer is sent', async () => {
    let made: Uint8Array<ArrayBuffer> | undefined;
    const { fx, seen } = heldWorld(() => (made = new Uint8Array(Buffer.from(SECRET_JSON))), {});
    const decode = vi.spyOn(TextDecoder.prototype, 'decode');
    const parse = vi.spyOn(JSON, 'parse');
    await fx.app.request('/api/v4/held', { headers: ROOT });
    const res = await fx.app.request('/api/v4/held/error', { headers: ROOT });
    expect(res.status).toBe(422);
    expect(decode).not.toHaveBeenCalled();
    expect(parse).not.toHaveBeenCalled();
    expect(seen.journal!.held(2)?.response).toBe(made);
    expect(fx.requests.last()?.responseBody).toBe('{"name":"x","token":"[FILTERED]"}');
    expect(await res.text()).toBe(SECRET_JSON);
  });

  it('summaries (the CLI line per request) make no entry', async () => {
    const { fx, seen } = heldWorld(() => new Uint8Array(Buffer.from(SECRET_JSON)), {});
    await fx.app.request('/api/v4/held', { headers: ROOT });
    await fx.app.request('/api/v4/held/error?private_token=x', { headers: ROOT });
    await fx.app.request('/api/v4/nowhere', { method: 'POST', body: '{"a":1}', headers: ROOT });
    const summaries = fx.requests.summaries(1);
    expect(seen.journal!.bodiesRead).toBe(0);
    expect(seen.journal!.held(2)?.response).toBeDefined();
    expect(fx.requests.lastId).toBe(3);
    const entries = fx.requests({ since: 1 });
    expect(summaries).toEqual(
      entries.map((e) => ({
        id: e.id,
        method: e.method,
        path: e.path,
        status: e.status,
        durationMs: e.durationMs,
        user: e.user,
      })),
    );
    expect(summaries.map((s) => s.path)).toEqual(['/api/v4/held/error', '/api/v4/nowhere']);
  });
});

/** A pending GET entry holding `body` as its response. */
const pendingWith = (i: number, body: HeldBody) =>
  new PendingEntry(
    0,
    'GET',
    `http://x/api/v4/projects?page=${i}`,
    [],
    200,
    { 'content-type': 'application/json' },
    1,
    'GET /api/v4/projects',
    'root',
    undefined,
    undefined,
    body,
    undefined,
    4096,
  );

describe('the journal is bounded by bytes as well as entries', () => {
  it('1,000 answers of 62 KB keep at most bodyBytes of bodies (the newest); older entries keep the rest', () => {
    const journal = new Journal({ responseBodies: 'all' });
    const page = `[${'{"id":1,"name":"a project"},'.repeat(2214)}{"id":2}]`;
    expect(page.length).toBeGreaterThan(62_000);
    const bodies: Uint8Array[] = [];
    for (let i = 1; i <= 1000; i++) {
      const b = new Uint8Array(Buffer.from(page));
      bodies.push(b);
      journal.addPending(pendingWith(i, b));
      expect(journal.heldBytes).toBeLessThanOrEqual(DEFAULT_BODY_BYTES);
    }
    const kept = Math.floor(DEFAULT_BODY_BYTES / page.length);
    expect(journal.heldBytes).toBe(kept * page.length);
    // The newest `kept` hold their own bytes; every older one has let them go.
    for (let id = 1; id <= 1000; id++)
      expect(journal.held(id)?.response).toBe(id > 1000 - kept ? bodies[id - 1] : undefined);
    const entries = journal.list();
    expect(entries).toHaveLength(1000);
    expect(entries[0]).toMatchObject({
      id: 1,
      method: 'GET',
      path: '/api/v4/projects',
      query: { page: '1' },
      status: 200,
      route: 'GET /api/v4/projects',
      user: 'root',
      responseBody: BODY_NOT_KEPT,
      truncated: ['responseBody'],
    });
    expect(entries[999]!.responseBody).toBe(page.slice(0, 4096));
    expect(entries.filter((e) => e.responseBody === BODY_NOT_KEPT)).toHaveLength(1000 - kept);
  });

  it('bodyBytes: a request body counts as well, and 0 keeps none', async () => {
    const fx = world({ scenario: activeToday(smallWorld), journal: { bodyBytes: 0 } });
    const res = await fx.app.request('/api/v4/users/1', {
      method: 'PUT',
      body: JSON.stringify({ bio: 'x'.repeat(100) }),
      headers: { ...ROOT, 'content-type': 'application/json' },
    });
    await fx.app.request('/api/v4/projects/999999', { headers: ROOT });
    const [put, missing] = fx.requests();
    expect(put).toMatchObject({ status: res.status, body: BODY_NOT_KEPT, truncated: ['body'] });
    expect(missing).toMatchObject({ status: 404, responseBody: BODY_NOT_KEPT, explain: expect.any(String) });
    expect(() => new Journal({ bodyBytes: -1 })).toThrow(RangeError);
  });
});
