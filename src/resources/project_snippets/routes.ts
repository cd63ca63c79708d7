/**
 * Project snippets (`/projects/:id/snippets`). Every route first finds the project and refuses callers
 * the snippets feature is closed to (the endpoints' `before` filter, ahead of the params); a snippet the
 * caller may not read is not found. Reporters create snippets; their authors and maintainers change and
 * delete them. A snippet holds one file.
 */
import { ACCESS, projectAccess } from '../../core/access.js';
import { requireAdmin, requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, grapeError, notFound, recordNotFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { atLeastOneOf, exactlyOneOf, p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { Visibility } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { createSnippet } from '../issuables/model.js';
import type { SnippetRecord } from '../issuables/store.js';
import { featureAvailable } from '../projects/access.js';
import { loadProject } from '../projects/helpers.js';
import type { Project } from '../projects/model.js';
import { canReadSnippet, contentProblems, deleteSnippet, updateSnippet } from '../snippets/model.js';
import {
  checkVisibility,
  rawText,
  saveSnippetChanges,
  serviceError,
  snippetJson,
} from '../snippets/routes.js';

const VISIBILITIES = ['private', 'internal', 'public'] as const;

/** `check_snippets_enabled`: the project, and the snippets feature open to the caller. */
function snippetsProject(c: Ctx): { project: Project; level: number } {
  const project = loadProject(c);
  const user = c.get('viewer').user;
  const level = user ? projectAccess(state(c), user, project) : 0;
  if (!featureAvailable(project.snippets_access_level, 'snippets', level, user?.admin === true))
    throw forbidden();
  return { project, level };
}

/** `snippets_for_current_user`: the project's snippets the caller may read, newest first. */
function visibleSnippets(c: Ctx, project: Project): SnippetRecord[] {
  const st = state(c);
  const user = c.get('viewer').user;
  return mget(st.issuables.idx.owned, `sp${project.id}`)
    .reverse()
    .map((id) => tget(st.issuables.snippets, id)!)
    .filter((s) => canReadSnippet(st, user, s));
}

function findVisible(c: Ctx, project: Project, id: number, missing: () => Error): SnippetRecord {
  const s = visibleSnippets(c, project).find((x) => x.id === id);
  if (!s) throw missing();
  return s;
}

const snippetId = { snippet_id: p.int().required() };

interface OneFile {
  file_name: string;
  content: string;
}

/** `files[]` as the 13.x API takes them, with the single file this model keeps. */
function oneFile(files: unknown, field: 'file_path' | 'previous_path' = 'file_path'): OneFile | undefined {
  if (files === undefined) return undefined;
  if (!Array.isArray(files) || files.length === 0) throw grapeError(400, 'files is invalid');
  if (files.length > 1)
    throw grapeError(400, 'files holds more than one file: fauxlab keeps one file per snippet');
  const f = files[0] as Record<string, unknown>;
  const path = f[field] ?? f.file_path;
  if (typeof path !== 'string' || path.trim() === '') throw grapeError(400, `files[0][${field}] is empty`);
  if (typeof f.content !== 'string' || f.content === '') throw grapeError(400, 'files[0][content] is empty');
  return { file_name: path, content: f.content };
}

const ipOf = (c: Ctx) => (c.req.header('x-forwarded-for') ?? '127.0.0.1').split(',')[0]!.trim();

export function projectSnippetsRoutes(r: ApiRouter): void {
  const base = '/projects/:id/snippets';

  r.get(base, (c) => {
    const { project } = snippetsProject(c);
    parse(c, paginationParams);
    requireUser(c);
    return paginate(c, visibleSnippets(c, project), (s) => snippetJson(c, s));
  });

  r.get(`${base}/:snippet_id`, (c) => {
    const { project } = snippetsProject(c);
    const prm = parse(c, snippetId);
    return c.json(
      snippetJson(
        c,
        findVisible(c, project, prm.snippet_id, () => recordNotFound('no such snippet')),
      ),
    );
  });

  r.post(base, { auth: 'optional' }, (c) => {
    const { project, level } = snippetsProject(c);
    const prm = parse(c, {
      title: p.str().required().notBlank(),
      description: p.str(),
      visibility: p.str().required().values(VISIBILITIES),
      files: p.hashArray(),
      content: p.str().notBlank(),
      file_name: p.str(),
    });
    const raw = c.get('params');
    if (raw.content !== undefined && raw.file_name === undefined)
      throw grapeError(400, 'file_name is missing');
    exactlyOneOf(raw, 'files', 'content');
    const user = requireUser(c);
    if (!user.admin && level < ACCESS.REPORTER) throw forbidden();
    const file = oneFile(prm.files) ?? { file_name: prm.file_name!, content: prm.content! };
    const st = state(c);
    const visibility = prm.visibility as Visibility;
    checkVisibility(st, user, visibility);
    const problems = contentProblems(st, file.content);
    if (problems.length) throw serviceError(400, problems);
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) =>
      createSnippet(d, {
        project_id: project.id,
        author_id: user.id,
        title: prm.title,
        description: prm.description ?? null,
        ...file,
        visibility,
        created_at: now,
        updated_at: now,
        user_agent: c.req.header('user-agent') ?? null,
        ip_address: ipOf(c),
      }),
    );
    return c.json(snippetJson(c, tget(state(c).issuables.snippets, id)!), 201);
  });

  r.put(`${base}/:snippet_id`, { auth: 'optional' }, (c) => {
    const { project, level } = snippetsProject(c);
    const prm = parse(c, {
      ...snippetId,
      content: p.str().notBlank(),
      description: p.str(),
      file_name: p.str(),
      title: p.str().notBlank(),
      visibility: p.str().values(VISIBILITIES),
      files: p.hashArray(),
    });
    const raw = c.get('params');
    atLeastOneOf(raw, 'content', 'description', 'files', 'file_name', 'title', 'visibility');
    const user = requireUser(c);
    const s = findVisible(c, project, prm.snippet_id, () => notFound('Snippet'));
    if (!user.admin && s.author_id !== user.id && level < ACCESS.MAINTAINER) throw forbidden();
    const changes: Parameters<typeof updateSnippet>[2] = {};
    for (const k of ['title', 'description', 'file_name', 'content'] as const)
      if (prm[k] !== undefined) changes[k] = prm[k];
    const file = oneFile(prm.files);
    if (file) Object.assign(changes, file);
    if (prm.visibility !== undefined) changes.visibility = prm.visibility as Visibility;
    return saveSnippetChanges(c, user, s, changes);
  });

  r.delete(`${base}/:snippet_id`, { auth: 'optional' }, (c) => {
    const { project, level } = snippetsProject(c);
    const prm = parse(c, snippetId);
    const user = requireUser(c);
    const s = findVisible(c, project, prm.snippet_id, () => notFound('Snippet'));
    if (!user.admin && s.author_id !== user.id && level < ACCESS.MAINTAINER) throw forbidden();
    checkUnmodifiedSince(c, s.updated_at);
    write(c, (d) => deleteSnippet(d, s.id));
    return c.body(null, 204);
  });

  r.get(`${base}/:snippet_id/raw`, (c) => {
    const { project } = snippetsProject(c);
    const prm = parse(c, snippetId);
    return rawText(
      c,
      findVisible(c, project, prm.snippet_id, () => notFound('Snippet')),
    );
  });

  r.get(`${base}/:snippet_id/files/:ref/:file_path/raw`, (c) => {
    const { project } = snippetsProject(c);
    const prm = parse(c, { ...snippetId, ref: p.str().required(), file_path: p.str().required() });
    const s = findVisible(c, project, prm.snippet_id, () => notFound('Snippet'));
    // A snippet's repository holds its one file on the default branch.
    if (!['master', 'HEAD'].includes(prm.ref) || prm.file_path !== s.file_name) throw notFound('File');
    return rawText(c, s);
  });

  r.get(`${base}/:snippet_id/user_agent_detail`, (c) => {
    const { project } = snippetsProject(c);
    const prm = parse(c, snippetId);
    requireAdmin(c);
    const s = tget(state(c).issuables.snippets, prm.snippet_id);
    if (!s || s.project_id !== project.id) throw recordNotFound('no such snippet in the project');
    if (!s.user_agent && !s.ip_address) throw notFound('UserAgentDetail');
    return c.json({
      user_agent: s.user_agent ?? null,
      ip_address: s.ip_address ?? null,
      akismet_submitted: false,
    });
  });
}
