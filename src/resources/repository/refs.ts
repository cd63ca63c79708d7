/**
 * A project's refs over the object store. The heads live in the core `refs` table (immer state). A
 * project that has a default branch but never had a ref written has one commit nobody stored: a
 * README made from facts of the project that never change (id, creation time), so that a world of
 * 100k projects stores nothing here and every read of the commit gives the same id. The first ref
 * write stores that head, after which the table alone says what exists.
 */
import type { Draft } from 'immer';
import { own, dict } from '../../core/own.js';
import type { PlatformState, ProjectRecord, RefsRecord } from '../../core/state.js';
import { tget, tset } from '../../core/table.js';
import { signatureAt, type ObjectStore, type Signature } from './objects.js';
import { reachOf } from './reach.js';
import { objectsFor, objectsOf } from './store.js';

type S = Draft<PlatformState>;
export type RefKind = 'branch' | 'tag';

export const BLANK_SHA = '0000000000000000000000000000000000000000';

const README = Buffer.from('# README\n\nThis project was created before its repository was written to.\n');

/** Who wrote the initial commits: the instance's own identity, not a (renameable) user. */
const SYSTEM: Omit<Signature, 'time'> = { name: 'Administrator', email: 'admin@example.com' };

/** The commit a project's default branch starts at (objects added on first use, idempotently). */
export function initialCommit(store: ObjectStore, project: ProjectRecord): string {
  const blob = store.putBlob(README);
  const tree = store.putTree([{ mode: '100644', name: 'README.md', id: blob }]);
  const time = Math.floor(Date.parse(project.created_at) / 1000);
  const who = signatureAt(SYSTEM, time);
  return store.putCommit({ tree, parents: [], author: who, committer: who, message: 'Initial commit\n' });
}

/** The target a branch or tag names (an annotated tag's own id for tags), or undefined. */
export function refTarget(
  st: PlatformState,
  project: ProjectRecord,
  kind: RefKind,
  name: string,
): string | undefined {
  const refs = tget(st.refs, project.id);
  const stored = own(kind === 'branch' ? refs?.branches : refs?.tags, name);
  if (stored !== undefined) return stored;
  if (kind === 'branch' && name === project.default_branch && !hasDefault(refs))
    return initialCommit(objectsOf(st), project);
  return undefined;
}

/** A commit that starts a ref on top of `base`, with the same tree (deterministic: the project's facts). */
export function refCommit(
  store: ObjectStore,
  project: ProjectRecord,
  base: string,
  kind: RefKind,
  name: string,
) {
  const tree = store.commit(base)?.tree ?? store.putTree([]);
  const who = signatureAt(SYSTEM, Math.floor(Date.parse(project.created_at) / 1000));
  const message = `Start ${kind} ${name}\n`;
  return store.putCommit({ tree, parents: [base], author: who, committer: who, message });
}

/** Whether the table alone says which branches exist (the lazy default branch is gone once written). */
const hasDefault = (refs: RefsRecord | undefined) => refs?.materialized === true;

/** The commit a ref leads to (an annotated tag peeled), or the stored id when no object is known. */
export function peel(store: ObjectStore, id: string): string {
  for (let i = 0; i < 10 && store.type(id) === 'tag'; i++) id = store.tag(id)!.object;
  return id;
}

/** Branch names (the default branch first), or tag names. */
export function names(st: PlatformState, project: ProjectRecord, kind: RefKind): string[] {
  const refs = tget(st.refs, project.id);
  const list = Object.keys((kind === 'branch' ? refs?.branches : refs?.tags) ?? {});
  const d = project.default_branch;
  if (kind !== 'branch' || !d) return list;
  const at = list.indexOf(d);
  if (at > 0) list.splice(at, 1);
  if (at !== 0 && (at > 0 || !hasDefault(refs))) list.unshift(d);
  return list;
}

/**
 * The project's refs record on a draft, with the lazy default branch stored (or, for a repository a
 * scenario declares, dropped: the declaration says what exists).
 */
function refsFor(st: S, project: ProjectRecord, lazyDefault = true): Draft<RefsRecord> {
  let refs = tget(st.refs, project.id);
  if (!refs) {
    tset(st.refs, project.id, { project_id: project.id, branches: dict<string>(), tags: dict<string>() });
    refs = tget(st.refs, project.id)!;
  }
  // A state read back from JSON has plain objects: made prototype-less before a client's name goes in.
  if (Object.getPrototypeOf(refs.branches) !== null)
    refs.branches = Object.assign(dict<string>(), refs.branches);
  if (Object.getPrototypeOf(refs.tags) !== null) refs.tags = Object.assign(dict<string>(), refs.tags);
  if (refs.others !== undefined && Object.getPrototypeOf(refs.others) !== null)
    refs.others = Object.assign(dict<string>(), refs.others);
  if (refs.materialized !== true) {
    const d = project.default_branch;
    if (lazyDefault && d !== null && own(refs.branches, d) === undefined)
      refs.branches[d] = initialCommit(objectsFor(st), project);
    refs.materialized = true;
  }
  return refs;
}

/** Starts a declared repository: no lazy default branch unless something already stored it. */
export function declareRepository(st: S, project: ProjectRecord): void {
  refsFor(st, project, false);
}

/** Points a branch or tag at `id`; null removes it. */
export function setRef(st: S, project: ProjectRecord, kind: RefKind, name: string, id: string | null): void {
  // A store revived from a state file joins the state with the first ref it moves, so a save carries it.
  objectsFor(st);
  const refs = refsFor(st, project);
  const table = kind === 'branch' ? refs.branches : refs.tags;
  if (id === null) delete table[name];
  else table[name] = id;
}

/**
 * The project's refs that are neither branches nor tags (notes, the platform's own refs, any namespace a
 * push made), by full name, in byte order.
 */
export function otherRefs(st: PlatformState, project: ProjectRecord): [string, string][] {
  const others = tget(st.refs, project.id)?.others;
  if (others === undefined) return [];
  return Object.keys(others)
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    .map((name) => [name, others[name]!]);
}

/** The id a ref outside `refs/heads/` and `refs/tags/` names (its full name), or undefined. */
export const otherTarget = (st: PlatformState, project: ProjectRecord, ref: string): string | undefined =>
  own(tget(st.refs, project.id)?.others, ref);

/** Points a ref outside `refs/heads/` and `refs/tags/` (full name) at `id`; null removes it. */
export function setOtherRef(st: S, project: ProjectRecord, ref: string, id: string | null): void {
  objectsFor(st);
  const refs = refsFor(st, project);
  if (id === null) {
    if (refs.others !== undefined) delete refs.others[ref];
    return;
  }
  refs.others ??= dict<string>();
  refs.others[ref] = id;
}

/** `git rev-parse`'s subset the API takes: a branch, a tag, a full or abbreviated sha, `refs/...`. */
export function resolveCommit(st: PlatformState, project: ProjectRecord, ref: string): string | undefined {
  const store = objectsOf(st);
  const named = (kind: RefKind, name: string) => {
    const id = refTarget(st, project, kind, name);
    return id === undefined ? undefined : peel(store, id);
  };
  if (ref.startsWith('refs/heads/')) return named('branch', ref.slice(11));
  if (ref.startsWith('refs/tags/')) return named('tag', ref.slice(10));
  const byName = named('branch', ref) ?? named('tag', ref);
  if (byName !== undefined) return byName;
  if (ref === 'HEAD' && project.default_branch) return named('branch', project.default_branch);
  if (!/^[0-9a-f]{4,40}$/i.test(ref)) return undefined;
  const lower = ref.toLowerCase();
  if (lower.length === 40)
    return store.type(lower) === 'commit' && reachableFrom(st, project, lower) ? lower : undefined;
  const hits = store
    .withPrefix(lower)
    .filter((id) => store.type(id) === 'commit' && reachableFrom(st, project, id));
  return hits.length === 1 ? hits[0] : undefined;
}

/**
 * The ids the project's refs name (annotated tags unpeeled): branches, tags and every other ref, so that
 * what only a note or a merge request's ref reaches is the repository's, as git's `--all` counts it.
 */
export function refTips(st: PlatformState, project: ProjectRecord): string[] {
  const out: string[] = [];
  for (const kind of ['branch', 'tag'] as const)
    for (const n of names(st, project, kind)) {
      const id = refTarget(st, project, kind, n);
      if (id !== undefined) out.push(id);
    }
  for (const [, id] of otherRefs(st, project)) out.push(id);
  return out;
}

/**
 * Whether a commit belongs to the project. The store is the instance's, shared by every project (a fork
 * shares its parent's objects), so a sha alone must not open another project's commit. Read from the
 * reachability index (kept per version of the project's refs), not by a walk per request.
 */
export const reachableFrom = (st: PlatformState, project: ProjectRecord, id: string): boolean =>
  reachOf(st, project, refTips).objects.has(id);

/** A fork's refs: the source's branches and tags (its objects are the instance's, so nothing is copied). */
export function copyRefs(st: S, source: ProjectRecord, fork: ProjectRecord): void {
  objectsFor(st);
  const refs = refsFor(st, fork, false);
  for (const n of names(st, source, 'branch')) refs.branches[n] = refTarget(st, source, 'branch', n)!;
  for (const n of names(st, source, 'tag')) refs.tags[n] = refTarget(st, source, 'tag', n)!;
}
