/**
 * Project snippets (`/projects/:id/snippets`). Every route first finds the project and refuses callers
 * the snippets feature is closed to (the endpoints' `before` filter, ahead of the params); a snippet the
 * caller may not read is not found. Reporters create snippets; their authors and maintainers change and
 * delete them. A snippet holds up to ten files.
 */
import { ACCESS, projectAccess } from '../../core/access.js';
import { requireAdmin, requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, notFound, recordNotFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { Visibility } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { createSnippet } from '../issuables/model.js';
import type { SnippetRecord } from '../issuables/store.js';
import { featureAvailable } from '../projects/access.js';
import { loadProject } from '../projects/helpers.js';
import type { Project } from '../projects/model.js';
import { canReadSnippet, deleteSnippet } from '../snippets/model.js';
import {
  createContent,
  parseCreateParams,
  parseUpdateParams,
  rawFile,
  rawText,
  saveSnippetChanges,
  snippetJson,
  type SnippetChanges,
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

const createShape = {
  title: p.str().required().notBlank(),
  description: p.str(),
  visibility: p.str().required().values(VISIBILITIES),
  files: p.hashArray(),
  content: p.str().notBlank(),
  file_name: p.str(),
};

const updateShape = {
  ...snippetId,
  content: p.str().notBlank(),
  description: p.str(),
  file_name: p.str(),
  title: p.str().notBlank(),
  visibility: p.str().values(VISIBILITIES),
  files: p.hashArray(),
};

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
    const { prm, actions } = parseCreateParams(c, createShape);
    const user = requireUser(c);
    if (!user.admin && level < ACCESS.REPORTER) throw forbidden();
    const file = createContent(c, user, actions, prm.visibility as Visibility);
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) =>
      createSnippet(d, {
        project_id: project.id,
        author_id: user.id,
        title: prm.title,
        description: prm.description ?? null,
        ...file,
        visibility: prm.visibility as Visibility,
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
    const { prm, actions } = parseUpdateParams(c, updateShape);
    const user = requireUser(c);
    const s = findVisible(c, project, prm.snippet_id, () => notFound('Snippet'));
    if (!user.admin && s.author_id !== user.id && level < ACCESS.MAINTAINER) throw forbidden();
    const changes: SnippetChanges = {};
    for (const k of ['title', 'description', 'file_name', 'content'] as const)
      if (prm[k] !== undefined) changes[k] = prm[k];
    if (prm.visibility !== undefined) changes.visibility = prm.visibility as Visibility;
    return saveSnippetChanges(c, user, s, changes, actions);
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
    return rawFile(
      c,
      findVisible(c, project, prm.snippet_id, () => notFound('Snippet')),
      prm.ref,
      prm.file_path,
    );
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
