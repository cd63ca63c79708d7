import { describe, expect, it } from 'vitest';
import { Store } from '../../src/core/store.js';
import { freezeNew, tdelete, tget, tset } from '../../src/core/table.js';
import { emptyWorld } from '../../src/resources/index.js';
import { createUser } from '../../src/resources/users/model.js';

const NOW = '2021-03-01T12:00:00.000Z';

/**
 * Every plain object or array reachable from `value` that is not frozen, by path. Class instances (the
 * repository's object store) are outside immer's drafting and freezing by design, and are skipped.
 */
function unfrozen(value: unknown, path = '$', out: string[] = []): string[] {
  if (typeof value !== 'object' || value === null) return out;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== null && proto !== Object.prototype && proto !== Array.prototype) return out;
  if (!Object.isFrozen(value)) out.push(path);
  for (const [k, v] of Object.entries(value)) unfrozen(v, `${path}.${k}`, out);
  return out;
}

describe('Store', () => {
  it('store.write: the committed state is frozen through, the new records included', () => {
    const store = new Store(emptyWorld());
    store.write((d) => createUser(d, { username: 'alice', name: 'Alice', email: 'alice@example.com' }, NOW));
    store.write((d) => {
      createUser(d, { username: 'bob', name: 'Bob', email: 'bob@example.com' }, NOW);
      tget(d.users, 1)!.identities.push({
        provider: 'ldap',
        extern_uid: 'uid=alice',
        saml_provider_id: null,
      });
    });
    expect(unfrozen(store.state)).toEqual([]);
    expect(Object.isFrozen(tget(store.state.users, 1)!.identities[0])).toBe(true);
  });

  it('store.write: records a write leaves alone keep their identity', () => {
    const store = new Store(emptyWorld());
    store.write((d) => createUser(d, { username: 'alice', name: 'Alice', email: 'alice@example.com' }, NOW));
    const alice = tget(store.state.users, 1);
    store.write((d) => createUser(d, { username: 'bob', name: 'Bob', email: 'bob@example.com' }, NOW));
    expect(tget(store.state.users, 1)).toBe(alice);
  });

  it('store.write: a write that throws leaves the state as it was', () => {
    const store = new Store(emptyWorld());
    const before = store.state;
    expect(() =>
      store.write((d) => {
        createUser(d, { username: 'alice', name: 'Alice', email: 'alice@example.com' }, NOW);
        throw new Error('no');
      }),
    ).toThrow('no');
    expect(store.state).toBe(before);
    expect(unfrozen(store.state)).toEqual([]);
  });

  it('store.write: what a write adds, replaces, removes or moves is frozen, however deep', () => {
    const store = new Store(emptyWorld());
    for (let i = 0; i < 70; i++)
      store.write((d) =>
        createUser(d, { username: `u${i}`, name: `U ${i}`, email: `u${i}@example.com` }, NOW),
      );
    store.write((d) => {
      // Empties a leaf bucket (tdelete removes it and its mid), then touches what remains.
      for (let id = 1; id <= 63; id++) tdelete(d.users, id);
      tget(d.users, 64)!.identities.push({ provider: 'ldap', extern_uid: 'a', saml_provider_id: null });
      d.settings = Object.assign(Object.create(null) as Record<string, unknown>, {
        nested: { deep: [{ x: 1 }] },
      });
      d.jobs.push({ id: 1, kind: 'k', due_ms: 1, payload: { list: [{ a: {} }] } });
    });
    store.write((d) => {
      const moved = tget(d.users, 65)!;
      moved.custom_attributes = { team: 'a' };
      tset(d.users, 5000, moved);
      d.jobs.length = 0;
      d.jobs.push({ id: 2, kind: 'k', due_ms: 2, payload: {} });
    });
    expect(unfrozen(store.state)).toEqual([]);
    expect(tget(store.state.users, 5000)!.custom_attributes).toEqual({ team: 'a' });
    expect(tget(store.state.users, 1)).toBeUndefined();
  });

  it('store.write: items an array method moves, inserts or replaces are frozen (the store walks only assigned slots)', () => {
    const store = new Store(emptyWorld());
    const job = (id: number) => ({ id, kind: 'k', due_ms: id, payload: { list: [{ n: id }] } });
    store.write((d) => {
      for (let i = 1; i <= 5; i++) d.jobs.push(job(i));
    });
    const moves = (jobs: { id: number }[]) => {
      jobs.unshift(job(0));
      jobs.splice(2, 1, job(10), job(11));
      jobs.sort((a, b) => b.id - a.id);
      jobs.reverse();
      jobs[3] = job(20);
      jobs.copyWithin(0, 4);
      jobs.fill(job(30), 6);
    };
    store.write((d) => moves(d.jobs));
    const plain = [1, 2, 3, 4, 5].map(job);
    moves(plain);
    expect(unfrozen(store.state)).toEqual([]);
    expect(store.state.jobs.map((j) => j.id)).toEqual(plain.map((j) => j.id));
    expect(store.state.jobs.map((j) => j.id)).toEqual([5, 10, 11, 20, 5, 10, 30]);
  });

  it('freezeNew: freezes what is new and leaves what is frozen alone', () => {
    const old = Object.freeze({ a: Object.freeze({ b: 1 }) });
    const fresh = { old, list: [{ c: 2 }], nested: { d: { e: 3 } } };
    expect(freezeNew(fresh)).toBe(fresh);
    expect(unfrozen(fresh)).toEqual([]);
    expect(fresh.old).toBe(old);
  });
});
