import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseStateFile, readStateFile, stateFileText, writeStateFile } from '../../src/admin/state-file.js';
import { createFauxlab } from '../../src/index.js';
import { json, smallWorld, world } from '../helpers.js';

const ROOT = { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' };
const dir = mkdtempSync(join(tmpdir(), 'fauxlab-snapshots-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const createUser = (fx: ReturnType<typeof world>, username: string) =>
  fx.app.request('/api/v4/users', {
    method: 'POST',
    headers: ROOT,
    body: JSON.stringify({
      username,
      name: username,
      email: `${username}@example.com`,
      password: 'password1',
    }),
  });
const userCount = (fx: ReturnType<typeof world>) => fx.state.users.size;

describe('snapshot() / restore()', () => {
  it('is O(1): a snapshot is the immutable root itself, whatever the world size', () => {
    const fx = createFauxlab({ scenario: { generate: { users: 2000 } } });
    const s = fx.snapshot();
    expect(s.state).toBe(fx.state);
    // Nothing is copied either way: the restored state is the snapshot's root itself (the time of
    // 10,000 round trips is in `npm run bench`).
    fx.restore(s);
    expect(fx.state).toBe(s.state);
  });

  it('restores state and clock; later writes do not leak into the snapshot', async () => {
    const fx = world();
    const s = fx.snapshot();
    expect((await createUser(fx, 'zed')).status).toBe(201);
    fx.clock.advance(3_600_000);
    fx.restore(s);
    expect(userCount(fx)).toBe(4);
    expect(fx.clock.iso()).toBe('2021-03-01T12:00:00.000Z');
    // The id sequence is part of the state: the next user gets the same id again.
    const res = await createUser(fx, 'zed');
    expect((await json(res)).id).toBe(5);
  });

  it('named snapshots: snapshot(name) keeps it, restore(name) returns to it, reset() forgets them', async () => {
    const fx = world();
    await createUser(fx, 'one');
    fx.snapshot('after-one');
    await createUser(fx, 'two');
    expect(fx.snapshots()).toEqual(['after-one']);
    fx.restore('after-one');
    expect(userCount(fx)).toBe(5);
    expect(() => fx.restore('nope')).toThrow(/no snapshot named "nope"/);
    fx.reset();
    expect(fx.snapshots()).toEqual([]);
    expect(userCount(fx)).toBe(4);
  });
});

describe('POST /__fauxlab/snapshots, POST /__fauxlab/snapshots/:name/restore', () => {
  const post = (fx: ReturnType<typeof world>, path: string, body?: unknown) =>
    fx.app.request(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('saves a named snapshot and restores it', async () => {
    const fx = world();
    let res = await post(fx, '/__fauxlab/snapshots', { name: 'clean' });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({ name: 'clean', now: '2021-03-01T12:00:00.000Z' });
    await createUser(fx, 'temp');
    await post(fx, '/__fauxlab/clock', { advance: '1d' });
    res = await fx.app.request('/__fauxlab/snapshots');
    expect(await json(res)).toEqual(['clean']);
    res = await post(fx, '/__fauxlab/snapshots/clean/restore');
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ name: 'clean', now: '2021-03-01T12:00:00.000Z' });
    expect(userCount(fx)).toBe(4);
  });

  it('an unknown name is a 404; a bad name a 400', async () => {
    const fx = world();
    let res = await post(fx, '/__fauxlab/snapshots/nope/restore');
    expect([res.status, await json(res)]).toEqual([404, { message: '404 Snapshot Not Found' }]);
    for (const body of [{}, { name: '' }, { name: 'a/b' }, { name: 7 }]) {
      res = await post(fx, '/__fauxlab/snapshots', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });
});

describe('state files', () => {
  it('round-trip the whole state and the clock exactly', async () => {
    const fx = world();
    await createUser(fx, 'persisted');
    fx.clock.advance(90_000);
    const file = join(dir, 'state.json');
    writeStateFile(file, fx.snapshot());
    const other = world();
    other.restore(readStateFile(file)!);
    expect(JSON.stringify(other.state)).toBe(JSON.stringify(fx.state));
    expect(other.clock.iso()).toBe('2021-03-01T12:01:30.000Z');
    // Tokens still work: the digests are in the state.
    const res = await other.app.request('/api/v4/users?username=persisted', { headers: ROOT });
    expect((await json(res))[0].username).toBe('persisted');
    // reset() still goes back to the scenario, not to the file.
    other.reset();
    expect(userCount(other)).toBe(4);
  });

  it('hold no token or password in clear', async () => {
    const fx = world();
    await createUser(fx, 'secretive');
    const text = stateFileText(fx.snapshot());
    for (const secret of ['root-api', 'alice-api', 'password1']) expect(text).not.toContain(secret);
  });

  it('a missing file is undefined; a bad one names the problem', () => {
    expect(readStateFile(join(dir, 'absent.json'))).toBeUndefined();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"kind":"something-else"}');
    expect(() => readStateFile(bad)).toThrow(/bad\.json: not a fauxlab state file/);
    expect(() => parseStateFile('{')).toThrow(/not valid JSON/);
    expect(() => parseStateFile('{"kind":"fauxlab-state","version":2}')).toThrow(/version 2/);
  });

  it('saved before an area existed, load with that area empty and the instance working', async () => {
    const fx = world();
    const saved = JSON.parse(stateFileText(fx.snapshot())) as { state: Record<string, unknown> };
    delete saved.state.jobs;
    delete saved.state.topics;
    delete (saved.state.idx as Record<string, unknown>).pipelinesBy;
    const other = world();
    other.restore(parseStateFile(JSON.stringify(saved)));
    expect(other.state.jobs).toEqual([]);
    expect(other.state.topics).toEqual(createFauxlab({}).state.topics);
    const res = await other.app.request('/api/v4/users?username=alice', { headers: ROOT });
    expect(res.status).toBe(200);
  });

  it('a snapshot kept from an earlier fauxlab restores with the missing areas empty', async () => {
    const fx = world();
    const { jobs: _jobs, ...older } = fx.snapshot().state;
    fx.restore({ state: older as typeof fx.state, clock: fx.clock.ms() });
    expect(fx.state.jobs).toEqual([]);
    expect((await fx.app.request('/api/v4/users/1', { headers: ROOT })).status).toBe(200);
  });

  it('are written atomically (no temporary file left behind)', () => {
    const file = join(dir, 'atomic.json');
    writeStateFile(file, createFauxlab({ scenario: smallWorld }).snapshot());
    expect(JSON.parse(readFileSync(file, 'utf8')).kind).toBe('fauxlab-state');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
