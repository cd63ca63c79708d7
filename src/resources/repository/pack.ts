/**
 * Git's packfile format (version 2), both ways: a writer that packs objects of the store (each whole,
 * deflated, with the SHA-1 trailer git checks), and a bounded reader for the packs `git push` sends
 * (thin packs with OFS_DELTA and REF_DELTA entries, resolved against the pack and the store).
 * Only this file and its test know the format; transports and export bundles use these functions.
 */
import { createHash } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import { hashObject, type ObjectStore, type ObjectType } from './objects.js';

const TYPE_CODE: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
const CODE_TYPE: readonly (ObjectType | undefined)[] = [undefined, 'commit', 'tree', 'blob', 'tag'];
const OFS_DELTA = 6;
const REF_DELTA = 7;

/** An object as it is packed or unpacked: its id is git's SHA-1 of type and payload. */
export interface PackObject {
  id: string;
  type: ObjectType;
  data: Buffer;
}

/** The reader's bounds: a pack beyond any of them is refused with a `PackError`. */
export interface PackLimits {
  /** Entries in the pack (its header's count). */
  maxObjects: number;
  /** Bytes of one object once inflated and its deltas applied. */
  maxObjectBytes: number;
  /** Bytes of every object together once inflated. */
  maxTotalBytes: number;
  /** Deltas on deltas before the base. */
  maxDeltaDepth: number;
  /**
   * Bytes of the pack as sent: git's `receive.maxInputSize`, which the platform sets from the
   * application setting `receive_max_input_size` (MiB; none by default: `Gitlab::Workhorse.git_http_ok` passes it to
   * Gitaly as a git config option only when it is positive).
   */
  maxInputBytes: number;
  /** A time (ms since the epoch, by the host's wall clock) after which reading stops. */
  deadline?: number;
}

export const DEFAULT_PACK_LIMITS: Readonly<PackLimits> = {
  maxObjects: 200_000,
  maxObjectBytes: 100 * 1024 * 1024,
  maxTotalBytes: 512 * 1024 * 1024,
  maxDeltaDepth: 4096,
  maxInputBytes: Infinity,
};

/** A pack that is malformed, does not check out, or is beyond the reader's limits. */
export class PackError extends Error {
  override name = 'PackError';
}

/** The `<type, size>` header of one entry: 3 type bits, then the size 4 bits first, 7 bits a byte. */
function entryHeader(code: number, size: number): Buffer {
  const bytes: number[] = [];
  let c = (code << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(c | 0x80);
    c = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(c);
  return Buffer.from(bytes);
}

// Deflated payloads per store: packing the same objects for the next clone costs no zlib work.
/** What a pack's deltas may be resolved against: the receiving repository's objects. */
export type BaseStore = Pick<ObjectStore, 'type' | 'raw'>;

const deflated = new WeakMap<ObjectStore, Map<string, Buffer>>();

/** One entry of a pack as bytes (header and deflated payload). */
function packEntry(store: ObjectStore, cache: Map<string, Buffer>, id: string): Buffer {
  const type = store.type(id);
  const data = type && store.raw(id);
  if (!type || !data) throw new PackError(`object ${id} is missing`);
  let body = cache.get(id);
  if (!body) {
    // Speed before size: level 1 deflates several times faster than the default at a modest cost. A
    // window no larger than the object keeps zlib's per-call allocation small (most objects are).
    const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(data.length + 1))));
    const out = deflateSync(data, { level: 1, windowBits, memLevel: windowBits < 15 ? 7 : 8 });
    // zlib's result is a view of its 16 KiB output chunk: kept as it is, every small object would pin one.
    body = out.buffer.byteLength > out.length * 2 ? Buffer.from(out) : out;
    cache.set(id, body);
  }
  return Buffer.concat([entryHeader(TYPE_CODE[type], data.length), body]);
}

/**
 * The pack of `ids` (objects of `store`, each whole: no deltas) in pieces: the header, one piece per
 * object, and the SHA-1 trailer, so that a transport can send it as it is made.
 */
export function* packChunks(store: ObjectStore, ids: readonly string[]): Generator<Buffer> {
  let cache = deflated.get(store);
  if (!cache) deflated.set(store, (cache = new Map()));
  const hash = createHash('sha1');
  const head = Buffer.alloc(12);
  head.write('PACK', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(ids.length, 8);
  hash.update(head);
  yield head;
  for (const id of ids) {
    const piece = packEntry(store, cache, id);
    hash.update(piece);
    yield piece;
  }
  yield hash.digest();
}

/** The whole pack of `ids` (objects of `store`) as one buffer. */
export const writePack = (store: ObjectStore, ids: readonly string[]): Buffer =>
  Buffer.concat([...packChunks(store, ids)]);

/** Where the walk of `reachableObjects` stops (shallow clones). */
export interface WalkOptions {
  /** Commits whose parents the result leaves out (the shallow boundary of what is sent). */
  shallow?: ReadonlySet<string>;
  /** Commits the receiver has without their parents (its shallow boundary): the walk of `haves` stops there. */
  haveShallow?: ReadonlySet<string>;
}

/**
 * Every object `wants` reach (commits, their trees and blobs, tags and what they name), none that
 * `haves` reach. Commits are listed before the trees and blobs, as git orders a pack.
 */
export function reachableObjects(
  store: ObjectStore,
  wants: readonly string[],
  haves: readonly string[] = [],
  opts: WalkOptions = {},
): string[] {
  const excluded = new Set<string>();
  // What a have reaches is excluded: its commits and their trees (and blobs), walked fully, as the
  // client already has every object of a commit it says it has.
  walk(store, haves, excluded, undefined, opts.haveShallow, undefined);
  const out: string[] = [];
  // A commit the receiver has without its parents is passed through: the parents may be new to it.
  const through = opts.haveShallow && new Set([...opts.haveShallow].filter((id) => !opts.shallow?.has(id)));
  walk(store, wants, excluded, out, opts.shallow, through);
  return out;
}

function walk(
  store: ObjectStore,
  roots: readonly string[],
  seen: Set<string>,
  out: string[] | undefined,
  shallow: ReadonlySet<string> | undefined,
  through: ReadonlySet<string> | undefined,
): void {
  const commits: string[] = [];
  const passed = new Set<string>();
  const add = (id: string): boolean => {
    if (seen.has(id) || !store.has(id)) return false;
    seen.add(id);
    out?.push(id);
    return true;
  };
  for (const root of roots) {
    let id = root;
    // Tags may name tags; follow each to what it finally names.
    while (store.type(id) === 'tag' && add(id)) id = store.tag(id)!.object;
    if (store.type(id) === 'commit') commits.push(id);
    else if (store.type(id) === 'tree') walkTree(store, id, seen, out);
    else add(id);
  }
  const trees: string[] = [];
  while (commits.length > 0) {
    const id = commits.pop()!;
    if (!add(id)) {
      if (!through?.has(id) || passed.has(id)) continue;
      passed.add(id);
    } else trees.push(store.commit(id)!.tree);
    if (shallow?.has(id)) continue;
    const c = store.commit(id)!;
    for (let i = c.parents.length - 1; i >= 0; i--) commits.push(c.parents[i]!);
  }
  for (const t of trees) walkTree(store, t, seen, out);
}

function walkTree(store: ObjectStore, root: string, seen: Set<string>, out?: string[]): void {
  const stack = [root];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id) || !store.has(id)) continue;
    seen.add(id);
    out?.push(id);
    for (const e of store.tree(id) ?? []) {
      // Submodule entries name commits of another repository.
      if (e.mode === '160000' || seen.has(e.id)) continue;
      if (e.mode === '40000') stack.push(e.id);
      else if (store.has(e.id)) {
        seen.add(e.id);
        out?.push(e.id);
      }
    }
  }
}

/** A git delta's size varint (7 bits a byte, least significant first). */
function deltaSize(delta: Buffer, at: number): [number, number] {
  let size = 0;
  let shift = 1;
  let i = at;
  for (;;) {
    if (i >= delta.length || shift > 2 ** 35) throw new PackError('malformed delta');
    const b = delta[i++]!;
    size += (b & 0x7f) * shift;
    shift *= 128;
    if ((b & 0x80) === 0) return [size, i];
  }
}

/** The size a delta declares for its result (its second varint), read before anything is allocated. */
export const deltaResultSize = (delta: Buffer): number => deltaSize(delta, deltaSize(delta, 0)[1])[0];

/** Applies a git delta to its base. */
export function applyDelta(base: Buffer, delta: Buffer, maxBytes = Infinity): Buffer {
  const [baseSize, i0] = deltaSize(delta, 0);
  const [size, i1] = deltaSize(delta, i0);
  if (baseSize !== base.length) throw new PackError('delta base size mismatch');
  if (size > maxBytes) throw new PackError('object too large');
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  let i = i1;
  while (i < delta.length) {
    const op = delta[i++]!;
    if (op & 0x80) {
      let offset = 0;
      let len = 0;
      for (let b = 0; b < 4; b++) if (op & (1 << b)) offset += (delta[i++] ?? 0) * 2 ** (8 * b);
      for (let b = 0; b < 3; b++) if (op & (0x10 << b)) len += (delta[i++] ?? 0) << (8 * b);
      if (len === 0) len = 0x10000;
      if (i > delta.length || offset + len > base.length || at + len > size) {
        throw new PackError('delta copy out of bounds');
      }
      base.copy(out, at, offset, offset + len);
      at += len;
    } else if (op !== 0) {
      if (i + op > delta.length || at + op > size) throw new PackError('delta insert out of bounds');
      delta.copy(out, at, i, i + op);
      at += op;
      i += op;
    } else {
      throw new PackError('unexpected delta opcode 0');
    }
  }
  if (at !== size) throw new PackError('delta result size mismatch');
  return out;
}

interface RawEntry {
  code: number;
  /** Inflated payload: the object's, or the delta's. */
  data: Buffer;
  /** For OFS_DELTA: the base's entry (its index); for REF_DELTA: the base's id. */
  base?: number | string;
}

/** A resolved object whose dependents are to be resolved: its entry (-1 for the store's) and its depth. */
interface Known {
  obj: PackObject;
  entry: number;
  depth: number;
}

/** The largest output chunk of one entry's inflating (larger objects are inflated in several). */
const INFLATE_CHUNK = 1024 * 1024;

/** Bytes of the pack the reader hashes in one step (its trailer check). */
const HASH_STEP = 1024 * 1024;

/**
 * The reader as steps: it yields after each bounded piece of work (an entry inflated, a delta
 * applied, a MiB hashed), so that a driver may let other requests in between; its value is the
 * pack's objects.
 *
 * Deltas are resolved as git's `index-pack` resolves them: every entry is read once into an index
 * (OFS_DELTA by its base's entry, REF_DELTA by its base's id), then from each base its dependents
 * are applied, depth first, each resolved object in turn a base for those waiting on its id. The
 * work is linear in the entries whatever their order (a REF_DELTA may come before its base).
 */
function* reading(
  pack: Buffer,
  store: BaseStore | undefined,
  limits: Readonly<PackLimits>,
): Generator<void, PackObject[]> {
  // `receive.maxInputSize` (index-pack's `--max-input-size`): the pack as sent, before any work.
  if (pack.length > limits.maxInputBytes) throw new PackError('pack exceeds maximum allowed size');
  if (pack.length < 32 || pack.toString('latin1', 0, 4) !== 'PACK') {
    throw new PackError('not a pack');
  }
  const version = pack.readUInt32BE(4);
  if (version !== 2 && version !== 3) throw new PackError(`unsupported pack version ${version}`);
  const count = pack.readUInt32BE(8);
  if (count > limits.maxObjects) throw new PackError(`pack has more than ${limits.maxObjects} objects`);
  const end = pack.length - 20;
  const hash = createHash('sha1');
  for (let at = 0; at < end; at += HASH_STEP) {
    hash.update(pack.subarray(at, Math.min(end, at + HASH_STEP)));
    yield;
  }
  if (!hash.digest().equals(pack.subarray(end))) throw new PackError('pack checksum mismatch');

  const entries: RawEntry[] = [];
  const byOffset = new Map<number, number>();
  // The index: a base's entry -> OFS_DELTA entries on it; a base's id -> REF_DELTA entries on it.
  const onEntry = new Map<number, number[]>();
  const onId = new Map<string, number[]>();
  const wait = <K>(m: Map<K, number[]>, k: K, i: number) => {
    const list = m.get(k);
    if (list) list.push(i);
    else m.set(k, [i]);
  };
  let total = 0;
  let pos = 12;
  for (let n = 0; n < count; n++) {
    const offset = pos;
    if (pos >= end) throw new PackError('pack is truncated');
    let b = pack[pos++]!;
    const code = (b >> 4) & 7;
    let size = b & 0x0f;
    let shift = 16;
    while (b & 0x80) {
      if (pos >= end || shift > 2 ** 35) throw new PackError('malformed entry header');
      b = pack[pos++]!;
      size += (b & 0x7f) * shift;
      shift *= 128;
    }
    // Both bounds before inflating: a small deflated stream may declare (and make) a large payload.
    if (size > limits.maxObjectBytes) throw new PackError('object too large');
    if (total + size > limits.maxTotalBytes) throw new PackError('pack is too large');
    let base: number | string | undefined;
    if (code === OFS_DELTA) {
      if (pos >= end) throw new PackError('pack is truncated');
      b = pack[pos++]!;
      let rel = b & 0x7f;
      while (b & 0x80) {
        if (pos >= end || rel > 2 ** 40) throw new PackError('malformed delta offset');
        b = pack[pos++]!;
        rel = (rel + 1) * 128 + (b & 0x7f);
      }
      base = byOffset.get(offset - rel);
      if (base === undefined) throw new PackError('delta base offset is not an entry');
    } else if (code === REF_DELTA) {
      if (pos + 20 > end) throw new PackError('pack is truncated');
      base = pack.toString('hex', pos, pos + 20);
      pos += 20;
    } else if (CODE_TYPE[code] === undefined) {
      throw new PackError(`unknown object type ${code}`);
    }
    let data: Buffer;
    let used: number;
    try {
      const r = inflateSync(pack.subarray(pos, end), {
        info: true,
        maxOutputLength: Math.max(size, 1),
        // An output chunk the size of the object: zlib's default 16 KiB a call, for the many small
        // entries of a pack, was most of the reader's garbage.
        chunkSize: Math.min(Math.max(size + 1, 64), INFLATE_CHUNK),
      }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
      data = r.buffer;
      used = r.engine.bytesWritten;
    } catch {
      throw new PackError('corrupt deflated data');
    }
    if (data.length !== size) throw new PackError('inflated size mismatch');
    total += size;
    pos += used;
    const i = entries.length;
    byOffset.set(offset, i);
    entries.push({ code, data, base });
    if (typeof base === 'number') wait(onEntry, base, i);
    else if (base !== undefined) wait(onId, base, i);
    yield;
  }
  if (pos !== end) throw new PackError('trailing data after the last object');

  const resolved: (PackObject | undefined)[] = new Array(entries.length);
  // Small deltas can copy large ranges: what they make counts towards a total bound of its own.
  let built = 0;
  const stack: Known[] = [];
  /** Resolves everything that waits, directly or through other deltas, on `start`. */
  function* dependents(start: Known): Generator<void> {
    stack.push(start);
    while (stack.length > 0) {
      const { obj, entry, depth } = stack.pop()!;
      const waiting = entry >= 0 ? onEntry.get(entry) : undefined;
      const byId = onId.get(obj.id);
      // Each id's dependents once: an object the pack holds twice resolves them the first time.
      if (byId) onId.delete(obj.id);
      for (const list of [waiting, byId]) {
        if (!list) continue;
        for (const d of list) {
          if (depth + 1 > limits.maxDeltaDepth) throw new PackError('delta chain too deep');
          const delta = entries[d]!.data;
          // The declared result size, before the result is allocated.
          const size = deltaResultSize(delta);
          if (size > limits.maxObjectBytes) throw new PackError('object too large');
          if (built + size > limits.maxTotalBytes) throw new PackError('pack is too large');
          const data = applyDelta(obj.data, delta, size);
          built += size;
          const made: PackObject = { id: hashObject(obj.type, data), type: obj.type, data };
          resolved[d] = made;
          stack.push({ obj: made, entry: d, depth: depth + 1 });
          yield;
        }
      }
    }
  }
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.base !== undefined) continue;
    const type = CODE_TYPE[e.code]!;
    const obj: PackObject = { id: hashObject(type, e.data), type, data: e.data };
    resolved[i] = obj;
    yield* dependents({ obj, entry: i, depth: 0 });
  }
  // A thin pack's REF_DELTA bases that the pack does not hold: the store's.
  for (const id of [...onId.keys()]) {
    if (!onId.has(id)) continue;
    const type = store?.type(id);
    const data = type && store!.raw(id);
    if (type && data) yield* dependents({ obj: { id, type, data }, entry: -1, depth: 0 });
  }
  const left = entries.filter((e, i) => resolved[i] === undefined);
  if (left.length === 0) return resolved as PackObject[];
  // Every unresolved OFS_DELTA hangs on an unresolved REF_DELTA: its base id is the one to name.
  const e = left.find((x) => typeof x.base === 'string') ?? left[0]!;
  throw new PackError(`delta base ${String(e.base)} is missing`);
}

/** Steps the reader takes at most before it looks at the deadline and lets other requests in. */
const SLICE_STEPS = 256;
/** How long the reader works at most before it lets other requests in (`readPackAsync`). */
const SLICE_MS = 8;

const overdue = (limits: Readonly<PackLimits>) => {
  if (limits.deadline !== undefined && Date.now() > limits.deadline) {
    throw new PackError('pack took too long to read');
  }
};

/**
 * The objects of a pack, in pack order, each resolved (deltas applied against the pack's own objects
 * or, for a thin pack, `store`'s) and named by its SHA-1. The trailer is checked. Nothing is added to
 * the store: the caller decides what to keep. `store` is whatever the receiving repository holds (a
 * push passes the objects its project reaches, not the instance's store).
 */
export function readPack(
  pack: Buffer,
  store?: BaseStore,
  limits: Readonly<PackLimits> = DEFAULT_PACK_LIMITS,
): PackObject[] {
  const steps = reading(pack, store, limits);
  for (let n = 0; ; n++) {
    if (n % SLICE_STEPS === 0) overdue(limits);
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * `readPack` for a request: the same reader, which lets other requests in (a turn of the event loop)
 * every `SLICE_STEPS` steps or `SLICE_MS` of work, so that a large pushed pack never holds up the
 * process for its whole reading; one step is at most one object (bounded by `maxObjectBytes`) or a
 * MiB of the trailer's hash.
 */
export async function readPackAsync(
  pack: Buffer,
  store?: BaseStore,
  limits: Readonly<PackLimits> = DEFAULT_PACK_LIMITS,
): Promise<PackObject[]> {
  const steps = reading(pack, store, limits);
  overdue(limits);
  let slice = performance.now() + SLICE_MS;
  for (let n = 1; ; n++) {
    const r = steps.next();
    if (r.done) return r.value;
    if (n % SLICE_STEPS === 0 || performance.now() > slice) {
      overdue(limits);
      await new Promise<void>((resolve) => setImmediate(resolve));
      slice = performance.now() + SLICE_MS;
    }
  }
}
