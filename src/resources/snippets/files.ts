/**
 * A snippet's files (13.x versioned snippets): the snippet's repository holds one or more files on its
 * `master` branch, listed in path order; the `file_name` and `content` columns keep the first file of
 * the latest request, as the platform's snippet services write them. The API's `files[]` inputs, their
 * Grape checks, the `SnippetInputAction` checks, and the actions as the repository applies them.
 */
import { grapeError } from '../../core/errors.js';
import type { SnippetFile, SnippetRecord } from '../issuables/store.js';

/** The branch every snippet repository commits to on 13.12. */
export const SNIPPET_REF = 'master';

/**
 * The most files one snippet holds (the platform's `Snippet::MAX_FILE_COUNT`, which its editor enforces;
 * fauxlab enforces it on the API too, as a bound).
 */
export const MAX_SNIPPET_FILES = 10;

/** The most `files[]` entries one request may carry (a bound of fauxlab's). */
export const MAX_FILE_ACTIONS = 100;

/** The longest path fauxlab keeps for a snippet file. */
export const MAX_SNIPPET_PATH = 1024;

const byPath = (a: SnippetFile, b: SnippetFile) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** The files of the snippet's repository, in path order (`ls_files`). */
export function repoFiles(s: SnippetRecord): SnippetFile[] {
  if (s.files) return s.files;
  return [{ path: s.file_name, content: s.content }];
}

/** Files as the repository keeps them: sorted by path. */
export const sortedFiles = (files: readonly SnippetFile[]): SnippetFile[] => [...files].sort(byPath);

/**
 * Grape's `file_path: true` validator (`check_path_traversal!`, `check_allowed_absolute_path!`): no `..`
 * segment, not absolute.
 */
export function validFilePath(path: string): boolean {
  if (path.startsWith('/')) return false;
  return !/(^\.{1,2}$|^\.\.[/\\]|[/\\]\.\.$|[/\\]\.\.[/\\]|\n)/.test(path);
}

/** Gitaly's path check for a file to write: a relative path of non-empty segments, no `.git`. */
export function gitPathOk(path: string): boolean {
  if (path.length > MAX_SNIPPET_PATH) return false;
  const parts = path.split('/');
  return parts.every((p) => p !== '' && p !== '.' && p !== '..' && p !== '.git' && !p.includes('\0'));
}

export type ActionKind = 'create' | 'update' | 'delete' | 'move';
const ACTIONS: readonly string[] = ['create', 'update', 'delete', 'move'];

export interface FileAction {
  action: ActionKind;
  file_path?: string;
  previous_path?: string;
  content?: string;
}

const strOf = (v: unknown): string | undefined =>
  typeof v === 'string'
    ? v
    : v === undefined || v === null
      ? undefined
      : typeof v === 'object'
        ? ''
        : String(v);

function entries(raw: unknown): Record<string, unknown>[] {
  if (!Array.isArray(raw) || raw.length > MAX_FILE_ACTIONS) throw grapeError(400, 'files is invalid');
  if (raw.some((e) => e === null || typeof e !== 'object' || Array.isArray(e)))
    throw grapeError(400, 'files is invalid');
  return raw as Record<string, unknown>[];
}

/**
 * `files[]` of a create (`create_file_params`): each entry requires a non-blank `file_path` that is a
 * valid file path and a non-blank `content`; problems are reported together, as Grape does.
 */
export function createFilesParam(raw: unknown): FileAction[] {
  const list = entries(raw);
  const problems: string[] = [];
  const out = list.map((e, i): FileAction => {
    const at = `files[${i}]`;
    const path = strOf(e.file_path);
    if (path === undefined) problems.push(`${at}[file_path] is missing`);
    else if (path.trim() === '') problems.push(`${at}[file_path] is empty`);
    else if (!validFilePath(path)) problems.push(`${at}[file_path] should be a valid file path`);
    const content = strOf(e.content);
    if (content === undefined) problems.push(`${at}[content] is missing`);
    else if (content.trim() === '') problems.push(`${at}[content] is empty`);
    return { action: 'create', file_path: path, content };
  });
  if (problems.length) throw grapeError(400, problems.join(', '));
  return out;
}

/** `files[]` of an update (`update_file_params`): `action` one of four, paths valid file paths. */
export function updateFilesParam(raw: unknown): FileAction[] {
  const list = entries(raw);
  const problems: string[] = [];
  const out = list.map((e, i): FileAction => {
    const at = `files[${i}]`;
    const action = strOf(e.action);
    if (action === undefined) problems.push(`${at}[action] is missing`);
    else if (!ACTIONS.includes(action)) problems.push(`${at}[action] does not have a valid value`);
    const content = strOf(e.content);
    const file_path = strOf(e.file_path);
    if (file_path !== undefined && file_path !== '' && !validFilePath(file_path))
      problems.push(`${at}[file_path] should be a valid file path`);
    const previous_path = strOf(e.previous_path);
    if (previous_path !== undefined && previous_path !== '' && !validFilePath(previous_path))
      problems.push(`${at}[previous_path] should be a valid file path`);
    return { action: action as ActionKind, file_path, previous_path, content };
  });
  if (problems.length) throw grapeError(400, problems.join(', '));
  return out;
}

const blank = (v: string | undefined) => v === undefined || v.trim() === '';

/** `SnippetInputAction#valid?` for each action. */
export function actionsValid(actions: readonly FileAction[], onlyCreate: boolean): boolean {
  return actions.every((a) => {
    if (onlyCreate && a.action !== 'create') return false;
    if (a.action === 'move' && blank(a.previous_path)) return false;
    if ((a.action === 'update' || a.action === 'delete') && blank(a.file_path)) return false;
    if ((a.action === 'create' || a.action === 'update') && blank(a.content)) return false;
    if (
      a.action === 'update' &&
      !blank(a.previous_path) &&
      !blank(a.file_path) &&
      a.previous_path !== a.file_path
    )
      return false;
    if (a.action === 'move' && a.previous_path === a.file_path) return false;
    return true;
  });
}

/** Why the repository refused the actions: a git error, or a path it does not take. */
export type ActionsOutcome = { files: SnippetFile[] } | { error: 'commit' | 'path' | 'count' };

const EMPTY_FILE = /^snippetfile(\d+)\.txt$/;

/**
 * The actions applied in order to the repository's files, as `SnippetRepository#multi_files_action`
 * prepares them and Gitaly commits them: a blank `file_path` takes a generated `snippetfileN.txt` name
 * (a move from such a name keeps it), a move without content keeps the file's content, and a create on
 * a taken path, or an update, delete or move of a missing one, fails the whole commit.
 */
export function applyActions(
  current: readonly SnippetFile[],
  actions: readonly FileAction[],
): ActionsOutcome {
  const files = new Map<string, string>();
  for (const f of current) files.set(f.path, f.content);
  let next = 1;
  for (const f of current) {
    const m = EMPTY_FILE.exec(f.path);
    if (m) next = Math.max(next, Number(m[1]) + 1);
  }
  for (const a of actions) {
    let path = a.file_path;
    if (blank(path)) {
      if (a.previous_path !== undefined && EMPTY_FILE.test(a.previous_path)) path = a.previous_path;
      else path = `snippetfile${next++}.txt`;
    }
    const target = path!;
    if (a.action !== 'delete' && !gitPathOk(target)) return { error: 'path' };
    switch (a.action) {
      case 'create':
        if (files.has(target)) return { error: 'commit' };
        files.set(target, a.content ?? '');
        break;
      case 'update':
        if (!files.has(target)) return { error: 'commit' };
        files.set(target, a.content!);
        break;
      case 'delete':
        if (!files.delete(target)) return { error: 'commit' };
        break;
      case 'move': {
        const from = a.previous_path!;
        if (!files.has(from)) return { error: 'commit' };
        if (from !== target && files.has(target)) return { error: 'commit' };
        const content = a.content ?? files.get(from)!;
        files.delete(from);
        files.set(target, content);
        break;
      }
    }
  }
  if (files.size > MAX_SNIPPET_FILES) return { error: 'count' };
  return { files: sortedFiles([...files].map(([path, content]) => ({ path, content }))) };
}
