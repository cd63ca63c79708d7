import { produce } from 'immer';
import { describe, expect, it } from 'vitest';
import { stateFileText, parseStateFile } from '../../src/admin/state-file.js';
import { Store } from '../../src/core/store.js';
import {
  emptyIndex,
  emptyTable,
  idelete,
  ientries,
  iget,
  iset,
  madd,
  mcount,
  mget,
  mhas,
  mremove,
  tdelete,
  tget,
  tkeys,
  tleaves,
  tset,
  tvalues,
  type Index,
  type MultiIndex,
  type Table,
} from '../../src/core/table.js';
import { createFauxlab } from '../../src/index.js';
import { emptyWorld } from '../../src/resources/index.js';
import { createUser } from '../../src/resources/users/model.js';

const NOW = '2021-03-01T12:00:00.000Z';

interface Rec {
  id: number;
}

describe('tables', () => {
  it('tset/tget/tdelete: ids across levels and top slots, ascending, size kept', () => {
    const t = emptyTable<Rec>();
    const ids = [0, 1, 63, 64, 1023, 4096, 65_535, 262_143, 262_144, 1_000_000, 5_000_000, 0x7fffffff];
    for (const id of [...ids].reverse()) tset(t, id, { id });
    expect(t.size).toBe(ids.length);
    expect(tkeys(t)).toEqual(ids);
    expect(tvalues(t).map((r) => r.id)).toEqual(ids);
    for (const id of ids) expect(tget(t, id)).toEqual({ id });
    tset(t, 64, { id: 64 });
    expect(t.size).toBe(ids.length);
    expect(tdelete(t, 64)).toBe(true);
    expect(tdelete(t, 64)).toBe(false);
    expect(tget(t, 64)).toBeUndefined();
    expect(t.size).toBe(ids.length - 1);
  });

  it('tget: ids a table cannot hold find nothing (no wrap-around onto another slot)', () => {
    const t = emptyTable<Rec>();
    tset(t, 5, { id: 5 });
    for (const id of [2 ** 32 + 5, 2 ** 31 + 5, -5, 5.5, Number.NaN, Infinity, -0.5])
      expect(tget(t, id)).toBeUndefined();
    expect(tdelete(t, 2 ** 32 + 5)).toBe(false);
    expect(() => tset(t, 2 ** 32 + 5, { id: 1 })).toThrow(RangeError);
    expect(tget(t, 5)).toEqual({ id: 5 });
  });

  it('tdelete: an emptied leaf and the levels above it go, so an emptied table is an empty one', () => {
    const t = emptyTable<Rec>();
    for (const id of [3, 70, 300_000]) tset(t, id, { id });
    for (const id of [3, 70, 300_000]) tdelete(t, id);
    expect(t).toEqual(emptyTable());
    expect([...tleaves(t)]).toEqual([]);
  });

  it('tleaves: a leaf keeps its identity through a write elsewhere, and a written leaf is a new one', () => {
    let t = Object.freeze(emptyTable<Rec>()) as Table<Rec>;
    t = produce(t, (d) => {
      for (let id = 1; id <= 200; id++) tset(d as Table<Rec>, id, { id });
    });
    const before = new Map(tleaves(t));
    t = produce(t, (d) => tset(d as Table<Rec>, 150, { id: 150 }));
    const after = new Map(tleaves(t));
    expect([...after.keys()]).toEqual([...before.keys()]);
    expect(after.get('0')).toBe(before.get('0'));
    expect(after.get('1')).toBe(before.get('1'));
    expect(after.get('2')).not.toBe(before.get('2'));
    expect(after.get('3')).toBe(before.get('3'));
  });

  it('tset through the store: a path written without immer, then read, changed, deleted and walked in the same write, equals the same operations on plain objects', () => {
    interface Row {
      id: number;
      n: number;
      tags?: unknown;
    }
    const fill = (t: Table<Row>) => {
      for (let id = 1; id <= 3000; id += 3) tset(t, id, { id, n: 0 });
    };
    // Each round starts with additions (the direct path), then reads a committed row of a written leaf
    // and of an untouched one, changes them, adds again, deletes, and walks every record.
    const rounds: ((t: Table<Row>) => void)[] = [
      (t) => {
        for (let id = 3001; id <= 3200; id++) tset(t, id, { id, n: 1 });
        tget(t, 3001)!.n = 7;
        tset(t, 3002, { id: 3002, n: 2 });
      },
      (t) => {
        tset(t, 2999, { id: 2999, n: 1 });
        tget(t, 2998)!.n += 5;
        tget(t, 1)!.n += 5;
        tset(t, 3301, { id: 3301, n: 1 });
      },
      (t) => {
        tset(t, 4000, { id: 4000, n: 1 });
        expect(tdelete(t, 4)).toBe(true);
        tset(t, 4001, { id: 4001, n: 1 });
      },
      (t) => {
        tset(t, 600_000, { id: 600_000, n: 1 });
        for (const r of tvalues(t)) if (r.id % 500 === 1) r.n += 1;
      },
      (t) => {
        // Setting what a slot holds changes nothing; a record moved to another id is immer's draft.
        tset(t, 10, tget(t, 10)!);
        tset(t, 5000, { id: 5000, n: 1 });
        tset(t, 5001, tget(t, 7)!);
      },
    ];
    for (const round of rounds) {
      const plain = emptyTable<Row>();
      fill(plain);
      const before = JSON.stringify(plain);
      const world = emptyWorld();
      const store = new Store({ ...world, rows: JSON.parse(before) as Table<Row> } as typeof world);
      const committed = (store.state as unknown as { rows: Table<Row> }).rows;
      store.write((d) => round((d as unknown as { rows: Table<Row> }).rows));
      round(plain);
      const after = (store.state as unknown as { rows: Table<Row> }).rows;
      expect(JSON.stringify(after)).toBe(JSON.stringify(plain));
      expect(after.size).toBe(plain.size);
      expect(JSON.stringify(committed)).toBe(before);
      expect(tget(after, 2995)).toBe(tget(committed, 2995));
      const nodes: unknown[] = [after];
      for (let n = nodes.pop(); n !== undefined; n = nodes.pop())
        if (typeof n === 'object' && n !== null) {
          expect(Object.isFrozen(n)).toBe(true);
          nodes.push(...Object.values(n));
        }
    }
  });

  it('tset through the store: a new record holding a draft of the state holds its final value once committed', () => {
    const store = new Store(emptyWorld());
    store.write((d) => createUser(d, { username: 'alice', name: 'Alice', email: 'alice@example.com' }, NOW));
    store.write((d) => {
      d.jobs.push({ id: 1, kind: 'k', due_ms: 1, payload: {} });
      const alice = tget(store.state.users, 1)!;
      tset(d.users, 2, { ...alice, id: 2, custom_attributes: d.jobs[0]!.payload as Record<string, string> });
      d.jobs[0]!.payload.team = 'a';
    });
    const bob = tget(store.state.users, 2)!;
    expect(bob.custom_attributes).toEqual({ team: 'a' });
    expect(bob.custom_attributes).toBe(store.state.jobs[0]!.payload);
    expect(Object.isFrozen(bob.custom_attributes)).toBe(true);
    expect(JSON.parse(JSON.stringify(bob))).toEqual(bob);
  });

  it('a state read back from JSON is the state that was written', () => {
    const t = emptyTable<Rec>();
    for (const id of [1, 64, 99_999]) tset(t, id, { id });
    const ix = emptyIndex();
    iset(ix, 'alice', 1);
    const back = JSON.parse(JSON.stringify({ t, ix })) as { t: Table<Rec>; ix: Index };
    expect(back).toEqual({ t, ix });
    expect(tget(back.t, 99_999)).toEqual({ id: 99_999 });
    expect(iget(back.ix, 'alice')).toBe(1);
  });
});

describe('indexes', () => {
  it('iset/iget/idelete: client keys are plain keys, prototype names included', () => {
    const ix = emptyIndex();
    const keys = ['alice', '__proto__', 'constructor', 'toString', '', 'hasOwnProperty', 'x'.repeat(300)];
    keys.forEach((k, i) => iset(ix, k, i));
    keys.forEach((k, i) => expect(iget(ix, k)).toBe(i));
    expect(iget(ix, 'valueOf')).toBeUndefined();
    iset(ix, 'alice', 99);
    expect(iget(ix, 'alice')).toBe(99);
    idelete(ix, '__proto__');
    expect(iget(ix, '__proto__')).toBeUndefined();
    expect(iget(ix, 'constructor')).toBe(2);
    for (const k of keys) idelete(ix, k);
    expect(ix).toEqual(emptyIndex());
  });

  it('iget/iset: keys sharing a hash leaf each keep their value', () => {
    const ix = emptyIndex();
    for (let i = 0; i < 20_000; i++) iset(ix, `user${i}`, i);
    for (let i = 0; i < 20_000; i += 7) expect(iget(ix, `user${i}`)).toBe(i);
    expect([...ientries(ix)]).toHaveLength(20_000);
    for (let i = 0; i < 20_000; i += 2) idelete(ix, `user${i}`);
    expect(iget(ix, 'user4')).toBeUndefined();
    expect(iget(ix, 'user5')).toBe(5);
    expect([...ientries(ix)]).toHaveLength(10_000);
  });

  it('madd/mremove/mget: ids ascending, a set emptied goes', () => {
    const ix = emptyIndex<Record<string, 1>>();
    for (const id of [30, 2, 1000, 2]) madd(ix, 'p1', id);
    expect(mget(ix, 'p1')).toEqual([2, 30, 1000]);
    mremove(ix, 'p1', 30);
    expect(mget(ix, 'p1')).toEqual([2, 1000]);
    mremove(ix, 'p1', 2);
    mremove(ix, 'p1', 1000);
    expect(mget(ix, 'p1')).toEqual([]);
    expect(ix).toEqual(emptyIndex());
  });

  it('madd/mremove/mget/mcount/mhas: thousands of ids in any order, across chunk borders, ascending, back to an array and gone', () => {
    const ix = emptyIndex<Record<string, 1>>();
    const model = new Set<number>();
    let x = 7;
    const next = () => ((x = (x * 1103515245 + 12345) & 0x7fffffff) % 5000) + 1;
    const check = () => {
      const want = [...model].sort((a, b) => a - b);
      expect(mget(ix, 'k')).toEqual(want);
      expect(mcount(ix, 'k')).toBe(want.length);
    };
    for (let i = 0; i < 3000; i++) {
      const id = next();
      madd(ix, 'k', id);
      model.add(id);
      if (i % 97 === 0) check();
    }
    for (let id = 0; id <= 5001; id++) expect(mhas(ix, 'k', id)).toBe(model.has(id));
    for (const id of [...model]) {
      if (id % 3 === 0) continue;
      mremove(ix, 'k', id);
      model.delete(id);
    }
    check();
    for (const id of [...model]) {
      mremove(ix, 'k', id);
      model.delete(id);
      if (model.size % 13 === 0) check();
    }
    expect(mcount(ix, 'k')).toBe(0);
    expect(ix).toEqual(emptyIndex());
  });

  for (const n of [63, 64, 65, 128, 129, 200])
    it(`madd/mremove through the store: ${n} ids added one write each and removed again equal the same done in place, frozen through, a failed write changing nothing`, () => {
      const store = new Store(emptyWorld());
      const plain = emptyIndex<Record<string, 1>>();
      const ids = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 1000 + i : 1000 - i));
      for (const id of ids) {
        store.write((d) => madd(d.idx.tokensByUser, 'u', id));
        madd(plain, 'u', id);
      }
      const frozenThrough = (v: unknown): boolean =>
        typeof v !== 'object' || v === null || (Object.isFrozen(v) && Object.values(v).every(frozenThrough));
      expect(JSON.stringify(store.state.idx.tokensByUser)).toBe(JSON.stringify(plain));
      expect(frozenThrough(store.state.idx.tokensByUser)).toBe(true);
      expect(mget(store.state.idx.tokensByUser, 'u')).toEqual([...ids].sort((a, b) => a - b));
      const before = store.state;
      expect(() =>
        store.write((d) => {
          madd(d.idx.tokensByUser, 'u', 5);
          mremove(d.idx.tokensByUser, 'u', ids[0]!);
          throw new Error('refused');
        }),
      ).toThrow('refused');
      expect(store.state).toBe(before);
      expect(mcount(store.state.idx.tokensByUser, 'u')).toBe(n);
      expect(mhas(store.state.idx.tokensByUser, 'u', 5)).toBe(false);
      for (const id of ids.slice(0, n - 3)) {
        store.write((d) => mremove(d.idx.tokensByUser, 'u', id));
        mremove(plain, 'u', id);
      }
      expect(JSON.stringify(store.state.idx.tokensByUser)).toBe(JSON.stringify(plain));
      expect(frozenThrough(store.state.idx.tokensByUser)).toBe(true);
      expect(mget(store.state.idx.tokensByUser, 'u')).toEqual(ids.slice(n - 3).sort((a, b) => a - b));
    });

  it('madd/mremove: a large set read through immer in the same write (its draft) is added to and removed from as committed', () => {
    const store = new Store(emptyWorld());
    const plain = emptyIndex<Record<string, 1>>();
    const fill = (ix: MultiIndex) => {
      for (let id = 1; id <= 500; id++) madd(ix, 'u', id * 2);
    };
    store.write((d) => fill(d.idx.tokensByUser));
    fill(plain);
    const ops = (ix: MultiIndex) => {
      for (let id = 3; id < 1000; id += 10) madd(ix, 'u', id);
      for (let id = 2; id <= 1000; id += 6) mremove(ix, 'u', id);
    };
    store.write((d) => {
      expect([...ientries(d.idx.tokensByUser)]).toHaveLength(1);
      ops(d.idx.tokensByUser);
    });
    ops(plain);
    expect(JSON.stringify(store.state.idx.tokensByUser)).toBe(JSON.stringify(plain));
    expect(mget(store.state.idx.tokensByUser, 'u')).toEqual(mget(plain, 'u'));
    expect(mcount(store.state.idx.tokensByUser, 'u')).toBe(mget(plain, 'u').length);
  });

  it('mremove/madd: a set saved as an object keyed by id (the earlier layout), of 300 ids, reads, grows and shrinks as any', () => {
    const saved = emptyIndex<Record<string, 1>>();
    const flat = Object.create(null) as Record<string, 1>;
    for (let id = 1; id <= 300; id++) flat[id] = 1;
    iset(saved, 'u', flat);
    const world = emptyWorld();
    const store = new Store({
      ...world,
      idx: { ...world.idx, tokensByUser: JSON.parse(JSON.stringify(saved)) },
    });
    expect(mcount(store.state.idx.tokensByUser, 'u')).toBe(300);
    expect(mhas(store.state.idx.tokensByUser, 'u', 300)).toBe(true);
    store.write((d) => madd(d.idx.tokensByUser, 'u', 1000));
    store.write((d) => mremove(d.idx.tokensByUser, 'u', 150));
    const want = [...Array.from({ length: 300 }, (_, i) => i + 1).filter((id) => id !== 150), 1000];
    expect(mget(store.state.idx.tokensByUser, 'u')).toEqual(want);
    expect(mcount(store.state.idx.tokensByUser, 'u')).toBe(300);
  });

  it('a write through the store: what it adds is frozen, leaves it did not touch keep their identity', () => {
    const store = new Store(emptyWorld());
    store.write((d) => {
      for (let i = 1; i <= 100; i++) iset(d.idx.usernames, `k${i}`, i);
      for (let i = 1; i <= 100; i++) madd(d.idx.tokensByUser, String(i % 3), i);
    });
    store.write((d) => {
      for (let i = 1; i <= 3; i++) createUser(d, { username: `u${i}`, name: 'U', email: `u${i}@x.com` }, NOW);
    });
    const leaves = [...tleaves(store.state.users)];
    const sets = mget(store.state.idx.tokensByUser, '1');
    store.write((d) => {
      iset(d.idx.usernames, 'k5', 500);
      tset(d.users, 200, { ...tget(d.users, 1)!, id: 200 });
      madd(d.idx.tokensByUser, '1', 1000);
    });
    const st = store.state;
    expect(iget(st.idx.usernames, 'k5')).toBe(500);
    expect(iget(st.idx.usernames, 'k6')).toBe(6);
    expect(mget(st.idx.tokensByUser, '1')).toEqual([...sets, 1000]);
    expect(tkeys(st.users)).toEqual([1, 2, 3, 200]);
    expect(tleaves(st.users).next().value![1]).toBe(leaves[0]![1]);
    expect(Object.isFrozen(st.idx.usernames.buckets)).toBe(true);
    expect(Object.isFrozen(tget(st.users, 200))).toBe(true);
    // Committed nodes are frozen: a store outside a write fails rather than changing the state.
    expect(() => iset(st.idx.usernames, 'k6', 1)).toThrow(TypeError);
    expect(() => tset(st.users, 3, tget(st.users, 2)!)).toThrow(TypeError);
    expect(tget(st.users, 3)!.username).toBe('u3');
  });

  for (const drafted of [false, true])
    it(`a write through the store equals the same operations on plain objects; the state it started from is unchanged${drafted ? ' (index nodes read through immer first)' : ''}`, () => {
      interface Row {
        id: number;
        n: number;
      }
      interface Tables {
        t: Table<Row>;
        ix: Index;
        m: MultiIndex;
      }
      const fill = (s: Tables) => {
        for (let id = 1; id <= 3000; id += 3) tset(s.t, id, { id, n: 0 });
        for (let i = 0; i < 2000; i++) iset(s.ix, `k${i}`, i);
        for (let i = 0; i < 500; i++) madd(s.m, `s${i % 40}`, i);
      };
      // Reads, replacements, in-place changes, deletions (down to emptied leaves) and additions, twice over
      // the same paths, so that nodes copied earlier in the write are written again.
      const ops = (s: Tables) => {
        if (drafted) {
          // Iterating through a draft drafts every node and every set of the index.
          expect([...ientries(s.ix)].length).toBe(2000);
          expect([...ientries(s.m)].length).toBe(40);
        }
        for (let r = 0; r < 2; r++) {
          for (let id = 1; id <= 3000; id += 97) {
            const row = tget(s.t, id);
            if (row) row.n += id;
          }
          for (let id = 2; id <= 400; id += 1) tset(s.t, id, { id, n: r });
          for (let id = 1; id <= 1000; id += 3) tdelete(s.t, id);
          tset(s.t, 5_000_000 + r, { id: 5_000_000 + r, n: 1 });
          for (let i = r; i < 2000; i += 7) iset(s.ix, `k${i}`, -i);
          for (let i = 0; i < 2000; i += 11) idelete(s.ix, `k${i}`);
          for (let i = 0; i < 300; i++) iset(s.ix, `new${i}`, i);
          for (let i = 0; i < 500; i += 3) mremove(s.m, `s${i % 40}`, i);
          for (let i = 500; i < 600; i++) madd(s.m, `s${i % 45}`, i);
          for (let i = 0; i < 40; i += 2) for (const id of mget(s.m, `s${i}`)) mremove(s.m, `s${i}`, id);
        }
      };
      const plain: Tables = { t: emptyTable(), ix: emptyIndex(), m: emptyIndex() };
      fill(plain);
      const before = JSON.stringify(plain);
      const world = emptyWorld();
      const store = new Store({ ...world, tables: JSON.parse(before) as Tables } as typeof world);
      const committed = (store.state as unknown as { tables: Tables }).tables;
      store.write((d) => ops((d as unknown as { tables: Tables }).tables));
      ops(plain);
      const after = (store.state as unknown as { tables: Tables }).tables;
      expect(JSON.stringify(after)).toBe(JSON.stringify(plain));
      expect(JSON.stringify(committed)).toBe(before);
      expect(mget(after.m, 's1')).toEqual(mget(plain.m, 's1'));
      expect(tvalues(after.t).every((r) => Object.isFrozen(r))).toBe(true);
      const nodes: unknown[] = [after.ix];
      for (let n = nodes.pop(); n !== undefined; n = nodes.pop())
        if (typeof n === 'object' && n !== null) {
          expect(Object.isFrozen(n)).toBe(true);
          nodes.push(...Object.values(n));
        }
      expect(() => tset(after.t, 2, { id: 2, n: 9 })).toThrow(TypeError);
      expect(() => iset(after.ix, 'k1', 9)).toThrow(TypeError);
    });

  it('iset: setting the value a key has, or removing a key an index lacks, leaves the index as it was', () => {
    const store = new Store(emptyWorld());
    store.write((d) => {
      for (let i = 1; i <= 100; i++) iset(d.idx.usernames, `k${i}`, i);
      madd(d.idx.tokensByUser, '1', 7);
    });
    const idx = store.state.idx;
    store.write((d) => {
      iset(d.idx.usernames, 'k5', 5);
      idelete(d.idx.usernames, 'absent');
      madd(d.idx.tokensByUser, '1', 7);
      mremove(d.idx.tokensByUser, '1', 8);
    });
    expect(store.state.idx).toBe(idx);
  });
});

// ---------------------------------------------------------------------------------------------------
// State files saved by the layout before this one

/** The layout before this one: three levels of objects by id (64 × 64 × 64), or by an 18-bit key hash. */
function oldHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & 0x3ffff;
}

function toOldLayout(node: unknown, depth = 0): unknown {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return node;
  const o = node as Record<string, unknown>;
  if (Array.isArray(o.buckets)) {
    const buckets: Record<string, Record<string, Record<string, unknown>>> = {};
    const put = (top: number, mid: number, key: string | number, v: unknown) => {
      ((buckets[top] ??= {})[mid] ??= {})[key] = v;
    };
    if (typeof o.size === 'number') {
      const t = o as unknown as Table<unknown>;
      for (const id of tkeys(t)) put(id >> 12, (id >> 6) & 63, id, tget(t, id));
      return { size: o.size, buckets };
    }
    for (const [k, v] of ientries(o as unknown as Index<unknown>)) {
      const h = oldHash(k);
      put(h >> 12, (h >> 6) & 63, k, v);
    }
    return { buckets };
  }
  if (depth > 2) return node;
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, toOldLayout(v, depth + 1)]));
}

describe('state files', () => {
  it('a state file saved in the earlier layout (tables as nested objects) loads, and serves as it did', async () => {
    const fx = createFauxlab({
      scenario: {
        users: [
          { username: 'root', admin: true, tokens: [{ token: 'root-token' }] },
          { username: 'alice', tokens: [{ token: 'alice-token' }] },
        ],
        groups: [{ path: 'acme', members: [{ username: 'alice', access_level: 'maintainer' }] }],
        projects: [{ path: 'acme/site' }, { path: 'alice/notes' }],
      },
    });
    const paths = ['/api/v4/user', '/api/v4/users/2', '/api/v4/projects', '/api/v4/groups/acme/members'];
    const read = async (f: typeof fx) =>
      Promise.all(
        paths.map(async (p) => {
          const res = await f.app.request(p, { headers: { 'PRIVATE-TOKEN': 'alice-token' } });
          return [res.status, await res.text()];
        }),
      );
    // alice's activity of the day is recorded by her first reads.
    await read(fx);
    const want = await read(fx);
    const text = stateFileText(fx.snapshot());
    const file = JSON.parse(text) as { state: unknown };
    const old = JSON.stringify({ ...file, state: toOldLayout(file.state) });
    expect(old).not.toBe(text.trim());
    const snap = parseStateFile(old);
    const again = createFauxlab({});
    again.restore(snap);
    expect(await read(again)).toEqual(want);
    expect(JSON.parse(stateFileText(again.snapshot()))).toEqual(JSON.parse(text));
    // And it takes writes as before.
    const res = await again.app.request('/api/v4/projects', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'alice-token', 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'more' }),
    });
    expect(res.status).toBe(201);
  });
});
