/**
 * The personal snippets API (`/snippets`). Reads go through what the viewer may read (personal snippets
 * by visibility, project snippets by the project's snippet access), and a hidden snippet is the same 404
 * as a missing one; updates and deletes look only among the caller's own snippets, as the platform's
 * `snippets_for_current_user` does.
 */
import { requireAdmin, requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { ApiError, apiError, forbidden, grapeError, notFound, recordNotFound } from '../../core/errors.js';
import { paginate, paginationParams, requestBase } from '../../core/pagination.js';
import {
  atLeastOneOf,
  exactlyOneOf,
  mutuallyExclusive,
  p,
  type Parsed,
  type Shape,
} from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { PlatformState, UserRecord, Visibility } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import type { SnippetFile, SnippetRecord } from '../issuables/store.js';
import { restrictedMessage } from '../projects/validation.js';
import { setting, visibilityRestricted } from '../settings/model.js';
import { userRenderer } from '../users/entities.js';
import {
  actionsValid,
  applyActions,
  createFilesParam,
  repoFiles,
  SNIPPET_REF,
  updateFilesParam,
  validFilePath,
  type FileAction,
} from './files.js';
import {
  authorKey,
  canReadSnippet,
  contentProblems,
  createPersonalSnippet,
  deleteSnippet,
  PUBLIC_KEY,
  updateSnippet,
} from './model.js';

const VISIBILITIES = ['private', 'internal', 'public'] as const;
const idShape = { id: p.int().required() };

/** The snippet's page, personal (`/-/snippets/1`) or in its project (`/group/project/-/snippets/1`). */
function webUrl(c: Ctx, st: PlatformState, s: SnippetRecord): string {
  const project = s.project_id === null ? undefined : tget(st.projects, s.project_id);
  return project
    ? `${requestBase(c)}/${project.path_with_namespace}/-/snippets/${s.id}`
    : `${requestBase(c)}/-/snippets/${s.id}`;
}

/** The snippet shape of the spec (`PersonalSnippet`). */
export function snippetJson(c: Ctx, s: SnippetRecord): Record<string, unknown> {
  const st = state(c);
  const author = tget(st.users, s.author_id);
  const web = webUrl(c, st, s);
  return {
    id: s.id,
    title: s.title,
    // `file_name_on_repo || file_name`: the repository's first file names the snippet.
    file_name: repoFiles(s)[0]?.path ?? s.file_name,
    description: s.description,
    visibility: s.visibility,
    author: author ? userRenderer(c).basic(author) : null,
    expires_at: null,
    updated_at: s.updated_at,
    created_at: s.created_at,
    project_id: s.project_id,
    web_url: web,
    raw_url: `${web}/raw`,
    files: repoFiles(s).map((f) => ({
      path: f.path,
      raw_url: `${web}/raw/${SNIPPET_REF}/${encodePath(f.path)}`,
    })),
  };
}

/** A file path in a URL: each segment escaped, the slashes kept. */
const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

const viewer = (c: Ctx): UserRecord | null => c.get('viewer').user;

/** `SnippetsFinder.new(current_user).execute.find_by_id`: hidden and missing are one 404. */
function readable(c: Ctx, id: number): SnippetRecord {
  const st = state(c);
  const s = tget(st.issuables.snippets, id);
  if (!s || !canReadSnippet(st, viewer(c), s))
    throw notFound('Snippet', 'no snippet with this id for this viewer');
  return s;
}

/** `snippets_for_current_user.find_by_id`: only the caller's own snippets. */
function own(c: Ctx, id: number): SnippetRecord {
  const st = state(c);
  const s = tget(st.issuables.snippets, id);
  const user = requireUser(c);
  if (!s || s.author_id !== user.id || !canReadSnippet(st, user, s))
    throw notFound('Snippet', 'updates and deletes see only your own snippets');
  return s;
}

/** The snippet services' error answer: the model's full messages as one sentence. */
export const serviceError = (status: number, messages: string[]) =>
  apiError(status, { error: toSentence(messages) });

function toSentence(list: string[]): string {
  if (list.length <= 1) return list[0] ?? '';
  return `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
}

export function checkVisibility(st: PlatformState, user: UserRecord, v: Visibility): void {
  if (!user.admin && visibilityRestricted(st, v))
    throw serviceError(403, [`Visibility level ${restrictedMessage(v)}`]);
}

/** A blob as the platform sends a snippet file. */
function sendBlob(c: Ctx, file: SnippetFile): Response {
  const base = file.path.slice(file.path.lastIndexOf('/') + 1);
  return c.body(file.content, 200, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Disposition': `inline; filename="${base.replace(/"/g, '%22')}"; filename*=UTF-8''${encodeURIComponent(base)}`,
  });
}

/** `content_for`: the repository's first file; a snippet whose files were all deleted sends its column. */
export function rawText(c: Ctx, s: SnippetRecord): Response {
  const first = repoFiles(s)[0];
  if (first) return sendBlob(c, first);
  return c.body(s.content, 200, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Disposition': 'attachment',
  });
}

/**
 * `file_content_for`: a ref the repository does not have is `404 Reference Not Found`, a path it does
 * not hold `404 File Not Found`. `file_path` passes Grape's file path check first.
 */
export function rawFile(c: Ctx, s: SnippetRecord, ref: string, path: string): Response {
  if (!validFilePath(path)) throw grapeError(400, 'file_path should be a valid file path');
  if (ref !== SNIPPET_REF && ref !== 'HEAD') throw notFound('Reference');
  const file = repoFiles(s).find((f) => f.path === path);
  if (!file) throw notFound('File');
  return sendBlob(c, file);
}

/** The snippet's columns and files once a create or update is saved. */
export interface SnippetContent {
  file_name: string;
  content: string;
  /** The repository's files, when they are other than the one file of the columns. */
  files?: SnippetFile[];
}

/** `files` kept only when the columns do not say the same. */
function contentOf(file_name: string, content: string, files: SnippetFile[]): SnippetContent {
  const same = files.length === 1 && files[0]!.path === file_name && files[0]!.content === content;
  return same ? { file_name, content } : { file_name, content, files };
}

/** The model's checks of the columns (and, a bound of fauxlab's, of every file's size). */
function columnProblems(st: PlatformState, file_name: string, content: string, files: SnippetFile[]) {
  const problems: string[] = [];
  if (file_name.length > 255) problems.push('File name is too long (maximum is 255 characters)');
  problems.push(...contentProblems(st, content));
  if (!problems.length)
    for (const f of files) {
      const more = contentProblems(st, f.content);
      if (more.length) return more;
    }
  return problems;
}

/** The repository's refusal, as `add_snippet_repository_error` words it. */
function repositoryError(create: boolean, kind: 'commit' | 'path' | 'count') {
  const base = `Repository Error ${create ? 'creating' : 'updating'} the snippet`;
  if (kind === 'path') return serviceError(400, [`${base} - Invalid file name`]);
  if (kind === 'count') return serviceError(400, [`${base} - Snippets can have at most 10 files`]);
  return serviceError(400, [base]);
}

/** Runs one of Grape's checks, keeping its message among the request's problems. */
function attempt<T>(problems: string[], check: () => T): T | undefined {
  try {
    return check();
  } catch (e) {
    const error =
      e instanceof ApiError && e.status === 400 ? (e.body as { error?: unknown }).error : undefined;
    if (typeof error !== 'string') throw e;
    problems.push(error);
    return undefined;
  }
}

/**
 * A create's params (`create_file_params` after the endpoint's own): every problem together, as Grape
 * reports them; then the file actions (the `files[]` given, or `file_name` with `content`).
 */
export function parseCreateParams<S extends Shape>(
  c: Ctx,
  shape: S,
): { prm: Parsed<S>; actions: FileAction[] } {
  const problems: string[] = [];
  const prm = attempt(problems, () => parse(c, shape));
  const raw = c.var.params;
  const files = Array.isArray(raw.files) ? attempt(problems, () => createFilesParam(raw.files)) : undefined;
  if (raw.content !== undefined && raw.file_name === undefined) problems.push('file_name is missing');
  attempt(problems, () => mutuallyExclusive(raw, 'files', 'content'));
  if (raw.files === undefined && raw.content === undefined)
    attempt(problems, () => exactlyOneOf(raw, 'files', 'content'));
  if (problems.length || !prm) throw grapeError(400, problems.join(', '));
  const actions = files ?? [
    { action: 'create' as const, file_path: strValue(raw.file_name), content: strValue(raw.content) },
  ];
  return { prm, actions };
}

/** An update's params (`update_file_params`, `minimum_update_params`), every problem together. */
export function parseUpdateParams<S extends Shape>(
  c: Ctx,
  shape: S,
): { prm: Parsed<S>; actions: FileAction[] | undefined } {
  const problems: string[] = [];
  const prm = attempt(problems, () => parse(c, shape));
  const raw = c.var.params;
  const actions = Array.isArray(raw.files) ? attempt(problems, () => updateFilesParam(raw.files)) : undefined;
  attempt(problems, () => mutuallyExclusive(raw, 'files', 'content'));
  attempt(problems, () => mutuallyExclusive(raw, 'files', 'file_name'));
  attempt(problems, () =>
    atLeastOneOf(raw, 'content', 'description', 'files', 'file_name', 'title', 'visibility'),
  );
  if (problems.length || !prm) throw grapeError(400, problems.join(', '));
  return { prm, actions };
}

const strValue = (v: unknown) => (typeof v === 'string' ? v : String(v));

/**
 * `Snippets::CreateService` past its ability check: the actions valid (403 `Snippet files have invalid
 * data`; the API's `files[]` always are), the visibility allowed (403), the columns from the first
 * file (400 on the model's messages), then the repository's commit (400).
 */
export function createContent(
  c: Ctx,
  user: UserRecord,
  actions: FileAction[],
  visibility: Visibility,
): SnippetContent {
  const st = state(c);
  if (actions.length === 0) throw serviceError(400, ["Content can't be blank"]);
  checkVisibility(st, user, visibility);
  const file_name = actions[0]!.file_path ?? '';
  const content = actions[0]!.content ?? '';
  const result = applyActions([], actions);
  const problems = columnProblems(st, file_name, content, 'files' in result ? result.files : []);
  if (problems.length) throw serviceError(400, problems);
  if ('error' in result) throw repositoryError(true, result.error);
  return contentOf(file_name, content, result.files);
}

export type SnippetChanges = Partial<Pick<SnippetRecord, 'title' | 'description' | 'visibility'>> & {
  file_name?: string;
  content?: string;
};

/**
 * `validate_params_for_multiple_files`, then `Snippets::UpdateService`: the actions valid (403), a
 * changed visibility allowed (403), the columns (400), the commit (400); then the one write and the
 * updated snippet.
 */
export function saveSnippetChanges(
  c: Ctx,
  user: UserRecord,
  s: SnippetRecord,
  changes: SnippetChanges,
  actions?: FileAction[],
): Response {
  const st = state(c);
  const current = repoFiles(s);
  if ((changes.content !== undefined || changes.file_name !== undefined) && current.length > 1)
    throw serviceError(400, ['To update Snippets with multiple files, you must use the `files` parameter']);
  if (actions?.length && !actionsValid(actions, false))
    throw serviceError(403, ['Snippet files have invalid data']);
  if (changes.visibility !== undefined && changes.visibility !== s.visibility)
    checkVisibility(st, user, changes.visibility);
  const columns = { ...changes };
  let commit: FileAction[];
  if (actions?.length) {
    if (actions[0]!.content !== undefined) columns.content = actions[0]!.content;
    if (actions[0]!.file_path !== undefined) columns.file_name = actions[0]!.file_path;
    commit = actions;
  } else commit = legacyActions(current, changes);
  const result = commit.length ? applyActions(current, commit) : { files: current };
  const file_name = columns.file_name ?? s.file_name;
  const content = columns.content ?? s.content;
  const problems = columnProblems(
    st,
    file_name,
    content !== s.content ? content : '',
    'files' in result && commit.length ? result.files : [],
  );
  if (problems.length) throw serviceError(400, problems);
  if ('error' in result) throw repositoryError(false, result.error);
  const saved = contentOf(file_name, content, result.files);
  const now = c.get('fx').clock.iso();
  write(c, (d) => updateSnippet(d, s.id, { ...columns, ...saved, files: saved.files }, now));
  return c.json(snippetJson(c, tget(state(c).issuables.snippets, s.id)!));
}

/**
 * `build_actions_from_params` of the update service: the content and file name given change the one
 * file (a new name moves it); neither given commits nothing.
 */
function legacyActions(current: SnippetFile[], changes: SnippetChanges): FileAction[] {
  if (changes.content === undefined && changes.file_name === undefined) return [];
  const previous = current[0]?.path;
  const path = changes.file_name ?? previous;
  if (previous === undefined) return [{ action: 'create', file_path: path, content: changes.content ?? '' }];
  if (path !== previous)
    return [{ action: 'move', previous_path: previous, file_path: path, content: changes.content }];
  if (changes.content === undefined) return [];
  return [{ action: 'update', file_path: path, content: changes.content }];
}

const createShape = {
  title: p.str().required().notBlank(),
  description: p.str(),
  visibility: p.str().values(VISIBILITIES),
  files: p.hashArray(),
  content: p.str().notBlank(),
  file_name: p.str(),
};

const updateShape = {
  id: p.int().required(),
  title: p.str().notBlank(),
  file_name: p.str(),
  description: p.str(),
  content: p.str().notBlank(),
  visibility: p.str().values(VISIBILITIES),
  files: p.hashArray(),
};

export function snippetsRoutes(r: ApiRouter): void {
  r.get('/snippets', { auth: 'required', params: paginationParams }, (c) => {
    const st = state(c);
    const user = viewer(c)!;
    const ids = mget(st.issuables.idx.owned, authorKey(user.id)).reverse();
    const list = ids.map((id) => tget(st.issuables.snippets, id)!).filter((s) => canReadSnippet(st, user, s));
    return paginate(c, list, (s) => snippetJson(c, s));
  });

  // Before `:id`, which `public` would otherwise reach as an invalid id.
  r.get('/snippets/public', { auth: 'required', params: paginationParams }, (c) => {
    const st = state(c);
    const ids = mget(st.issuables.idx.owned, PUBLIC_KEY).reverse();
    return paginate(
      c,
      ids.map((id) => tget(st.issuables.snippets, id)!),
      (s) => snippetJson(c, s),
    );
  });

  r.get('/snippets/:id', { params: idShape }, (c, prm) => c.json(snippetJson(c, readable(c, prm.id))));

  r.get('/snippets/:id/raw', { params: idShape }, (c, prm) => rawText(c, readable(c, prm.id)));

  r.get(
    '/snippets/:id/files/:ref/:file_path/raw',
    { params: { ...idShape, ref: p.str().required(), file_path: p.str().required() } },
    (c, prm) => rawFile(c, readable(c, prm.id), prm.ref, prm.file_path),
  );

  r.post('/snippets', (c) => {
    const user = requireUser(c);
    const { prm, actions } = parseCreateParams(c, createShape);
    // `create_snippet`: external users may not create personal snippets.
    if (user.external) throw forbidden();
    const st = state(c);
    const visibility =
      (prm.visibility as Visibility | undefined) ?? setting(st, 'default_snippet_visibility');
    const files = createContent(c, user, actions, visibility);
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) =>
      createPersonalSnippet(
        d,
        {
          author_id: user.id,
          title: prm.title,
          description: prm.description ?? null,
          ...files,
          visibility,
          user_agent: c.req.header('user-agent') ?? null,
          ip_address: (c.req.header('x-forwarded-for') ?? '127.0.0.1').split(',')[0]!.trim(),
        },
        now,
      ),
    );
    return c.json(snippetJson(c, tget(state(c).issuables.snippets, id)!), 201);
  });

  r.put('/snippets/:id', (c) => {
    const user = requireUser(c);
    const { prm, actions } = parseUpdateParams(c, updateShape);
    const s = own(c, prm.id);
    const changes: SnippetChanges = {};
    if (prm.title !== undefined) changes.title = prm.title;
    if (prm.file_name !== undefined) changes.file_name = prm.file_name;
    if (prm.description !== undefined) changes.description = prm.description;
    if (prm.content !== undefined) changes.content = prm.content;
    if (prm.visibility !== undefined) changes.visibility = prm.visibility as Visibility;
    return saveSnippetChanges(c, user, s, changes, actions);
  });

  r.delete('/snippets/:id', { params: idShape }, (c, prm) => {
    const s = own(c, prm.id);
    checkUnmodifiedSince(c, s.updated_at);
    write(c, (d) => deleteSnippet(d, s.id));
    return c.body(null, 204);
  });

  r.get('/snippets/:id/user_agent_detail', { auth: 'admin', params: idShape }, (c, prm) => {
    requireAdmin(c);
    const s = tget(state(c).issuables.snippets, prm.id);
    if (!s) throw recordNotFound('no snippet with this id');
    if (!s.user_agent && !s.ip_address) throw notFound('UserAgentDetail');
    return c.json({
      user_agent: s.user_agent ?? null,
      ip_address: s.ip_address ?? null,
      akismet_submitted: false,
    });
  });
}
