/**
 * Git objects (blobs, trees, commits, annotated tags), named as git names them: the SHA-1 of
 * `<type> <length>\0<payload>`, so that `git hash-object`, `git mktree` and `git commit-tree` give the
 * same ids for the same content. The store is append-only and lives beside the immer state (a class
 * instance immer neither drafts nor freezes): objects are immutable and shared by every ref, branch and
 * fork that reaches them, so a write only adds the objects it made, and a failed write leaves at most
 * unreachable objects behind, as git does. Being the instance's, it is never a project's repository:
 * what a project holds is what its refs reach (reach.ts). A push's objects wait in a staged store (git's
 * quarantine directory) until its commands are accepted.
 */
import { createHash } from 'node:crypto';

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

/** Tree entry modes as git writes them (`40000` without a leading zero). */
export type Mode = '100644' | '100755' | '120000' | '160000' | '40000';
export const TREE_MODE: Mode = '40000';

export interface TreeEntry {
  mode: Mode;
  name: string;
  id: string;
}

export interface Signature {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  time: number;
  /** The signer's offset from UTC in minutes, as the signature line's `+0100` writes it (none: UTC). */
  offset?: number;
}

/**
 * `who`'s signature at `time`, its fields in one literal: `{ ...who, time }` gives every signature a
 * hidden class of its own in V8 (a literal that spreads an object and then adds keys).
 */
export const signatureAt = (who: Pick<Signature, 'name' | 'email'>, time: number, offset = 0): Signature => ({
  name: who.name,
  email: who.email,
  time,
  offset,
});

export interface CommitObject {
  tree: string;
  parents: string[];
  author: Signature;
  committer: Signature;
  message: string;
}

export interface TagObject {
  object: string;
  type: ObjectType;
  tag: string;
  tagger: Signature;
  message: string;
}

interface Stored {
  type: ObjectType;
  data: Buffer;
}

export const hashObject = (type: ObjectType, data: Buffer): string =>
  createHash('sha1').update(`${type} ${data.length}\0`).update(data).digest('hex');

/** Whether UTF-16 order may differ from UTF-8 byte order (surrogates sort below U+E000..U+FFFF). */
const ASTRAL = /[\uD800-\uDFFF]/;

/** Git's tree order: byte order of the names, a tree's name compared as if it ended with `/`. */
export function compareEntries(a: TreeEntry, b: TreeEntry): number {
  const x = a.mode === TREE_MODE ? `${a.name}/` : a.name;
  const y = b.mode === TREE_MODE ? `${b.name}/` : b.name;
  // Code unit order is UTF-8 byte order for every name without surrogates: no bytes to make.
  if (!ASTRAL.test(x) && !ASTRAL.test(y)) return x < y ? -1 : x > y ? 1 : 0;
  return Buffer.compare(Buffer.from(x), Buffer.from(y));
}

/** A tree's payload; `entries` in git's order. */
function encodeSorted(sorted: readonly TreeEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of sorted) {
    parts.push(Buffer.from(`${e.mode} ${e.name}\0`), Buffer.from(e.id, 'hex'));
  }
  return Buffer.concat(parts);
}

export const encodeTree = (entries: readonly TreeEntry[]): Buffer =>
  encodeSorted([...entries].sort(compareEntries));

function decodeTree(data: Buffer): TreeEntry[] {
  const out: TreeEntry[] = [];
  let i = 0;
  while (i < data.length) {
    const sp = data.indexOf(0x20, i);
    const nul = data.indexOf(0, sp);
    out.push({
      mode: data.toString('latin1', i, sp) as Mode,
      name: data.toString('utf8', sp + 1, nul),
      id: data.toString('hex', nul + 1, nul + 21),
    });
    i = nul + 21;
  }
  return out;
}

/** `+0130` for 90 minutes, `-0500` for -300. */
export const offsetText = (minutes: number): string => {
  const a = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}${String(a % 60).padStart(2, '0')}`;
};

/** `Name <email> <seconds> +0000`: fauxlab's own writes are UTC; a signature read from git keeps its offset. */
const signature = (s: Signature) => `${s.name} <${s.email}> ${s.time} ${offsetText(s.offset ?? 0)}`;

function parseSignature(line: string): Signature {
  const m = /^(.*) <(.*)> (\d+) ([+-])(\d{2})(\d{2})$/.exec(line);
  if (!m) return signatureAt({ name: '', email: '' }, 0);
  const offset = (m[4] === '-' ? -1 : 1) * (Number(m[5]) * 60 + Number(m[6]));
  return signatureAt({ name: m[1]!, email: m[2]! }, Number(m[3]), offset);
}

export function encodeCommit(c: CommitObject): Buffer {
  let text = `tree ${c.tree}\n`;
  for (const p of c.parents) text += `parent ${p}\n`;
  text += `author ${signature(c.author)}\ncommitter ${signature(c.committer)}\n\n${c.message}`;
  return Buffer.from(text);
}

/** Header lines up to the blank line, and the message after it. */
function splitHeaders(data: Buffer): { headers: [string, string][]; message: string } {
  const text = data.toString('utf8');
  const end = text.indexOf('\n\n');
  const head = end < 0 ? text : text.slice(0, end);
  const headers = head.split('\n').map((l): [string, string] => {
    const sp = l.indexOf(' ');
    return [l.slice(0, sp), l.slice(sp + 1)];
  });
  return { headers, message: end < 0 ? '' : text.slice(end + 2) };
}

function decodeCommit(data: Buffer): CommitObject {
  const { headers, message } = splitHeaders(data);
  const c: CommitObject = {
    tree: '',
    parents: [],
    author: parseSignature(''),
    committer: parseSignature(''),
    message,
  };
  for (const [k, v] of headers) {
    if (k === 'tree') c.tree = v;
    else if (k === 'parent') c.parents.push(v);
    else if (k === 'author') c.author = parseSignature(v);
    else if (k === 'committer') c.committer = parseSignature(v);
  }
  return c;
}

export function encodeTag(t: TagObject): Buffer {
  return Buffer.from(
    `object ${t.object}\ntype ${t.type}\ntag ${t.tag}\ntagger ${signature(t.tagger)}\n\n${t.message}`,
  );
}

function decodeTag(data: Buffer): TagObject {
  const { headers, message } = splitHeaders(data);
  const t: TagObject = { object: '', type: 'commit', tag: '', tagger: parseSignature(''), message };
  for (const [k, v] of headers) {
    if (k === 'object') t.object = v;
    else if (k === 'type') t.type = v as ObjectType;
    else if (k === 'tag') t.tag = v;
    else if (k === 'tagger') t.tagger = parseSignature(v);
  }
  return t;
}

/** How a store is written into a state file: `id -> "<type> <base64 payload>"`. */
export type PackedObjects = Record<string, string>;

/**
 * One instance's objects. Trees and commits are kept decoded as well, since every read walks them;
 * the decoded forms are never handed out for writing.
 */
export class ObjectStore {
  readonly #objects = new Map<string, Stored>();
  readonly #trees = new Map<string, readonly TreeEntry[]>();
  readonly #commits = new Map<string, CommitObject>();
  #bytes = 0;
  /**
   * A push's objects while its commands are checked (receive-pack's quarantine, `tmp_objdir`): read
   * through this store, written into it only by `admit`, never saved, counted or listed.
   */
  #staged: ObjectStore | undefined;

  #get(id: string): Stored | undefined {
    const o = this.#objects.get(id);
    return o !== undefined || this.#staged === undefined ? o : this.#staged.#objects.get(id);
  }

  /** Lets reads see `quarantine`'s objects (one push at a time: the request that staged them). */
  stage(quarantine: ObjectStore): void {
    if (this.#staged !== undefined) throw new Error('a quarantine is staged already');
    this.#staged = quarantine;
  }

  /** Whether a quarantine is staged (what is read now may not stay: see reach.ts). */
  get staging(): boolean {
    return this.#staged !== undefined;
  }

  /** Drops the staged objects: the store is as it was before `stage`. */
  unstage(): void {
    this.#staged = undefined;
  }

  /** Moves the staged objects in (their push was accepted), with what was decoded of them. */
  admit(): void {
    const q = this.#staged;
    if (q === undefined) return;
    this.#staged = undefined;
    for (const [id, o] of q.#objects)
      if (!this.#objects.has(id)) {
        this.#objects.set(id, o);
        this.#bytes += o.data.length;
      }
    for (const [id, t] of q.#trees) if (!this.#trees.has(id)) this.#trees.set(id, t);
    for (const [id, c] of q.#commits) if (!this.#commits.has(id)) this.#commits.set(id, c);
  }

  /** Adds an object (a no-op when it is there already) and returns its id. */
  put(type: ObjectType, data: Buffer): string {
    const id = hashObject(type, data);
    if (!this.#objects.has(id)) {
      this.#objects.set(id, { type, data });
      this.#bytes += data.length;
    }
    return id;
  }

  putBlob(content: Buffer): string {
    return this.put('blob', content);
  }

  putTree(entries: readonly TreeEntry[]): string {
    const sorted = [...entries].sort(compareEntries);
    const id = this.put('tree', encodeSorted(sorted));
    if (!this.#trees.has(id)) this.#trees.set(id, sorted);
    return id;
  }

  putCommit(c: CommitObject): string {
    const id = this.put('commit', encodeCommit(c));
    if (!this.#commits.has(id)) this.#commits.set(id, c);
    return id;
  }

  putTag(t: TagObject): string {
    return this.put('tag', encodeTag(t));
  }

  has(id: string): boolean {
    return this.#get(id) !== undefined;
  }

  type(id: string): ObjectType | undefined {
    return this.#get(id)?.type;
  }

  /** The payload of an object of `type`, or undefined. */
  raw(id: string, type?: ObjectType): Buffer | undefined {
    const o = this.#get(id);
    return o && (type === undefined || o.type === type) ? o.data : undefined;
  }

  tree(id: string): readonly TreeEntry[] | undefined {
    let t = this.#trees.get(id);
    if (t === undefined) {
      // A staged tree is decoded (and kept) by the quarantine, so that a declined push leaves nothing.
      if (this.#staged !== undefined && !this.#objects.has(id)) return this.#staged.tree(id);
      const data = this.raw(id, 'tree');
      if (data === undefined) return undefined;
      t = decodeTree(data);
      this.#trees.set(id, t);
    }
    return t;
  }

  commit(id: string): CommitObject | undefined {
    let c = this.#commits.get(id);
    if (c === undefined) {
      if (this.#staged !== undefined && !this.#objects.has(id)) return this.#staged.commit(id);
      const data = this.raw(id, 'commit');
      if (data === undefined) return undefined;
      c = decodeCommit(data);
      this.#commits.set(id, c);
    }
    return c;
  }

  tag(id: string): TagObject | undefined {
    const data = this.raw(id, 'tag');
    return data === undefined ? undefined : decodeTag(data);
  }

  /** Ids starting with `prefix` (at most `limit`), for abbreviated shas. */
  withPrefix(prefix: string, limit = 2): string[] {
    const out: string[] = [];
    for (const id of this.#objects.keys()) {
      if (id.startsWith(prefix)) out.push(id);
      if (out.length >= limit) break;
    }
    return out;
  }

  get count(): number {
    return this.#objects.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** The objects `ids` name, packed for a state file. */
  pack(ids: Iterable<string>): PackedObjects {
    const out: PackedObjects = {};
    for (const id of ids) {
      const o = this.#objects.get(id);
      if (o) out[id] = `${o.type} ${o.data.toString('base64')}`;
    }
    return out;
  }

  /** A state file carries every object (a superset of what the refs reach). */
  toJSON(): PackedObjects {
    return this.pack(this.#objects.keys());
  }

  /** Adds packed objects (checked: an entry whose content does not hash to its id is left out). */
  unpack(packed: Readonly<PackedObjects>): void {
    for (const [id, text] of Object.entries(packed)) {
      const sp = text.indexOf(' ');
      const type = text.slice(0, sp) as ObjectType;
      if (!['blob', 'tree', 'commit', 'tag'].includes(type)) continue;
      const data = Buffer.from(text.slice(sp + 1), 'base64');
      if (hashObject(type, data) === id) this.put(type, data);
    }
  }
}
