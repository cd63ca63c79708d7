/**
 * The basic (non-Elasticsearch) search of a project's repository and wiki, as `Gitlab::ProjectSearchResults`
 * runs it: `blobs` and `wiki_blobs` through `Gitlab::FileFinder` (files whose content holds the term, by
 * `git grep`, then files whose path holds it, sorted by path; `filename:`, `path:` and `extension:`
 * filters applied to both), `commits` by message (`git log --grep`) plus the commit a full or short sha
 * names. Every scan is bounded: files, bytes and commits.
 */
import type { PlatformState } from '../../core/state.js';
import { UntrustedRegexp } from '../../core/untrusted-regexp.js';
import { resolveCommit } from '../repository/refs.js';
import { walk } from '../repository/history.js';
import type { ObjectStore } from '../repository/objects.js';
import { objectsOf } from '../repository/store.js';
import { listTree } from '../repository/tree.js';
import type { Project } from '../projects/model.js';
import { EXTENSIONS } from '../wikis/model.js';
import type { WikiPageRecord } from '../wikis/store.js';

/** The most files one search reads. */
export const MAX_FILES_SCANNED = 5_000;
/** The most bytes of file content one search reads. */
export const MAX_BYTES_SCANNED = 20 * 1024 * 1024;
/** The most content matches (chunks) one search keeps (`count_limit`). */
export const MAX_MATCHES = 100;
/** The most commits one commit search walks. */
export const MAX_COMMITS_WALKED = 5_000;
/** Lines of context around a match (Gitaly's `git grep --before-context/--after-context`). */
const CONTEXT = 2;
/** A file found by its path shows this much of its content (`blob_size_limit`). */
const PATH_MATCH_BYTES = 1024;

/** `Entities::Blob`. */
export interface FoundBlob {
  basename: string;
  data: string;
  path: string;
  filename: string;
  id: string | null;
  ref: string;
  startline: number;
  project_id: number;
}

interface Filter {
  name: 'filename' | 'path' | 'extension';
  /** On RE2: a value of many `*`s (each `.*`) cannot make the match backtrack over a long path. */
  regex: UntrustedRegexp;
}

/** `Gitlab::Search::Query`: the filters taken out of the query (a `*` matches anything), and the term. */
export function parseCodeQuery(query: string): { term: string; filters: Filter[] } {
  const filters: Filter[] = [];
  let term = query;
  for (const name of ['filename', 'path', 'extension'] as const) {
    const m = new RegExp(`(?:^|\\s)${name}:(\\S+)`).exec(term);
    if (!m) continue;
    const value = m[1]!.slice(0, 256);
    const re = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\*/g, '.*');
    const source = name === 'filename' ? `${re}$` : name === 'extension' ? `\\.${re}$` : re;
    filters.push({ name, regex: new UntrustedRegexp(`(?i)${source}`) });
    term = term.replace(`${name}:${m[1]}`, '');
  }
  return { term: term.trim(), filters };
}

const withoutExtension = (path: string) => {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  return dot > slash + 1 ? path.slice(0, dot) : path;
};

interface SourceFile {
  path: string;
  /** The blob's id; null where the platform's result has none. */
  id: string | null;
  content: () => string | undefined;
}

interface Budget {
  files: number;
  bytes: number;
}

/**
 * `FileFinder#find` over a list of files: content matches (each run of matching lines with its
 * context is one result), then path matches not already found, by path; then the filters.
 */
function findInFiles(
  files: readonly SourceFile[],
  query: string,
  ref: string,
  projectId: number,
  pathTerm: (term: string) => string,
): FoundBlob[] {
  const { term, filters } = parseCodeQuery(query);
  if (term === '') return [];
  const needle = term.toLowerCase();
  const budget: Budget = { files: MAX_FILES_SCANNED, bytes: MAX_BYTES_SCANNED };
  const byContent: FoundBlob[] = [];
  const found = new Set<string>();
  for (const f of files) {
    if (byContent.length >= MAX_MATCHES || budget.files <= 0 || budget.bytes <= 0) break;
    budget.files--;
    const text = f.content();
    if (text === undefined) continue;
    budget.bytes -= text.length;
    // `git grep -I`: binary files are skipped.
    if (text.includes('\0')) continue;
    const chunks = matchChunks(text, needle);
    for (const ch of chunks) {
      if (byContent.length >= MAX_MATCHES) break;
      found.add(f.path);
      byContent.push({
        basename: withoutExtension(f.path),
        data: ch.data,
        path: f.path,
        filename: f.path,
        id: null,
        ref,
        startline: ch.startline,
        project_id: projectId,
      });
    }
  }
  const pathNeedle = pathTerm(term.replace(/^\/+/, '')).toLowerCase();
  const byPath: FoundBlob[] = [];
  if (pathNeedle !== '')
    for (const f of files) {
      if (found.has(f.path) || !f.path.toLowerCase().includes(pathNeedle)) continue;
      const text = f.content() ?? '';
      byPath.push({
        basename: withoutExtension(f.path),
        data: Buffer.from(text).subarray(0, PATH_MATCH_BYTES).toString(),
        path: f.path,
        filename: f.path,
        id: f.id,
        ref,
        startline: 1,
        project_id: projectId,
      });
    }
  // Ruby's `sort_by` is not stable; content results of one file keep their line order here.
  const all = [...byContent, ...byPath].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : a.startline - b.startline,
  );
  return all.filter((b) => filters.every((x) => x.regex.test(b.path)));
}

/** Runs of lines around the lines holding `needle` (any case), as `git grep -C` prints them. */
function matchChunks(text: string, needle: string): { startline: number; data: string }[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const out: { startline: number; data: string }[] = [];
  let start = -1;
  let end = -1;
  const flush = () => {
    if (start < 0) return;
    out.push({ startline: start + 1, data: lines.slice(start, end + 1).join('\n') + '\n' });
    start = end = -1;
  };
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.toLowerCase().includes(needle)) continue;
    const from = Math.max(0, i - CONTEXT);
    const to = Math.min(lines.length - 1, i + CONTEXT);
    if (start >= 0 && from <= end + 1) end = to;
    else {
      flush();
      start = from;
      end = to;
    }
  }
  flush();
  return out;
}

/** The files of a commit's tree, in git's order. */
function treeFiles(store: ObjectStore, commit: string): SourceFile[] {
  const tree = store.commit(commit)?.tree;
  if (tree === undefined) return [];
  return listTree(store, tree, '', true)
    .filter((e) => e.mode !== '40000' && e.mode !== '160000')
    .slice(0, MAX_FILES_SCANNED)
    .map((e) => ({ path: e.path, id: e.id, content: () => store.raw(e.id, 'blob')?.toString('utf8') }));
}

/** The ref a search reads: the one given, or the default branch. */
const refOf = (p: Project, ref: string | undefined) => ref || p.default_branch || 'master';

/** `blobs`: the repository at `ref` (the default branch when none is given). */
export function searchBlobs(st: PlatformState, p: Project, query: string, ref?: string): FoundBlob[] {
  const name = refOf(p, ref);
  const commit = resolveCommit(st, p, name);
  if (commit === undefined) return [];
  return findInFiles(treeFiles(objectsOf(st), commit), query, name, p.id, (t) => t);
}

/**
 * `wiki_blobs`: the wiki's pages as its repository holds them (`<slug>.<extension>` on `master`);
 * `WikiFileFinder` looks for paths with the term's spaces as dashes.
 */
export function searchWikiBlobs(p: Project, pages: readonly WikiPageRecord[], query: string, ref?: string) {
  const name = ref || 'master';
  if (name !== 'master') return [];
  const files = [...pages]
    .map((pg) => ({ path: `${pg.slug}.${EXTENSIONS[pg.format]}`, content: pg.content }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((f) => ({ path: f.path, id: null, content: () => f.content }));
  return findInFiles(files, query, name, p.id, (t) => t.replace(/ /g, '-'));
}

/**
 * `commits`: commits reachable from `ref` whose message holds the term (any case), newest first, then
 * the commit a 7 to 40 digit sha names if not among them.
 */
export function searchCommits(st: PlatformState, p: Project, query: string, ref?: string): string[] {
  const store = objectsOf(st);
  const commit = resolveCommit(st, p, refOf(p, ref));
  const needle = query.toLowerCase();
  const out =
    commit === undefined || needle === ''
      ? []
      : walk(store, [commit], { limit: MAX_COMMITS_WALKED })
          .filter((id) => store.commit(id)!.message.toLowerCase().includes(needle))
          .slice(0, MAX_MATCHES);
  const key = query.trim();
  if (/^[0-9a-f]{7,40}$/i.test(key)) {
    const bySha = resolveCommit(st, p, key);
    if (bySha !== undefined && store.commit(bySha) && !out.includes(bySha)) out.push(bySha);
  }
  return out;
}
