import { describe, expect, it } from 'vitest';
import { Store, freezeNew } from '../../src/core/store.js';
import { tget } from '../../src/core/table.js';
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

  it('freezeNew: freezes what is new and leaves what is frozen alone', () => {
    const old = Object.freeze({ a: Object.freeze({ b: 1 }) });
    const fresh = { old, list: [{ c: 2 }], nested: { d: { e: 3 } } };
    expect(freezeNew(fresh)).toBe(fresh);
    expect(unfrozen(fresh)).toEqual([]);
    expect(fresh.old).toBe(old);
  });
});
