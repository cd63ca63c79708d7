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
  /** A time (ms since the epoch, by the host's wall clock) after which reading stops. */
  deadline?: number;
}

export const DEFAULT_PACK_LIMITS: Readonly<PackLimits> = {
  maxObjects: 200_000,
  maxObjectBytes: 100 * 1024 * 1024,
  maxTotalBytes: 512 * 1024 * 1024,
  maxDeltaDepth: 4096,
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
  offset: number;
  code: number;
  /** Inflated payload: the object's, or the delta's. */
  data: Buffer;
  /** For OFS_DELTA: the base's offset; for REF_DELTA: the base's id. */
  base?: number | string;
}

/** The objects a store or earlier part of a pack offers as delta bases. */
type BaseLookup = (id: string) => { type: ObjectType; data: Buffer } | undefined;

/**
 * The objects of a pack, in pack order, each resolved (deltas applied against the pack's own objects
 * or, for a thin pack, `store`'s) and named by its SHA-1. The trailer is checked. Nothing is added to
 * the store: the caller decides what to keep. `store` is whatever the receiving repository holds (a
 * push passes the objects its project reaches, not the instance's store).
 */
export function readPack(
  pack: Buffer,
  store?: Pick<ObjectStore, 'type' | 'raw'>,
  limits: Readonly<PackLimits> = DEFAULT_PACK_LIMITS,
): PackObject[] {
  if (pack.length < 32 || pack.toString('latin1', 0, 4) !== 'PACK') {
    throw new PackError('not a pack');
  }
  const version = pack.readUInt32BE(4);
  if (version !== 2 && version !== 3) throw new PackError(`unsupported pack version ${version}`);
  const count = pack.readUInt32BE(8);
  if (count > limits.maxObjects) throw new PackError(`pack has more than ${limits.maxObjects} objects`);
  const end = pack.length - 20;
  const trailer = createHash('sha1').update(pack.subarray(0, end)).digest();
  if (!trailer.equals(pack.subarray(end))) throw new PackError('pack checksum mismatch');

  const entries: RawEntry[] = [];
  const byOffset = new Map<number, number>();
  let total = 0;
  let pos = 12;
  for (let n = 0; n < count; n++) {
    if (limits.deadline !== undefined && n % 256 === 0 && Date.now() > limits.deadline) {
      throw new PackError('pack took too long to read');
    }
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
    if (size > limits.maxObjectBytes) throw new PackError('object too large');
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
      base = offset - rel;
      if (!byOffset.has(base)) throw new PackError('delta base offset is not an entry');
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
      }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
      data = r.buffer;
      used = r.engine.bytesWritten;
    } catch {
      throw new PackError('corrupt deflated data');
    }
    if (data.length !== size) throw new PackError('inflated size mismatch');
    total += size;
    if (total > limits.maxTotalBytes) throw new PackError('pack is too large');
    pos += used;
    byOffset.set(offset, entries.length);
    entries.push({ offset, code, data, base });
  }
  if (pos !== end) throw new PackError('trailing data after the last object');

  // Resolve: each entry once, a delta after its base (memoised, chains followed iteratively).
  const resolved: (PackObject | undefined)[] = new Array(entries.length);
  const byId = new Map<string, number>();
  const lookup: BaseLookup = (id) => {
    const i = byId.get(id);
    if (i !== undefined) return resolved[i];
    const type = store?.type(id);
    const data = type && store!.raw(id);
    return type && data ? { type, data } : undefined;
  };
  let pending: number[] = [];
  let built = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.base === undefined) {
      const type = CODE_TYPE[e.code]!;
      resolved[i] = { id: hashObject(type, e.data), type, data: e.data };
      byId.set(resolved[i]!.id, i);
    } else pending.push(i);
  }
  // REF_DELTA bases may come later in the pack: resolve in rounds until a round makes no progress.
  while (pending.length > 0) {
    const left: number[] = [];
    for (const i of pending) {
      if (limits.deadline !== undefined && Date.now() > limits.deadline) {
        throw new PackError('pack took too long to read');
      }
      const chain: number[] = [];
      let j: number | undefined = i;
      let baseObj: { type: ObjectType; data: Buffer } | undefined;
      // Walk down the chain to a resolved base, then apply the deltas back up.
      while (j !== undefined) {
        if (resolved[j]) {
          baseObj = resolved[j];
          break;
        }
        chain.push(j);
        if (chain.length > limits.maxDeltaDepth) throw new PackError('delta chain too deep');
        const e: RawEntry = entries[j]!;
        if (typeof e.base === 'number') j = byOffset.get(e.base);
        else {
          j = byId.get(e.base!);
          if (j === undefined) baseObj = lookup(e.base!);
        }
      }
      if (!baseObj) {
        left.push(i);
        continue;
      }
      for (let c = chain.length - 1; c >= 0; c--) {
        const at = chain[c]!;
        const data = applyDelta(baseObj.data, entries[at]!.data, limits.maxObjectBytes);
        // Small deltas can copy large ranges: what they make counts towards the total bound too.
        built += data.length;
        if (built > limits.maxTotalBytes) throw new PackError('pack is too large');
        const obj: PackObject = { id: hashObject(baseObj.type, data), type: baseObj.type, data };
        resolved[at] = obj;
        byId.set(obj.id, at);
        baseObj = obj;
      }
    }
    if (left.length === pending.length) {
      const e = entries[left[0]!]!;
      throw new PackError(`delta base ${String(e.base)} is missing`);
    }
    pending = left;
  }
  return resolved as PackObject[];
}
