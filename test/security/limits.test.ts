import { mkdtempSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { autosave, parseStateFile, stateFileText } from '../../src/admin/state-file.js';
import { parseQuery, PARAMS_LIMIT } from '../../src/core/params.js';
import { localServers } from '../helpers.js';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const listen = localServers();
const BAD = { message: '400 Bad request' };

describe('security: bounded request parsing', () => {
  test('POST /api/v4/projects/:id/issues with 1,000,000 form params: 400 before authentication work, nothing written', async () => {
    const fx = reliabilityFx();
    const before = fx.state;
    const body = 'a=1&'.repeat(1_000_000) + 'title=t';
    for (const type of ['application/x-www-form-urlencoded']) {
      const res = await fx.app.request('/api/v4/projects/g-public%2Fp/issues', {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': 'dev-api', 'Content-Type': type },
        body,
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual(BAD);
    }
    const query = await fx.app.request(`/api/v4/projects?${'a=1&'.repeat(PARAMS_LIMIT)}x=1`);
    expect(query.status).toBe(400);
    expect(fx.state).toBe(before);
    expect(JSON.stringify(fx.requests()).length).toBeLessThan(100_000);
    await expectUnharmed(fx);
  });

  test('POST /api/v4/projects/:id/uploads with 5,000 multipart parts: 400, nothing written', async () => {
    const fx = reliabilityFx();
    const before = fx.state;
    const form = new FormData();
    for (let i = 0; i < 5_000; i++) form.append(`f${i}`, 'x');
    const res = await fx.app.request('/api/v4/projects/g-public%2Fp/uploads', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'dev-api' },
      body: form,
    });
    expect(res.status).toBe(400);
    expect(fx.state).toBe(before);
    await expectUnharmed(fx);
  });

  test('parseQuery: Rack 2.2 bounds: 4,096 params, 65,536 key characters per hash, depth 100', () => {
    expect(Object.keys(parseQuery('a=1&'.repeat(PARAMS_LIMIT - 1) + 'b=2'))).toEqual(['a', 'b']);
    expect(() => parseQuery('a=1&'.repeat(PARAMS_LIMIT) + 'b=2')).toThrow();
    expect(() => parseQuery(`${'k'.repeat(65_537)}=1`)).toThrow();
    expect(Object.keys(parseQuery(`${'k'.repeat(65_536)}=1`))).toHaveLength(1);
    expect(parseQuery(`a${'[b]'.repeat(99)}=1`)).toBeTruthy();
    expect(() => parseQuery(`a${'[b]'.repeat(100)}=1`)).toThrow();
  });
});

describe('security: aborts and the state file', () => {
  test('POST /api/v4/markdown whose client closes mid-body: journaled as 499, not logged as a crash', async () => {
    const logged: string[] = [];
    const fx = reliabilityFx({ logger: (m) => logged.push(m) });
    const base = new URL(await listen(fx.app.fetch));
    for (const path of ['/api/v4/markdown', '/api/v4/projects/g-public%2Fp/uploads']) {
      const socket = connect(Number(base.port), base.hostname);
      await new Promise((r) => socket.on('connect', r));
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"text":"a`,
      );
      await new Promise((r) => setTimeout(r, 100));
      socket.destroy();
    }
    for (let i = 0; i < 50 && fx.requests().length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(fx.requests().map((e) => [e.path, e.status])).toEqual([
      ['/api/v4/markdown', 499],
      ['/api/v4/projects/g-public%2Fp/uploads', 499],
    ]);
    expect(logged).toEqual([]);
    await expectUnharmed(fx);
  });

  test('--state-file: saved (atomically) shortly after a write, so a killed process keeps its acknowledged writes', async () => {
    const fx = reliabilityFx();
    const file = join(mkdtempSync(join(tmpdir(), 'fauxlab-autosave-')), 'state.json');
    const stop = autosave(
      fx,
      file,
      (e) => {
        throw e;
      },
      40,
    );
    try {
      const res = await fx.app.request('/api/v4/projects/g-public%2Fp/issues', {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': 'dev-api', 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'kept' }),
      });
      expect(res.status).toBe(201);
      const after = fx.state;
      let saved;
      for (let i = 0; i < 100 && saved?.state.issuables === undefined; i++) {
        await new Promise((r) => setTimeout(r, 20));
        try {
          saved = parseStateFile(readFileSync(file, 'utf8'));
        } catch {
          saved = undefined;
        }
      }
      expect(saved!.state.issuables.issues.size).toBe(after.issuables.issues.size);
    } finally {
      stop();
    }
  });
});

test('--state-file: a restored world keeps feature flags named __proto__ or constructor as ordinary flags', async () => {
  const fx = reliabilityFx();
  const root = { 'PRIVATE-TOKEN': 'root-api' };
  await fx.app.request('/api/v4/features/constructor?value=true', { method: 'POST', headers: root });
  const saved = parseStateFile(stateFileText(fx.snapshot()));
  const restored = reliabilityFx();
  restored.restore(saved);
  const res = await restored.app.request('/api/v4/features/__proto__?value=true', {
    method: 'POST',
    headers: root,
  });
  expect(res.status).toBe(201);
  const names = (
    (await (await restored.app.request('/api/v4/features', { headers: root })).json()) as { name: string }[]
  ).map((f) => f.name);
  expect(names.sort()).toEqual(['__proto__', 'constructor']);
  await expectUnharmed(restored);
});
