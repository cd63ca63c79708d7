/**
 * The notes API, the same five operations per noteable type: issues and merge requests (by iid), project
 * snippets and, on paid tiers, group epics (by id). Every route needs a user, before anything else
 * (the API's `before { authenticate! }`).
 *
 * A comment that is only an award emoji (`:+1:`) on an issue or merge request awards it instead and
 * answers with the award emoji. Snippet and epic notes are listed and shown in the spec's shape of them.
 */
import { findGroup, groupAccess } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { badRequest, forbidden, notFound, recordNotFound } from '../../core/errors.js';
import { offsetPage, paginationParams, sendPage, sendPageBytes } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { GroupRecord, PlatformState } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { rubyInspect } from '../groups/model.js';
import { canDownloadCode } from '../projects/access.js';
import type { Project } from '../projects/model.js';
import { resolveCommit } from '../repository/refs.js';
import {
  abilities,
  canAdminNote,
  canComment,
  canSeeIssue,
  canSeeNote,
  type ProjectAbilities,
} from './access.js';
import { issueByIid, loadProject, mergeRequestByIid } from './common.js';
import { issuableRenderer, type IssuableRenderer } from './entities.js';
import { addAward, createNote, deleteNote, findAward } from './model.js';
import { emitEvent } from '../integrations/events.js';
import type { EpicRecord, NoteableType, NoteRecord, SnippetRecord } from './store.js';
import { awardOnly } from './text.js';
import { sendJson } from '../../core/respond.js';

export const NOTE_LIMIT = 1_000_000;

type Parent = { kind: 'project'; project: Project } | { kind: 'group'; group: GroupRecord };

export interface Noteable {
  type: NoteableType;
  /** The record's id; a commit's project id (what its notes keep in `noteable_id`). */
  id: number;
  /** A commit's full SHA. */
  commitId?: string;
  parent: Parent;
  /** Abilities in the parent (a group's members stand in for project abilities on epics). */
  a: ProjectAbilities;
  locked: boolean | null;
  /** The snippet or epic, for the spec's GET shape of their notes. */
  shape?: SnippetRecord | EpicRecord;
}

/** Group abilities in the project-abilities shape: what notes on epics need. */
function groupAbilities(st: PlatformState, c: Ctx, g: GroupRecord): ProjectAbilities {
  const user = c.get('viewer').user;
  const level = groupAccess(st, user, g);
  const admin = user?.admin === true;
  return {
    user,
    level,
    admin,
    issues: true,
    mergeRequests: false,
    allConfidential: admin || level >= 20,
    adminIssue: admin || level >= 20,
    developer: admin || level >= 30,
    maintainer: admin || level >= 40,
    owner: admin || level >= 50,
  };
}

/**
 * `find_noteable`: `NotesFinder#target` looks the noteable up through its finder with `find_by!`, so one
 * that is missing or hidden from the viewer (a confidential issue, the merge requests of a project whose
 * code the viewer may not read) is the record's `404 Not found`.
 */
export function findNoteable(c: Ctx, type: NoteableType, rawId: number | string): Noteable {
  const st = state(c);
  const missing = () => recordNotFound(`no ${type} ${rawId} that this viewer may read`);
  if (type === 'Commit') return findCommitNoteable(c, String(rawId));
  if (type === 'Epic') {
    const group = findGroup(c, c.req.param('id') ?? '');
    const epic = tget(st.issuables.epics, Number(rawId));
    const a = groupAbilities(st, c, group);
    if (!epic || epic.group_id !== group.id || (epic.confidential && !a.allConfidential)) throw missing();
    return { type, id: epic.id, parent: { kind: 'group', group }, a, locked: null, shape: epic };
  }
  const project = loadProject(c);
  const a = abilities(st, c.get('viewer').user, project);
  const id = Number(rawId);
  if (type === 'Issue') {
    const issue = issueByIid(st, project.id, id);
    if (!issue || !canSeeIssue(a, issue)) throw missing();
    return { type, id: issue.id, parent: { kind: 'project', project }, a, locked: issue.discussion_locked };
  }
  if (type === 'MergeRequest') {
    const mr = mergeRequestByIid(st, project.id, id);
    if (!mr || !a.mergeRequests) throw missing();
    return { type, id: mr.id, parent: { kind: 'project', project }, a, locked: mr.discussion_locked };
  }
  const snippet = tget(st.issuables.snippets, id);
  if (!snippet || snippet.project_id !== project.id || !canReadSnippet(a, project, snippet)) throw missing();
  return { type, id: snippet.id, parent: { kind: 'project', project }, a, locked: null, shape: snippet };
}

/**
 * A commit: `NotesFinder#target` looks it up (a sha or a ref) only for a viewer who may download the
 * project's code, and `read_commit` is `download_code`: otherwise, or without such a commit,
 * `404 Commit Not Found`.
 */
function findCommitNoteable(c: Ctx, ref: string): Noteable {
  const st = state(c);
  const project = loadProject(c);
  const user = c.get('viewer').user;
  const a = abilities(st, user, project);
  const sha = canDownloadCode(project, user, a.level) ? resolveCommit(st, project, ref) : undefined;
  if (sha === undefined) throw notFound('Commit', 'no commit by this ref or sha that this viewer may read');
  return {
    type: 'Commit',
    id: project.id,
    commitId: sha,
    parent: { kind: 'project', project },
    a,
    locked: null,
  };
}

/** `read_snippet` on a project snippet (`ProjectSnippetPolicy`), the snippets feature included. */
export function canReadSnippet(a: ProjectAbilities, project: Project, s: SnippetRecord): boolean {
  if (project.snippets_access_level === 'disabled') return false;
  if (a.admin || a.level >= 10 || (a.user && s.author_id === a.user.id)) return true;
  if (project.snippets_access_level === 'private') return false;
  if (s.visibility === 'public') return true;
  return s.visibility === 'internal' && !!a.user && !a.user.external;
}

export function noteOf(st: PlatformState, n: Noteable, noteId: number): NoteRecord {
  const note = tget(st.issuables.notes, noteId);
  if (!note || note.noteable_type !== n.type || note.noteable_id !== n.id || note.commit_id !== n.commitId)
    throw recordNotFound('no such note');
  return note;
}

function render(r: IssuableRenderer, n: Noteable, note: NoteRecord, read: boolean): unknown {
  return read && n.shape ? r.noteOfSnippetOrEpic(note, n.shape) : r.note(note);
}

const idShape = { noteable_id: p.int().required() };

function list(type: NoteableType) {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, {
      ...idShape,
      order_by: p
        .str()
        .values(['created_at', 'updated_at'] as const)
        .default('created_at'),
      sort: p
        .str()
        .values(['asc', 'desc'] as const)
        .default('desc'),
      activity_filter: p.str().values(['all_notes', 'only_comments', 'only_activity']).default('all_notes'),
      ...paginationParams,
    });
    const n = findNoteable(c, type, prm.noteable_id);
    const st = state(c);
    const dir = prm.sort === 'asc' ? 1 : -1;
    const key = prm.order_by;
    let notes = mget(st.issuables.idx.notes, `${type}:${n.id}`).map((id) => tget(st.issuables.notes, id)!);
    if (prm.activity_filter === 'only_comments') notes = notes.filter((x) => !x.system);
    if (prm.activity_filter === 'only_activity') notes = notes.filter((x) => x.system);
    notes.sort((x, y) => (x[key] === y[key] ? (x.id - y.id) * dir : (x[key] < y[key] ? -1 : 1) * dir));
    // The platform pages first and drops unreadable notes after: a page may come out short.
    const page = offsetPage(c, notes);
    page.items = page.items.filter((x) => canSeeNote(n.a, x));
    const r = issuableRenderer(c);
    if (n.shape) return sendPage(c, page, (x) => render(r, n, x, true));
    return sendPageBytes(page, (x) => r.noteBytes(x));
  };
}

function show(type: NoteableType) {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, { note_id: p.int().required(), ...idShape });
    const n = findNoteable(c, type, prm.noteable_id);
    const note = noteOf(state(c), n, prm.note_id);
    if (!canSeeNote(n.a, note)) throw notFound('Note');
    return sendJson(render(issuableRenderer(c), n, note, true));
  };
}

/** Ruby's inspect of a note's errors hash, as `bad_request!("Note #{errors.messages}")` prints it. */
export const noteErrors = (errors: Record<string, string[]>) => `Note ${rubyInspect(errors)}`;

export function bodyErrors(body: string): Record<string, string[]> | null {
  if (body.trim() === '') return { note: ["can't be blank"] };
  if (body.length > NOTE_LIMIT) return { note: [`is too long (maximum is ${NOTE_LIMIT} characters)`] };
  return null;
}

function create(type: NoteableType) {
  return (c: Ctx): Response => {
    const user = requireUser(c);
    const prm = parse(c, {
      ...idShape,
      body: p.str().required(),
      confidential: p.bool(),
      created_at: p.str(),
    } as const) as { noteable_id: number; body: string; confidential?: boolean; created_at?: string };
    const n = findNoteable(c, type, prm.noteable_id);
    if (!canComment(n.a, n.locked)) throw forbidden();
    const st = state(c);
    const now = c.get('fx').clock.iso();
    let createdAt: string | undefined;
    if (prm.created_at !== undefined && n.a.owner) {
      const t = Date.parse(prm.created_at);
      if (!Number.isNaN(t)) createdAt = new Date(t).toISOString();
    }
    const emoji = type === 'Issue' || type === 'MergeRequest' ? awardOnly(prm.body) : undefined;
    if (emoji) {
      if (findAward(st, type as 'Issue', n.id, user.id, emoji))
        throw badRequest(noteErrors({ name: ['has already been taken'] }));
      const id = write(c, (d) => addAward(d, type as 'Issue', n.id, user.id, emoji, now));
      return c.json(issuableRenderer(c).award(tget(state(c).issuables.awards, id)!), 201);
    }
    const errors = bodyErrors(prm.body);
    if (errors) throw badRequest(noteErrors(errors));
    const id = write(c, (d) =>
      createNote(
        d,
        {
          noteable_type: type,
          noteable_id: n.id,
          project_id: n.parent.kind === 'project' ? n.parent.project.id : null,
          group_id: n.parent.kind === 'group' ? n.parent.group.id : null,
          author_id: user.id,
          body: prm.body,
          confidential: type === 'Issue' || type === 'Epic' ? (prm.confidential ?? false) : false,
          created_at: createdAt,
        },
        now,
      ),
    );
    emitEvent(c, { kind: 'note', id });
    return c.json(issuableRenderer(c).note(tget(state(c).issuables.notes, id)!), 201);
  };
}

/** `update_note` once the note is found: `admin_note`, then the body (and an issue note's confidentiality). */
export function editNote(c: Ctx, n: Noteable, note: NoteRecord, body?: string, confidential?: boolean): void {
  if (note.system || !canAdminNote(n.a, note)) throw forbidden();
  if (body !== undefined) {
    const errors = bodyErrors(body);
    if (errors) throw badRequest(`Failed to save note ${rubyInspect(errors)}`);
  }
  const now = c.get('fx').clock.iso();
  write(c, (d) => {
    const rec = tget(d.issuables.notes, note.id)!;
    let changed = false;
    if (body !== undefined && body !== rec.body) {
      rec.body = body;
      changed = true;
    }
    if (confidential !== undefined && confidential !== rec.confidential) {
      rec.confidential = confidential;
      changed = true;
    }
    if (changed) rec.updated_at = now;
  });
}

/** `delete_note` once the note is found: `admin_note`, `If-Unmodified-Since`, then 204. */
export function destroyNote(c: Ctx, n: Noteable, note: NoteRecord): Response {
  if (!canAdminNote(n.a, note)) throw forbidden();
  checkUnmodifiedSince(c, note.updated_at);
  write(c, (d) => deleteNote(d, note.id));
  return c.body(null, 204);
}

function update(type: NoteableType) {
  return (c: Ctx): Response => {
    requireUser(c);
    const bodyParam = type === 'Issue' ? p.str().notBlank() : p.str().notBlank().required();
    const prm = parse(c, {
      ...idShape,
      note_id: p.int().required(),
      body: bodyParam,
      confidential: p.bool(),
    } as const) as { noteable_id: number; note_id: number; body?: string; confidential?: boolean };
    const n = findNoteable(c, type, prm.noteable_id);
    const note = noteOf(state(c), n, prm.note_id);
    editNote(c, n, note, prm.body, type === 'Issue' ? prm.confidential : undefined);
    return c.json(issuableRenderer(c).note(tget(state(c).issuables.notes, note.id)!));
  };
}

function remove(type: NoteableType) {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, { ...idShape, note_id: p.int().required() });
    const n = findNoteable(c, type, prm.noteable_id);
    return destroyNote(c, n, noteOf(state(c), n, prm.note_id));
  };
}

const BASES: [NoteableType, string, 'premium' | undefined][] = [
  ['Issue', '/projects/:id/issues/:noteable_id/notes', undefined],
  ['MergeRequest', '/projects/:id/merge_requests/:noteable_id/notes', undefined],
  ['Snippet', '/projects/:id/snippets/:noteable_id/notes', undefined],
  ['Epic', '/groups/:id/epics/:noteable_id/notes', 'premium'],
];

export function notesRoutes(r: ApiRouter): void {
  for (const [type, base, tier] of BASES) {
    const o = tier ? { tier } : {};
    r.get(base, o, list(type));
    r.get(`${base}/:note_id`, o, show(type));
    r.post(base, o, create(type));
    r.put(`${base}/:note_id`, o, update(type));
    r.delete(`${base}/:note_id`, o, remove(type));
  }
}
