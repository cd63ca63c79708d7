/**
 * The personal snippets API (`/snippets`). Reads go through what the viewer may read (personal snippets
 * by visibility, project snippets by the project's snippet access), and a hidden snippet is the same 404
 * as a missing one; updates and deletes look only among the caller's own snippets, as the platform's
 * `snippets_for_current_user` does.
 */
import { requireAdmin, requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, notFound, recordNotFound } from '../../core/errors.js';
import { paginate, paginationParams, requestBase } from '../../core/pagination.js';
import { atLeastOneOf, p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { PlatformState, UserRecord, Visibility } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import type { SnippetRecord } from '../issuables/store.js';
import { restrictedMessage } from '../projects/validation.js';
import { setting, visibilityRestricted } from '../settings/model.js';
import { userRenderer } from '../users/entities.js';
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
    file_name: s.file_name,
    description: s.description,
    visibility: s.visibility,
    author: author ? userRenderer(c).basic(author) : null,
    expires_at: null,
    updated_at: s.updated_at,
    created_at: s.created_at,
    project_id: s.project_id,
    web_url: web,
    raw_url: `${web}/raw`,
  };
}

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

/** Raw text as the platform sends a snippet blob. */
export function rawText(c: Ctx, s: SnippetRecord): Response {
  const name = encodeURIComponent(s.file_name);
  return c.body(s.content, 200, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Disposition': `inline; filename="${s.file_name.replace(/"/g, '%22')}"; filename*=UTF-8''${name}`,
  });
}

const createShape = {
  title: p.str().required().notBlank(),
  file_name: p.str().required(),
  content: p.str().required().notBlank(),
  description: p.str(),
  visibility: p.str().values(VISIBILITIES),
};

const updateShape = {
  id: p.int().required(),
  title: p.str().notBlank(),
  file_name: p.str(),
  description: p.str(),
  content: p.str().notBlank(),
  visibility: p.str().values(VISIBILITIES),
};

/**
 * The update services' checks (a changed visibility must be allowed, changed content within the size
 * limit), then the one write and the updated snippet.
 */
export function saveSnippetChanges(
  c: Ctx,
  user: UserRecord,
  s: SnippetRecord,
  changes: Parameters<typeof updateSnippet>[2],
): Response {
  const st = state(c);
  if (changes.visibility !== undefined && changes.visibility !== s.visibility)
    checkVisibility(st, user, changes.visibility);
  if (changes.content !== undefined && changes.content !== s.content) {
    const problems = contentProblems(st, changes.content);
    if (problems.length) throw serviceError(400, problems);
  }
  const now = c.get('fx').clock.iso();
  write(c, (d) => updateSnippet(d, s.id, changes, now));
  return c.json(snippetJson(c, tget(state(c).issuables.snippets, s.id)!));
}

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
    (c, prm) => {
      const s = readable(c, prm.id);
      // A snippet's repository holds one file on its default branch.
      if (!['master', 'HEAD'].includes(prm.ref) || prm.file_path !== s.file_name) throw notFound('File');
      return rawText(c, s);
    },
  );

  r.post('/snippets', (c) => {
    const user = requireUser(c);
    const prm = parse(c, createShape);
    // `create_snippet`: external users may not create personal snippets.
    if (user.external) throw forbidden();
    const st = state(c);
    const visibility =
      (prm.visibility as Visibility | undefined) ?? setting(st, 'default_snippet_visibility');
    checkVisibility(st, user, visibility);
    const problems = contentProblems(st, prm.content);
    if (problems.length) throw serviceError(400, problems);
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) =>
      createPersonalSnippet(
        d,
        {
          author_id: user.id,
          title: prm.title,
          file_name: prm.file_name,
          description: prm.description ?? null,
          content: prm.content,
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
    const prm = parse(c, updateShape);
    atLeastOneOf(c.var.params, 'title', 'file_name', 'content', 'visibility');
    const s = own(c, prm.id);
    const changes: Parameters<typeof updateSnippet>[2] = {};
    if (prm.title !== undefined) changes.title = prm.title;
    if (prm.file_name !== undefined) changes.file_name = prm.file_name;
    if (prm.description !== undefined) changes.description = prm.description;
    if (prm.content !== undefined) changes.content = prm.content;
    if (prm.visibility !== undefined) changes.visibility = prm.visibility as Visibility;
    return saveSnippetChanges(c, user, s, changes);
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
