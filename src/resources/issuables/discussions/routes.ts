/**
 * The discussions API (`lib/api/discussions.rb`) on issues, merge requests, project snippets, commits
 * (by SHA or ref) and (paid tiers, by id) group epics: list
 * and get discussions, start one (a diff note with `position` on merge requests and commits), reply, get,
 * edit, resolve and delete its notes, and resolve a merge request discussion. The notes are the notes
 * API's notes (a commit's: the commit comments API's): an individual note is a discussion of its own.
 * Every route needs a user first.
 */
import { requireUser } from '../../../core/auth.js';
import { state, write, type Ctx } from '../../../core/context.js';
import { badRequest, forbidden, notFound } from '../../../core/errors.js';
import { offsetPage, paginate, paginationParams, sendPage } from '../../../core/pagination.js';
import { exactlyOneOf, p, parseParams, type RawParams } from '../../../core/params.js';
import { parse, type ApiRouter } from '../../../core/router.js';
import { tget } from '../../../core/table.js';
import { rubyInspect } from '../../groups/model.js';
import { emitEvent } from '../../integrations/events.js';
import { canComment, canSeeNote } from '../access.js';
import { issuableRenderer, type IssuableRenderer } from '../entities.js';
import { createNote, isResolvable, keepNoteCommits, type NewNote } from '../model.js';
import { lineForPosition, positionDiffLines } from '../../repository/diff-lines.js';
import { bodyErrors, destroyNote, editNote, findNoteable, noteOf, type Noteable } from '../notes.js';
import type { DiffPosition, NoteableType, NoteRecord } from '../store.js';
import {
  convertToThread,
  discussionResolvable,
  discussionsOf,
  isIndividual,
  notesOf,
  positionComplete,
  resolveNotes,
} from './model.js';

/** `Entities::Discussion`. */
function discussionEntity(r: IssuableRenderer, notes: readonly NoteRecord[]) {
  return {
    id: notes[0]!.discussion_id,
    individual_note: isIndividual(notes),
    notes: notes.map((n) => r.note(n)),
  };
}

/** `readable_discussion_notes`: the discussion's notes the viewer may read, oldest first. */
function readableNotes(c: Ctx, type: NoteableType, n: Noteable, discussionId: string): NoteRecord[] {
  return notesOf(state(c), type, n.id, n.commitId).filter(
    (x) => x.discussion_id === discussionId && canSeeNote(n.a, x),
  );
}

const intId = { noteable_id: p.int().required() };
/** A commit is named by a string (its SHA, or a ref), every other noteable by an integer. */
const commitId = { noteable_id: p.str().required() };
const idShapeOf = (type: NoteableType) => (type === 'Commit' ? commitId : intId);
const discussionShapeOf = (type: NoteableType) => ({ ...idShapeOf(type), discussion_id: p.str().required() });

function list(type: NoteableType) {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, { ...idShapeOf(type), ...paginationParams });
    const n = findNoteable(c, type, prm.noteable_id);
    // Pages of discussions; notes the viewer may not read drop out after, and with them empty discussions.
    const page = offsetPage(c, discussionsOf(notesOf(state(c), type, n.id, n.commitId)));
    const visible = page.items.map((d) => d.filter((x) => canSeeNote(n.a, x))).filter((d) => d.length > 0);
    const r = issuableRenderer(c);
    return sendPage(c, { ...page, items: visible }, (d) => discussionEntity(r, d));
  };
}

function show(type: NoteableType) {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, discussionShapeOf(type));
    const n = findNoteable(c, type, prm.noteable_id);
    const notes = readableNotes(c, type, n, prm.discussion_id);
    if (notes.length === 0) throw notFound('Discussion');
    return c.json(discussionEntity(issuableRenderer(c), notes));
  };
}

const POSITION_SHAPE = {
  'position[base_sha]': p.str().required(),
  'position[start_sha]': p.str().required(),
  'position[head_sha]': p.str().required(),
  'position[position_type]': p
    .str()
    .values(['text', 'image'] as const)
    .required(),
  'position[new_path]': p.str(),
  'position[new_line]': p.int(),
  'position[old_path]': p.str(),
  'position[old_line]': p.int(),
  'position[width]': p.int(),
  'position[height]': p.int(),
  'position[x]': p.int(),
  'position[y]': p.int(),
};

/** `line_range`'s start and end, each with the four string fields the API declares. */
function lineRange(raw: unknown): Record<string, unknown> | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const out: Record<string, unknown> = {};
  for (const end of ['start', 'end'] as const) {
    const v = (raw as Record<string, unknown>)[end];
    if (typeof v !== 'object' || v === null || Array.isArray(v)) continue;
    const part: Record<string, string> = {};
    for (const k of ['line_code', 'type', 'old_line', 'new_line'])
      if (Object.hasOwn(v, k)) part[k] = String((v as Record<string, unknown>)[k]);
    out[end] = part;
  }
  return out;
}

/** The nested `position` params, checked as Grape checks a declared hash; `Position#to_h` of them. */
function readPosition(raw: RawParams): DiffPosition {
  const flat: RawParams = Object.create(null) as RawParams;
  for (const [k, v] of Object.entries(raw)) flat[`position[${k}]`] = v;
  const prm = parseParams(POSITION_SHAPE, flat);
  const out: DiffPosition = {
    base_sha: prm['position[base_sha]'],
    start_sha: prm['position[start_sha]'],
    head_sha: prm['position[head_sha]'],
    old_path: prm['position[old_path]'] ?? null,
    new_path: prm['position[new_path]'] ?? null,
    position_type: prm['position[position_type]'],
  };
  if (out.position_type === 'text') {
    out.old_line = prm['position[old_line]'] ?? null;
    out.new_line = prm['position[new_line]'] ?? null;
    out.line_range = lineRange(raw.line_range);
  } else {
    out.width = prm['position[width]'] ?? null;
    out.height = prm['position[height]'] ?? null;
    out.x = prm['position[x]'] ?? null;
    out.y = prm['position[y]'] ?? null;
  }
  return out;
}

function withoutLineRange(raw: RawParams): RawParams {
  const out = Object.create(null) as RawParams;
  for (const [k, v] of Object.entries(raw)) if (k !== 'line_range') out[k] = v;
  return out;
}

/**
 * `DiffNote`'s validations on a commit: a text position needs a `line_code`, the line of the position's
 * diff (from `start_sha` to `head_sha`) with exactly its old and new line; and the position complete.
 */
function commitDiffNoteErrors(c: Ctx, n: Noteable, pos: DiffPosition): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (pos.position_type === 'text' && n.parent.kind === 'project') {
    const lines = positionDiffLines(state(c), n.parent.project, pos);
    if (!lines || !lineForPosition(lines, pos))
      errors.line_code = ["can't be blank", 'must be a valid line code'];
  }
  if (!positionComplete(pos)) errors.position = ['is incomplete'];
  return errors;
}

/** What a reply takes of a commit discussion's first note: its class and its line. */
function replyOnLine(first: NoteRecord): Partial<NewNote> {
  if (first.type === 'DiffNote') return { type: 'DiffNote', position: first.position };
  if (first.type === 'LegacyDiffNote') return { type: 'LegacyDiffNote', legacy_line: first.legacy_line };
  return { type: 'DiscussionNote' };
}

/** `set_note_created_at`: owners and admins may date a note. */
function createdAt(n: Noteable, raw: string | undefined): string | undefined {
  if (raw === undefined || !n.a.owner) return undefined;
  const t = Date.parse(raw);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

function start(type: NoteableType) {
  return (c: Ctx): Response => {
    const user = requireUser(c);
    const prm = parse(c, {
      ...idShapeOf(type),
      body: p.str().required(),
      created_at: p.str(),
      position: p.hash(),
    });
    // On a commit the position takes no `line_range` (the API declares it for merge requests only).
    const rawPosition =
      type === 'Commit' && prm.position
        ? withoutLineRange(prm.position)
        : (prm.position as RawParams | undefined);
    const position = rawPosition === undefined ? undefined : readPosition(rawPosition);
    const n = findNoteable(c, type, prm.noteable_id);
    if (!canComment(n.a, n.locked)) throw forbidden();
    const errors = { ...bodyErrors(prm.body) };
    // `DiffNote`: only merge requests and commits take one, and its position must be complete.
    if (position && type === 'Commit') Object.assign(errors, commitDiffNoteErrors(c, n, position));
    else if (position && type !== 'MergeRequest') errors.noteable_type = ['is not included in the list'];
    else if (position && !positionComplete(position)) errors.position = ['is incomplete'];
    if (Object.keys(errors).length) throw badRequest(`Note ${rubyInspect(errors)}`);
    const now = c.get('fx').clock.iso();
    const when = createdAt(n, prm.created_at);
    const id = write(c, (d) => {
      const made = createNote(
        d,
        {
          noteable_type: type,
          noteable_id: n.id,
          commit_id: n.commitId,
          project_id: n.parent.kind === 'project' ? n.parent.project.id : null,
          group_id: n.parent.kind === 'group' ? n.parent.group.id : null,
          author_id: user.id,
          body: prm.body,
          type: position ? 'DiffNote' : 'DiscussionNote',
          position,
          created_at: when,
          updated_at: when,
        },
        now,
      );
      keepNoteCommits(d, made);
      return made;
    });
    emitEvent(c, { kind: 'note', id });
    const note = tget(state(c).issuables.notes, id)!;
    return c.json(discussionEntity(issuableRenderer(c), readableNotes(c, type, n, note.discussion_id)), 201);
  };
}

function reply(type: NoteableType) {
  return (c: Ctx): Response => {
    const user = requireUser(c);
    const prm = parse(c, { ...discussionShapeOf(type), body: p.str().required(), created_at: p.str() });
    const n = findNoteable(c, type, prm.noteable_id);
    const notes = readableNotes(c, type, n, prm.discussion_id);
    const first = notes[0];
    if (!first) throw notFound('Discussion');
    // An individual note of an issue, merge request or epic becomes a thread; other ones cannot be replied to.
    if (first.type === null && type !== 'Issue' && type !== 'MergeRequest' && type !== 'Epic')
      throw badRequest('Discussion can not be replied to.');
    if (!canComment(n.a, n.locked)) throw forbidden();
    const errors = bodyErrors(prm.body);
    if (errors) throw badRequest(`Note ${rubyInspect(errors)}`);
    const now = c.get('fx').clock.iso();
    const when = createdAt(n, prm.created_at);
    const id = write(c, (d) => {
      convertToThread(d, first.id);
      const made = createNote(
        d,
        {
          noteable_type: type,
          noteable_id: n.id,
          commit_id: n.commitId,
          project_id: n.parent.kind === 'project' ? n.parent.project.id : null,
          group_id: n.parent.kind === 'group' ? n.parent.group.id : null,
          author_id: user.id,
          body: prm.body,
          // `Discussion#reply_attributes`: a reply on a commit's line is a note on the same line.
          ...(type === 'Commit' ? replyOnLine(first) : { type: 'DiscussionNote' as const }),
          discussion_id: first.discussion_id,
          created_at: when,
          updated_at: when,
        },
        now,
      );
      keepNoteCommits(d, made);
      return made;
    });
    emitEvent(c, { kind: 'note', id });
    return c.json(issuableRenderer(c).note(tget(state(c).issuables.notes, id)!), 201);
  };
}

const noteShapeOf = (type: NoteableType) => ({ ...discussionShapeOf(type), note_id: p.int().required() });

function listNotes(type: NoteableType) {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, { ...discussionShapeOf(type), ...paginationParams });
    const n = findNoteable(c, type, prm.noteable_id);
    const notes = readableNotes(c, type, n, prm.discussion_id);
    if (notes.length === 0) throw notFound('Notes');
    const r = issuableRenderer(c);
    return paginate(c, notes, (x) => r.note(x));
  };
}

function showNote(type: NoteableType) {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, noteShapeOf(type));
    const n = findNoteable(c, type, prm.noteable_id);
    const note = noteOf(state(c), n, prm.note_id);
    if (!canSeeNote(n.a, note)) throw notFound('Note');
    return c.json(issuableRenderer(c).note(note));
  };
}

/** `resolve_note`: developers and up, the merge request's author, and (for one note) the note's author. */
function canResolve(c: Ctx, n: Noteable, noteAuthor?: number): boolean {
  const user = c.get('viewer').user;
  if (!user) return false;
  const mr = n.type === 'MergeRequest' ? tget(state(c).issuables.mergeRequests, n.id) : undefined;
  return n.a.developer || mr?.author_id === user.id || noteAuthor === user.id;
}

function updateNote(type: NoteableType) {
  return (c: Ctx): Response => {
    const user = requireUser(c);
    const prm = parse(c, { ...noteShapeOf(type), body: p.str(), resolved: p.bool() });
    exactlyOneOf(c.get('params'), 'body', 'resolved');
    const n = findNoteable(c, type, prm.noteable_id);
    const note = noteOf(state(c), n, prm.note_id);
    if (prm.resolved === undefined) editNote(c, n, note, prm.body);
    else {
      if (!canResolve(c, n, note.author_id)) throw forbidden();
      if (!isResolvable(note)) throw badRequest('Note is not resolvable');
      const now = prm.resolved ? c.get('fx').clock.iso() : null;
      write(c, (d) => resolveNotes(d, [note.id], user.id, now));
    }
    return c.json(issuableRenderer(c).note(tget(state(c).issuables.notes, note.id)!));
  };
}

function deleteNote(type: NoteableType) {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, noteShapeOf(type));
    const n = findNoteable(c, type, prm.noteable_id);
    return destroyNote(c, n, noteOf(state(c), n, prm.note_id));
  };
}

/** `PUT .../discussions/:discussion_id` on merge requests: resolves or unresolves the whole discussion. */
function resolveDiscussion(c: Ctx): Response {
  const user = requireUser(c);
  const prm = parse(c, { ...discussionShapeOf('MergeRequest'), resolved: p.bool().required() });
  const n = findNoteable(c, 'MergeRequest', prm.noteable_id);
  const notes = notesOf(state(c), 'MergeRequest', n.id).filter((x) => x.discussion_id === prm.discussion_id);
  if (notes.length === 0) throw notFound('Discussion');
  // `Discussion#can_resolve?`: a resolvable discussion, and a user who may resolve notes.
  if (!discussionResolvable(notes) || !canResolve(c, n)) throw forbidden();
  const now = prm.resolved ? c.get('fx').clock.iso() : null;
  write(c, (d) =>
    resolveNotes(
      d,
      notes.map((x) => x.id),
      user.id,
      now,
    ),
  );
  return c.json(
    discussionEntity(issuableRenderer(c), readableNotes(c, 'MergeRequest', n, prm.discussion_id)),
  );
}

/** Epics (paid tiers) are addressed by id, as their notes are. */
const BASES: [NoteableType, string, 'premium' | undefined][] = [
  ['Issue', '/projects/:id/issues/:noteable_id/discussions', undefined],
  ['MergeRequest', '/projects/:id/merge_requests/:noteable_id/discussions', undefined],
  ['Snippet', '/projects/:id/snippets/:noteable_id/discussions', undefined],
  ['Epic', '/groups/:id/epics/:noteable_id/discussions', 'premium'],
  ['Commit', '/projects/:id/repository/commits/:noteable_id/discussions', undefined],
];

export function discussionsRoutes(r: ApiRouter): void {
  for (const [type, base, tier] of BASES) {
    const o = tier ? { tier } : {};
    r.get(base, o, list(type));
    r.get(`${base}/:discussion_id`, o, show(type));
    r.post(base, o, start(type));
    r.get(`${base}/:discussion_id/notes`, o, listNotes(type));
    r.post(`${base}/:discussion_id/notes`, o, reply(type));
    r.get(`${base}/:discussion_id/notes/:note_id`, o, showNote(type));
    r.put(`${base}/:discussion_id/notes/:note_id`, o, updateNote(type));
    r.delete(`${base}/:discussion_id/notes/:note_id`, o, deleteNote(type));
    if (type === 'MergeRequest') r.put(`${base}/:discussion_id`, resolveDiscussion);
  }
}
