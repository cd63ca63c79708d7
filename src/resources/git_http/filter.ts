/**
 * Partial clone's object filters (`git clone --filter=...`), as upload-pack serves them with
 * `uploadpack.allowFilter` (which Gitaly sets): the spec's grammar and errors are git's
 * (`list-objects-filter-options.c`), what each filter leaves out is `list-objects-filter.c`'s. Objects a
 * request names in a `want` are sent whatever the filter says (pack-objects without
 * `--filter-provided-objects`), which is how a partial clone fetches a missing blob later.
 */
import type { ObjectStore } from '../repository/objects.js';
import { UploadError } from './errors.js';

export type Filter =
  | { kind: 'blob:none' }
  | { kind: 'blob:limit'; bytes: number }
  | { kind: 'tree'; depth: number }
  | { kind: 'combine'; subs: Filter[] };

/**
 * Bounds fauxlab adds to the grammar: git reads a spec of any length and nesting that fits a pkt-line;
 * past these a request is refused as a spec git cannot parse is, before anything is walked.
 */
export const MAX_FILTER_SPEC = 4096;
export const MAX_COMBINED = 32;
export const MAX_COMBINE_DEPTH = 4;

const invalid = (spec: string) => new UploadError(`invalid filter-spec '${spec}'`);

/** `git_parse_ulong`: digits with an optional `k`, `m` or `g` (binary multiples). */
function parseUlong(text: string): number | undefined {
  const m = /^([0-9]+)([kKmMgG]?)$/.exec(text);
  if (!m) return undefined;
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  const n = Number(m[1]) * unit;
  return Number.isSafeInteger(n) ? n : undefined;
}

/** `gently_parse_list_objects_filter`: one filter spec, or the refusal git dies with. */
export function parseFilter(spec: string, nesting = 0): Filter {
  if (spec.length > MAX_FILTER_SPEC) throw invalid(spec.slice(0, 64) + '...');
  if (spec === 'blob:none') return { kind: 'blob:none' };
  if (spec.startsWith('blob:limit=')) {
    const bytes = parseUlong(spec.slice(11));
    if (bytes === undefined) throw invalid(spec);
    return { kind: 'blob:limit', bytes };
  }
  if (spec.startsWith('tree:')) {
    const depth = parseUlong(spec.slice(5));
    if (depth === undefined) throw new UploadError("expected 'tree:<depth>'");
    return { kind: 'tree', depth };
  }
  if (spec.startsWith('sparse:path=')) throw new UploadError('sparse:path filters support has been dropped');
  if (spec.startsWith('combine:')) {
    if (nesting >= MAX_COMBINE_DEPTH) throw invalid(spec);
    const parts = spec.slice(8).split('+');
    if (parts.length > MAX_COMBINED) throw invalid(spec);
    const subs: Filter[] = [];
    for (const part of parts) {
      // Each sub-spec is URL-encoded; git refuses the reserved characters left bare.
      if (part === '' || /[~`!@#$^&*()[\]{}\\;'",<>?]/.test(part))
        throw new UploadError(`must escape char in sub-filter-spec: '${part}'`);
      let decoded: string;
      try {
        decoded = decodeURIComponent(part);
      } catch {
        throw invalid(spec);
      }
      subs.push(parseFilter(decoded, nesting + 1));
    }
    return { kind: 'combine', subs };
  }
  // `sparse:oid=` (a sparse-checkout blob read on the server) and any other kind.
  throw invalid(spec);
}

/** The blobs and trees a filter keeps: a tree or blob counts at the least depth it is met at. */
interface Decision {
  blob(id: string, depth: number): boolean;
  tree(depth: number): boolean;
}

function decide(store: ObjectStore, f: Filter): Decision {
  switch (f.kind) {
    case 'blob:none':
      return { blob: () => false, tree: () => true };
    case 'blob:limit':
      // `filter_blobs_limit`: a blob of the limit or more is left out.
      return { blob: (id) => (store.raw(id)?.length ?? 0) < f.bytes, tree: () => true };
    case 'tree':
      // `filter_trees_depth`: the root tree is at depth 0, its entries at 1.
      return { blob: (_id, d) => d < f.depth, tree: (d) => d < f.depth };
    case 'combine': {
      const subs = f.subs.map((s) => decide(store, s));
      return {
        blob: (id, d) => subs.every((s) => s.blob(id, d)),
        tree: (d) => subs.every((s) => s.tree(d)),
      };
    }
  }
}

/**
 * The objects of `ids` (a fetch's objects, pack order) that `filter` keeps. Commits and tags always
 * stay; trees and blobs stay when the filter keeps them at the least depth any sent commit reaches them
 * at (breadth first from the root trees, so the first depth met is the least), or when a want names them.
 */
export function applyFilter(
  store: ObjectStore,
  ids: readonly string[],
  filter: Filter,
  wants: readonly string[],
): string[] {
  const d = decide(store, filter);
  const sending = new Set(ids);
  const keep = new Set<string>(wants);
  let level: string[] = [];
  const met = new Set<string>();
  for (const id of ids)
    if (store.type(id) === 'commit') {
      const tree = store.commit(id)!.tree;
      if (!met.has(tree)) {
        met.add(tree);
        level.push(tree);
      }
    }
  for (let depth = 0; level.length > 0; depth++) {
    const next: string[] = [];
    for (const tree of level) {
      // A tree left out is not opened: what is under it is deeper still.
      if (!d.tree(depth)) continue;
      keep.add(tree);
      for (const e of store.tree(tree) ?? []) {
        if (e.mode === '160000' || met.has(e.id)) continue;
        met.add(e.id);
        if (e.mode === '40000') next.push(e.id);
        else if (d.blob(e.id, depth + 1)) keep.add(e.id);
      }
    }
    level = next;
  }
  return ids.filter((id) => {
    const type = store.type(id);
    return type === 'commit' || type === 'tag' || (keep.has(id) && sending.has(id));
  });
}
