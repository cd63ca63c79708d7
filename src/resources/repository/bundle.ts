/**
 * Git bundles (`git bundle create --all`, version 2), as the platform's project export carries the
 * repository (`project.bundle`): the `# v2 git bundle` line, one `<id> <refname>` line per ref (`HEAD`
 * first), a blank line, then a pack of every object the refs reach. `git bundle verify` and `git clone`
 * read what `writeBundle` makes; `readBundle` reads those and git's own, bounded like a pushed pack.
 */
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import type { ObjectStore } from './objects.js';
import {
  DEFAULT_PACK_LIMITS,
  PackError,
  readPack,
  reachableObjects,
  writePack,
  type PackLimits,
  type PackObject,
} from './pack.js';
import { names, refTarget } from './refs.js';
import { objectsOf } from './store.js';

const V2 = '# v2 git bundle\n';
const V3 = '# v3 git bundle\n';

/** A ref as a bundle lists it: its full name (`refs/heads/main`, `refs/tags/v1`, `HEAD`) and id. */
export interface BundleRef {
  name: string;
  id: string;
}

export interface Bundle {
  refs: BundleRef[];
  objects: PackObject[];
}

/** The most ref lines, and bytes of them, a bundle read may have. */
export const MAX_BUNDLE_REFS = 100_000;
const MAX_HEADER_BYTES = 16 * 1024 * 1024;

/** Byte order of ref names, as `for-each-ref` sorts them. */
const byName = (a: BundleRef, b: BundleRef) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));

/**
 * The refs a project's bundle lists: `HEAD` (the default branch's head), branches, then tags, each
 * group in byte order; an annotated tag's ref names the tag object, as git stores it.
 */
export function bundleRefs(st: PlatformState, project: ProjectRecord): BundleRef[] {
  const store = objectsOf(st);
  const list = (kind: 'branch' | 'tag', prefix: string) =>
    names(st, project, kind)
      .map((n) => ({ name: `${prefix}${n}`, id: refTarget(st, project, kind, n) }))
      // A ref a scenario gave a sha no object has cannot be in a bundle (git has no such refs).
      .filter((r): r is BundleRef => r.id !== undefined && store.has(r.id))
      .sort(byName);
  const branches = list('branch', 'refs/heads/');
  const d = project.default_branch;
  const head = d === null ? undefined : branches.find((b) => b.name === `refs/heads/${d}`)?.id;
  return [
    ...(head === undefined ? [] : [{ name: 'HEAD', id: head }]),
    ...branches,
    ...list('tag', 'refs/tags/'),
  ];
}

/** The bundle of `refs` and every object they reach; undefined without refs (git refuses an empty bundle). */
export function writeBundle(store: ObjectStore, refs: readonly BundleRef[]): Buffer | undefined {
  if (refs.length === 0) return undefined;
  const ids = reachableObjects(store, [...new Set(refs.map((r) => r.id))]);
  const head = V2 + refs.map((r) => `${r.id} ${r.name}\n`).join('') + '\n';
  return Buffer.concat([Buffer.from(head), writePack(store, ids)]);
}

/** A project's whole repository as a bundle (undefined for an empty one). */
export const projectBundle = (st: PlatformState, project: ProjectRecord): Buffer | undefined =>
  writeBundle(objectsOf(st), bundleRefs(st, project));

/** A bundle that cannot be read: malformed, incomplete or beyond the bounds. */
export class BundleError extends Error {
  override name = 'BundleError';
}

/**
 * Reads a bundle: its refs and its objects, each checked against its id. A bundle with prerequisites
 * (made from a range, it needs objects it does not carry) and one whose refs name objects it does not
 * hold are refused.
 */
export function readBundle(bytes: Buffer, limits: Readonly<PackLimits> = DEFAULT_PACK_LIMITS): Bundle {
  const version = bytes.toString('latin1', 0, V2.length);
  if (version !== V2 && version !== V3) throw new BundleError('not a git bundle');
  const end = bytes.indexOf('\n\n', V2.length - 1);
  if (end < 0 || end > MAX_HEADER_BYTES) throw new BundleError('the bundle header does not end');
  const refs: BundleRef[] = [];
  for (const line of bytes.toString('utf8', V2.length, end).split('\n')) {
    if (line === '') continue;
    // v3 capabilities: only SHA-1 repositories are known here.
    if (line.startsWith('@')) {
      if (line.startsWith('@object-format=') && line !== '@object-format=sha1')
        throw new BundleError(`unsupported ${line.slice(1)}`);
      continue;
    }
    if (line.startsWith('-'))
      throw new BundleError('the bundle needs prerequisite commits it does not carry');
    const m = /^([0-9a-f]{40}) (\S+)$/.exec(line);
    if (!m) throw new BundleError('malformed ref line');
    refs.push({ id: m[1]!, name: m[2]! });
    if (refs.length > MAX_BUNDLE_REFS) throw new BundleError(`more than ${MAX_BUNDLE_REFS} refs`);
  }
  let objects: PackObject[];
  try {
    objects = readPack(bytes.subarray(end + 2), undefined, limits);
  } catch (e) {
    if (e instanceof PackError) throw new BundleError(e.message);
    throw e;
  }
  const held = new Set(objects.map((o) => o.id));
  for (const r of refs)
    if (!held.has(r.id)) throw new BundleError(`${r.name} names an object the bundle lacks`);
  return { refs, objects };
}
