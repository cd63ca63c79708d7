/**
 * `git-upload-pack` over smart HTTP (what `git clone`, `git fetch` and `git ls-remote` talk to): the
 * ref advertisement, protocol v0/v1's stateless negotiation (`multi_ack_detailed`, side-band-64k,
 * shallow clones with `deepen`) and protocol v2's `ls-refs` and `fetch`. Packs hold whole objects
 * (no deltas), which every client accepts.
 */
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import type { ObjectStore } from '../repository/objects.js';
import { packChunks, reachableObjects } from '../repository/pack.js';
import { reachableFrom, refTips } from '../repository/refs.js';
import { reachOf } from '../repository/reach.js';
import { objectsOf } from '../repository/store.js';
import { UploadError } from './errors.js';
import { applyFilter, parseFilter, type Filter } from './filter.js';
import { DELIM, FLUSH, PktReader, pkt, sideband } from './pktline.js';
import { listRefs, UPLOAD_HIDDEN, type RefList } from './refs.js';

/** The git version the platform's Gitaly ran in 13.12, as `agent=` names it. */
export const AGENT = 'git/2.31.1';

const ZERO = '0000000000000000000000000000000000000000';
const INFINITE_DEPTH = 0x7fffffff;
/** Wants, haves and shallow lines a request may carry. */
export const MAX_LINES = 100_000;

export { UploadError };

/** The `# service=` preamble git expects before a v0 advertisement over HTTP. */
export const servicePreamble = (service: string) => Buffer.concat([pkt(`# service=${service}\n`), FLUSH]);

/** v0/v1's advertisement of upload-pack: HEAD (with the capabilities), the refs, peeled tags. */
export function advertiseUpload(st: PlatformState, project: ProjectRecord, now: number): Buffer {
  const { refs, head } = listRefs(st, project, UPLOAD_HIDDEN, now);
  let caps =
    'multi_ack thin-pack side-band side-band-64k ofs-delta shallow deepen-since deepen-not deepen-relative no-progress include-tag multi_ack_detailed ' +
    'allow-tip-sha1-in-want allow-reachable-sha1-in-want';
  if (head?.id !== undefined) caps += ` symref=HEAD:${head.target}`;
  // `uploadpack.allowFilter`, which Gitaly sets for partial clones.
  caps += ` filter object-format=sha1 agent=${AGENT}`;
  const lines: Buffer[] = [];
  const first = (id: string, name: string) => pkt(`${id} ${name}\0${caps}\n`);
  if (head?.id !== undefined) lines.push(first(head.id, 'HEAD'));
  for (const r of refs) {
    lines.push(lines.length === 0 ? first(r.id, r.name) : pkt(`${r.id} ${r.name}\n`));
    if (r.peeled) lines.push(pkt(`${r.peeled} ${r.name}^{}\n`));
  }
  if (lines.length === 0) lines.push(first(ZERO, 'capabilities^{}'));
  lines.push(FLUSH);
  return Buffer.concat(lines);
}

/**
 * v2's capability advertisement as git 2.31's `serve.c` makes it under Gitaly's configuration:
 * `ls-refs=unborn` (`lsrefs.unborn` defaults to advertise), `fetch` with `wait-for-done` and
 * `uploadpack.allowFilter`'s `filter` (no `ref-in-want`, `sideband-all` or `packfile-uris`, which
 * need settings Gitaly leaves off), and `object-info`.
 */
export function advertiseV2(): Buffer {
  return Buffer.concat(
    [
      'version 2\n',
      `agent=${AGENT}\n`,
      'ls-refs=unborn\n',
      'fetch=shallow wait-for-done filter\n',
      'server-option\n',
      'object-format=sha1\n',
      'object-info\n',
    ]
      .map((l) => pkt(l))
      .concat(FLUSH),
  );
}

interface FetchRequest {
  wants: string[];
  haves: string[];
  clientShallow: Set<string>;
  depth: number;
  /** `deepen-relative`: the depth counts from the client's shallow boundary. */
  relative: boolean;
  done: boolean;
  includeTag: boolean;
  /** `deepen-since`: commits older than this (seconds) are left out. */
  since?: number;
  /** `deepen-not`: commits these refs reach are left out. */
  not: string[];
  filter?: Filter;
}

const newRequest = (): FetchRequest => ({
  wants: [],
  haves: [],
  clientShallow: new Set(),
  depth: 0,
  relative: false,
  done: false,
  includeTag: false,
  not: [],
});

/** Whether the request deepens (or makes) a shallow history, by depth, date or excluded ref. */
const deepens = (req: FetchRequest) => req.depth > 0 || req.since !== undefined || req.not.length > 0;

/**
 * The arguments of a fetch that v0's want section and v2's arguments share: `shallow`, the deepen
 * forms and `filter`. False for any other line.
 */
function fetchArgument(
  st: PlatformState,
  project: ProjectRecord,
  now: number,
  req: FetchRequest,
  line: string,
  prefix: string,
): boolean {
  if (line.startsWith('shallow ')) req.clientShallow.add(line.slice(8));
  else if (line.startsWith('deepen ')) {
    const n = Number(line.slice(7));
    if (!/^[0-9]+$/.test(line.slice(7)) || !Number.isSafeInteger(n) || n <= 0)
      throw new UploadError(`${prefix}bad deepen '${line.slice(7)}'`);
    req.depth = n;
  } else if (line === 'deepen-relative') req.relative = true;
  else if (line.startsWith('deepen-since ')) {
    const t = line.slice(13);
    if (!/^[0-9]+$/.test(t)) throw new UploadError(`invalid deepen-since: ${line}`);
    req.since = Number(t);
  } else if (line.startsWith('deepen-not ')) {
    const ref = line.slice(11);
    // `expand_ref`: a ref the advertisement lists, by its full name or git's short forms.
    const refs = listRefs(st, project, UPLOAD_HIDDEN, now).refs;
    const hit = [ref, `refs/${ref}`, `refs/tags/${ref}`, `refs/heads/${ref}`]
      .map((n) => refs.find((r) => r.name === n))
      .find((r) => r !== undefined);
    if (!hit) throw new UploadError(`git upload-pack: deepen-not is not a ref: ${line}`);
    if (req.not.length >= MAX_LINES) throw new UploadError('protocol error: too many lines');
    req.not.push(hit.peeled ?? hit.id);
  } else if (line.startsWith('filter ')) {
    if (req.filter) throw new UploadError('multiple filter-specs cannot be combined');
    req.filter = parseFilter(line.slice(7));
  } else return false;
  return true;
}

/** Whether `id` may be asked for: a ref's tip, or a commit the project's refs reach. */
function checkWant(st: PlatformState, project: ProjectRecord, refs: RefList, id: string): void {
  if (!/^[0-9a-f]{40}$/.test(id)) throw new UploadError(`protocol error: bad want '${id}'`);
  if (refs.refs.some((r) => r.id === id || r.peeled === id)) return;
  // `uploadpack.allowAnySHA1InWant` (Gitaly's setting, for partial clones' lazy fetches of blobs and
  // trees): any object of the repository, which here is any object the project's refs reach.
  if (reachableFrom(st, project, id)) return;
  throw new UploadError(`upload-pack: not our ref ${id}`);
}

/**
 * Whether a `have` or `shallow` line names a commit of this repository. The store is the instance's:
 * another project's commit is, for this repository, an object it does not have (`upload-pack.c`
 * `got_oid` answers no `ACK` for it, `process_shallow` skips it), so nothing a client hears tells
 * another project's ids from ids nobody has.
 */
const ours = (st: PlatformState, project: ProjectRecord, id: string): boolean =>
  objectsOf(st).type(id) === 'commit' && reachableFrom(st, project, id);

/** The client's `shallow` lines that name objects of this repository (`process_shallow`). */
function knownShallow(st: PlatformState, project: ProjectRecord, lines: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const id of lines) {
    if (!reachableFrom(st, project, id)) continue;
    if (objectsOf(st).type(id) !== 'commit') throw new UploadError(`invalid shallow object ${id}`);
    out.add(id);
  }
  return out;
}

/** The shallow boundary of a `deepen`: commits at the depth (min distance from a want), and what it opens. */
function deepen(
  store: ObjectStore,
  wants: readonly string[],
  depth: number,
  clientShallow: ReadonlySet<string>,
): { boundary: Set<string>; unshallow: Set<string> } {
  const boundary = new Set<string>();
  const unshallow = new Set<string>();
  const seen = new Set<string>();
  let level: string[] = [];
  for (const w of wants) {
    let id = w;
    for (let i = 0; i < 10 && store.type(id) === 'tag'; i++) id = store.tag(id)!.object;
    if (store.type(id) === 'commit' && !seen.has(id)) {
      seen.add(id);
      level.push(id);
    }
  }
  for (let d = 1; level.length > 0; d++) {
    const next: string[] = [];
    for (const id of level) {
      if (d >= depth && depth !== INFINITE_DEPTH) {
        boundary.add(id);
        continue;
      }
      if (clientShallow.has(id)) unshallow.add(id);
      for (const p of store.commit(id)?.parents ?? []) {
        if (seen.has(p) || !store.has(p)) continue;
        seen.add(p);
        next.push(p);
      }
    }
    level = next;
  }
  return { boundary, unshallow };
}

/** The most commits `deepen-since` / `deepen-not` walk (each request's own bound). */
export const DEEPEN_WALK_LIMIT = 1_000_000;

/**
 * `deepen_by_rev_list` (`--shallow-since`, `--shallow-exclude`): the commits the wants reach that are
 * not older than `since` nor reached by an excluded ref; those with a parent left out are the boundary.
 */
function deepenByRevList(
  store: ObjectStore,
  req: FetchRequest,
): { boundary: Set<string>; unshallow: Set<string> } {
  const excluded = new Set<string>();
  const stack = [...req.not];
  while (stack.length > 0 && excluded.size < DEEPEN_WALK_LIMIT) {
    const id = stack.pop()!;
    if (excluded.has(id)) continue;
    const c = store.commit(id);
    if (!c) continue;
    excluded.add(id);
    stack.push(...c.parents);
  }
  const included = (id: string) => {
    const c = store.commit(id);
    return !!c && !excluded.has(id) && (req.since === undefined || c.committer.time >= req.since);
  };
  const selected = new Set<string>();
  const walk: string[] = [];
  for (const w of req.wants) {
    let id = w;
    for (let i = 0; i < 10 && store.type(id) === 'tag'; i++) id = store.tag(id)!.object;
    if (included(id)) walk.push(id);
  }
  while (walk.length > 0 && selected.size < DEEPEN_WALK_LIMIT) {
    const id = walk.pop()!;
    if (selected.has(id)) continue;
    selected.add(id);
    for (const p of store.commit(id)!.parents) if (included(p)) walk.push(p);
  }
  if (selected.size === 0) throw new UploadError('no commits selected for shallow requests');
  const boundary = new Set<string>();
  const unshallow = new Set<string>();
  for (const id of selected) {
    const parents = store.commit(id)!.parents;
    if (parents.some((p) => !selected.has(p))) boundary.add(id);
    else if (req.clientShallow.has(id) && parents.length > 0) unshallow.add(id);
  }
  return { boundary, unshallow };
}

/** The shallow boundary a request asks for (none without `deepen`). */
function boundaryOf(
  store: ObjectStore,
  req: FetchRequest,
): { boundary: Set<string>; unshallow: Set<string> } {
  if (req.since !== undefined || req.not.length > 0) return deepenByRevList(store, req);
  if (req.depth <= 0) return { boundary: new Set(), unshallow: new Set() };
  // Relative: as deep again from where the client's history stops (`get_reachable_list`, depth + 1).
  if (req.relative) return deepen(store, [...req.clientShallow], req.depth + 1, req.clientShallow);
  return deepen(store, req.wants, req.depth, req.clientShallow);
}

/** The objects of a fetch, in pack order. */
function fetchObjects(
  st: PlatformState,
  project: ProjectRecord,
  now: number,
  req: FetchRequest,
  boundary: Set<string>,
  unshallow: Set<string>,
): string[] {
  const store = objectsOf(st);
  const shallow = new Set(boundary);
  for (const s of req.clientShallow) if (!unshallow.has(s)) shallow.add(s);
  let ids = reachableObjects(store, req.wants, req.haves, { shallow, haveShallow: req.clientShallow });
  if (req.filter) ids = applyFilter(store, ids, req.filter, req.wants);
  if (req.includeTag) {
    // Annotated tags whose commit is sent come along (`include-tag`).
    const sending = new Set(ids);
    for (const r of listRefs(st, project, UPLOAD_HIDDEN, now).refs)
      if (r.peeled && sending.has(r.peeled) && !sending.has(r.id)) {
        ids.push(r.id);
        sending.add(r.id);
      }
  }
  return ids;
}

/** The pack of a fetch on side-band 1, in pkt-lines of at most `max`, then (v0) a flush. */
function* sidebandPack(store: ObjectStore, ids: string[], max: number): Generator<Buffer> {
  const room = max - 5;
  let pending: Buffer[] = [];
  let size = 0;
  for (const chunk of packChunks(store, ids)) {
    pending.push(chunk);
    size += chunk.length;
    if (size >= room) {
      const all = Buffer.concat(pending);
      const whole = all.length - (all.length % room);
      yield* sideband(1, all.subarray(0, whole), max);
      pending = whole < all.length ? [all.subarray(whole)] : [];
      size = all.length - whole;
    }
  }
  if (size > 0) yield* sideband(1, Buffer.concat(pending), max);
}

function readWants(
  st: PlatformState,
  project: ProjectRecord,
  now: number,
  r: PktReader,
  req: FetchRequest,
  caps: Set<string>,
): void {
  let count = 0;
  for (;;) {
    const line = r.line();
    if (line === 'flush' || line === 'end') return;
    if (line === 'delim') throw new UploadError('protocol error: unexpected delim');
    if (++count > MAX_LINES) throw new UploadError('protocol error: too many lines');
    if (line.startsWith('want ')) {
      const [id, ...rest] = line.slice(5).split(' ');
      if (req.wants.length === 0) for (const c of rest) caps.add(c);
      req.wants.push(id!);
    } else if (!fetchArgument(st, project, now, req, line, 'protocol error: '))
      throw new UploadError(`protocol error: unexpected '${line}'`);
  }
}

/** `shallow`/`unshallow` lines for the client after a deepen. */
function shallowLines(boundary: Set<string>, unshallow: Set<string>, clientShallow: Set<string>): Buffer[] {
  const out: Buffer[] = [];
  for (const id of boundary) if (!clientShallow.has(id)) out.push(pkt(`shallow ${id}\n`));
  for (const id of unshallow) out.push(pkt(`unshallow ${id}\n`));
  return out;
}

/** Protocol v0/v1's `POST git-upload-pack`, stateless: one round of negotiation, or the pack after `done`. */
export function* uploadPackV0(
  st: PlatformState,
  project: ProjectRecord,
  now: number,
  body: Buffer,
): Generator<Buffer> {
  const r = new PktReader(body);
  const req = newRequest();
  const caps = new Set<string>();
  readWants(st, project, now, r, req, caps);
  // A client that wants nothing gets nothing (an up-to-date fetch).
  if (req.wants.length === 0) return;
  const refs = listRefs(st, project, UPLOAD_HIDDEN, now);
  for (const w of req.wants) checkWant(st, project, refs, w);
  req.clientShallow = knownShallow(st, project, req.clientShallow);
  req.includeTag = caps.has('include-tag');
  // In v0 `deepen-relative` is a capability of the first want.
  if (caps.has('deepen-relative')) req.relative = true;
  const store = objectsOf(st);
  const { boundary, unshallow } = boundaryOf(store, req);
  if (deepens(req)) yield Buffer.concat([...shallowLines(boundary, unshallow, req.clientShallow), FLUSH]);
  const multi = caps.has('multi_ack_detailed') ? 2 : caps.has('multi_ack') ? 1 : 0;
  let last: string | undefined;
  let count = 0;
  const out: Buffer[] = [];
  for (;;) {
    const line = r.line();
    // A body that ends without a flush (the first request of a shallow clone): nothing more to say.
    if (line === 'end') return yield Buffer.concat(out);
    if (line === 'flush') {
      // The end of a round: stateless, so the client sends the next one as a new request.
      if (req.haves.length === 0 || multi > 0) out.push(pkt('NAK\n'));
      if (r.pos >= body.length) return yield Buffer.concat(out);
      continue;
    }
    if (line === 'delim') throw new UploadError('protocol error: unexpected delim');
    if (++count > MAX_LINES) throw new UploadError('protocol error: too many haves');
    if (line === 'done') {
      req.done = true;
      break;
    }
    if (!line.startsWith('have ')) throw new UploadError(`protocol error: expected have, got '${line}'`);
    const id = line.slice(5);
    if (ours(st, project, id)) {
      req.haves.push(id);
      last = id;
      if (multi === 2) out.push(pkt(`ACK ${id} common\n`));
      else if (multi === 1) out.push(pkt(`ACK ${id} continue\n`));
      else if (req.haves.length === 1) out.push(pkt(`ACK ${id}\n`));
    }
  }
  if (last !== undefined) {
    if (multi > 0) out.push(pkt(`ACK ${last}\n`));
  } else out.push(pkt('NAK\n'));
  yield Buffer.concat(out);
  const ids = fetchObjects(st, project, now, req, boundary, unshallow);
  if (caps.has('side-band-64k') || caps.has('side-band')) {
    yield* sidebandPack(store, ids, caps.has('side-band-64k') ? 65520 : 1000);
    yield FLUSH;
  } else yield* packChunks(store, ids);
}

/** Protocol v2's `POST git-upload-pack`: `ls-refs` or `fetch`. */
export function* uploadPackV2(
  st: PlatformState,
  project: ProjectRecord,
  now: number,
  body: Buffer,
): Generator<Buffer> {
  const r = new PktReader(body);
  let command: string | undefined;
  for (;;) {
    const line = r.line();
    if (line === 'end' || line === 'flush') {
      // A flush alone is the client saying goodbye.
      if (command === undefined) return;
      throw new UploadError('protocol error: expected delim');
    }
    if (line === 'delim') break;
    if (line.startsWith('command=')) command = line.slice(8);
  }
  const args: string[] = [];
  for (;;) {
    const line = r.line();
    if (line === 'end' || line === 'flush') break;
    if (line === 'delim') throw new UploadError('protocol error: unexpected delim');
    if (args.length >= MAX_LINES) throw new UploadError('protocol error: too many arguments');
    args.push(line);
  }
  if (command === 'ls-refs') return yield lsRefs(st, project, now, args);
  if (command === 'fetch') return yield* fetchV2(st, project, now, args);
  if (command === 'object-info') return yield objectInfo(st, project, args);
  throw new UploadError(`invalid command '${command ?? ''}'`);
}

/**
 * `object-info` (git's `protocol-caps.c`): with `size`, a `size` line, then `<oid> <size>` for each
 * `oid` asked, or `<oid> ` for one the repository does not hold (without `size`, the oids alone); an
 * object another project holds is as unknown here as one nobody wrote (its size would tell it exists).
 */
function objectInfo(st: PlatformState, project: ProjectRecord, args: string[]): Buffer {
  const store = objectsOf(st);
  const size = args.includes('size');
  // One request may ask for MAX_LINES oids: the answer is written as one string of pkt-lines (all
  // ASCII) and the project's reach looked up once, so that it costs a pass over the lines.
  const reach = reachOf(st, project, refTips).objects;
  let out = size ? textPkt('size') : '';
  for (const a of args) {
    if (a === 'size') continue;
    if (!a.startsWith('oid ')) throw new UploadError(`object-info: unexpected line: '${a}'`);
    const id = a.slice(4);
    if (!/^[0-9a-f]{40}$/.test(id))
      throw new UploadError(`object-info: protocol error, expected to get oid, not '${id}'`);
    if (!size) {
      out += textPkt(id);
      continue;
    }
    const held = reach.has(id) ? store.raw(id) : undefined;
    out += textPkt(held === undefined ? `${id} ` : `${id} ${held.length}`);
  }
  return Buffer.from(`${out}0000`, 'latin1');
}

/** `pkt` of an ASCII line, as text. */
const textPkt = (line: string) => (line.length + 4).toString(16).padStart(4, '0') + line;

function lsRefs(st: PlatformState, project: ProjectRecord, now: number, args: string[]): Buffer {
  const peel = args.includes('peel');
  const symrefs = args.includes('symrefs');
  const prefixes = args.filter((a) => a.startsWith('ref-prefix ')).map((a) => a.slice(11));
  const wanted = (name: string) => prefixes.length === 0 || prefixes.some((p) => name.startsWith(p));
  const { refs, head } = listRefs(st, project, UPLOAD_HIDDEN, now);
  const out: Buffer[] = [];
  if (head && wanted('HEAD')) {
    if (head.id !== undefined)
      out.push(pkt(`${head.id} HEAD${symrefs ? ` symref-target:${head.target}` : ''}\n`));
    else if (args.includes('unborn')) out.push(pkt(`unborn HEAD symref-target:${head.target}\n`));
  }
  for (const ref of refs) {
    if (!wanted(ref.name)) continue;
    out.push(pkt(`${ref.id} ${ref.name}${peel && ref.peeled ? ` peeled:${ref.peeled}` : ''}\n`));
  }
  out.push(FLUSH);
  return Buffer.concat(out);
}

function* fetchV2(st: PlatformState, project: ProjectRecord, now: number, args: string[]): Generator<Buffer> {
  const req = newRequest();
  const store = objectsOf(st);
  for (const a of args) {
    if (a.startsWith('want ')) req.wants.push(a.slice(5));
    else if (a.startsWith('have ')) {
      const id = a.slice(5);
      if (ours(st, project, id)) req.haves.push(id);
    } else if (fetchArgument(st, project, now, req, a, 'fetch: ')) continue;
    else if (a === 'done') req.done = true;
    else if (a === 'include-tag') req.includeTag = true;
    else if (!['thin-pack', 'ofs-delta', 'no-progress', 'sideband-all', 'wait-for-done'].includes(a))
      throw new UploadError(`fetch: unexpected argument: '${a}'`);
  }
  const refs = listRefs(st, project, UPLOAD_HIDDEN, now);
  for (const w of req.wants) checkWant(st, project, refs, w);
  req.clientShallow = knownShallow(st, project, req.clientShallow);
  if (!req.done) {
    // Negotiation: the commits in common; never `ready`, so the client ends it with `done`.
    const acks = req.haves.map((id) => pkt(`ACK ${id}\n`));
    yield Buffer.concat([pkt('acknowledgments\n'), ...(acks.length ? acks : [pkt('NAK\n')]), FLUSH]);
    return;
  }
  const { boundary, unshallow } = boundaryOf(store, req);
  if (deepens(req))
    yield Buffer.concat([
      pkt('shallow-info\n'),
      ...shallowLines(boundary, unshallow, req.clientShallow),
      DELIM,
    ]);
  yield pkt('packfile\n');
  yield* sidebandPack(store, fetchObjects(st, project, now, req, boundary, unshallow), 65520);
  yield FLUSH;
}
