/**
 * Award emoji on issues, merge requests, project snippets and (paid tiers, EE's awardable) group epics,
 * and on their notes: list, get, award and remove, as `award_emoji.rb` has them (its awardables: issues,
 * merge requests and epics by iid, snippets by id):
 * every route authenticates first (its `before { authenticate! }`); the awardable is found by iid without
 * the finders (`find_by!`: `404 Not found` when there is none), then reading and awarding need read access
 * (`404 Award Emoji Not Found`), while removing needs only one's own award (`401` for another's). Upvotes
 * and downvotes of an issuable are its `thumbsup` and `thumbsdown` awards.
 */
import { findGroup } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { notFound, recordNotFound, unauthorized } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { mget, tget } from '../../core/table.js';
import { abilities, canSeeIssue, canSeeNote } from './access.js';
import { issueByIid, loadProject, mergeRequestByIid } from './common.js';
import { issuableRenderer } from './entities.js';
import { canReadEpic } from './epics.js';
import { addAward, findAward, removeAward } from './model.js';
import { canReadSnippet } from './notes.js';
import type { AwardableType } from './store.js';
import { emojiName } from './text.js';

type Type = 'Issue' | 'MergeRequest' | 'Snippet' | 'Epic';

interface Awardable {
  /** What the awards hang on: the issuable, or one of its notes. */
  type: AwardableType;
  id: number;
  /** The project of a project's awardable; none for an epic. */
  project?: ReturnType<typeof loadProject>;
  /** `read_issue` / `read_merge_request` on it. */
  readable: boolean;
}

/**
 * The route's issue or merge request, whoever may read it (`user_project.issues.find_by!(iid:)`); with a
 * `note_id`, that note of it (`awardable.notes.find`), read as its noteable is (and a confidential
 * note only by those who may see it).
 */
function awardable(c: Ctx, type: Type, iid: number, noteId?: number): Awardable {
  if (type === 'Epic') return epicAwardable(c, iid, noteId);
  const project = loadProject(c);
  const st = state(c);
  const a = abilities(st, c.get('viewer').user, project);
  let found: Awardable;
  if (type === 'Issue') {
    const issue = issueByIid(st, project.id, iid);
    if (!issue) throw recordNotFound('no such issue');
    found = { type, id: issue.id, project, readable: canSeeIssue(a, issue) };
  } else if (type === 'MergeRequest') {
    const mr = mergeRequestByIid(st, project.id, iid);
    if (!mr) throw recordNotFound('no such merge request');
    found = { type, id: mr.id, project, readable: a.mergeRequests };
  } else {
    // `user_project.snippets.find(params[:snippet_id])`; reading it is `read_snippet`.
    const snippet = tget(st.issuables.snippets, iid);
    if (!snippet || snippet.project_id !== project.id) throw recordNotFound('no such snippet');
    found = { type, id: snippet.id, project, readable: canReadSnippet(a, project, snippet) };
  }
  if (noteId === undefined) return found;
  const note = tget(st.issuables.notes, noteId);
  if (!note || note.noteable_type !== type || note.noteable_id !== found.id)
    throw recordNotFound('no such note');
  return { type: 'Note', id: note.id, project, readable: found.readable && canSeeNote(a, note) };
}

/**
 * EE's epic awardable: `user_group.epics.find_by!(iid:)` (a confidential one is found, then not read),
 * and a note of it as its epic is read (`read_ability(awardable.noteable)`).
 */
function epicAwardable(c: Ctx, iid: number, noteId?: number): Awardable {
  const group = findGroup(c, c.req.param('id') ?? '');
  const st = state(c);
  const epic = mget(st.issuables.idx.owned, `eg${group.id}`)
    .map((id) => tget(st.issuables.epics, id))
    .find((e) => e?.iid === iid);
  if (!epic) throw recordNotFound('no such epic');
  const readable = canReadEpic(st, c, epic, group);
  if (noteId === undefined) return { type: 'Epic', id: epic.id, readable };
  const note = tget(st.issuables.notes, noteId);
  if (!note || note.noteable_type !== 'Epic' || note.noteable_id !== epic.id)
    throw recordNotFound('no such note');
  return { type: 'Note', id: note.id, readable };
}

/** `can_read_awardable?`, else `not_found!('Award Emoji')`. */
function readableAwardable(c: Ctx, type: Type, iid: number, noteId?: number): Awardable {
  const a = awardable(c, type, iid, noteId);
  if (!a.readable) throw notFound('Award Emoji', `the viewer may not read this ${type}`);
  return a;
}

function routes(
  r: ApiRouter,
  type: Type,
  base: string,
  idName: string,
  onNotes: boolean,
  tier?: 'premium',
): void {
  const opts = tier ? { tier } : {};
  const idShape = (
    onNotes ? { [idName]: p.int().required(), note_id: p.int().required() } : { [idName]: p.int().required() }
  ) as Record<string, ReturnType<typeof p.int>>;
  const iidOf = (prm: Record<string, unknown>) => prm[idName] as number;
  const noteOf = (prm: Record<string, unknown>) => (onNotes ? (prm.note_id as number) : undefined);

  r.get(base, opts, (c) => {
    requireUser(c);
    const prm = parse(c, { ...idShape, ...paginationParams });
    const a = readableAwardable(c, type, iidOf(prm), noteOf(prm));
    const st = state(c);
    const list = mget(st.issuables.idx.awards, `${a.type}:${a.id}`).map((id) =>
      tget(st.issuables.awards, id)!,
    );
    const rr = issuableRenderer(c);
    return paginate(c, list, (x) => rr.award(x));
  });

  r.get(`${base}/:award_id`, opts, (c) => {
    requireUser(c);
    const prm = parse(c, { ...idShape, award_id: p.int().required() });
    const a = readableAwardable(c, type, iidOf(prm), noteOf(prm));
    const award = tget(state(c).issuables.awards, prm.award_id as number);
    if (!award || award.awardable_type !== a.type || award.awardable_id !== a.id)
      throw recordNotFound('no such award');
    return c.json(issuableRenderer(c).award(award));
  });

  r.post(base, opts, (c) => {
    const user = requireUser(c);
    const prm = parse(c, { ...idShape, name: p.str().required() });
    const a = readableAwardable(c, type, iidOf(prm), noteOf(prm));
    if (a.project?.archived) throw notFound('Award Emoji');
    const raw = prm.name as string;
    const name = emojiName(raw);
    if (!name) throw notFound('Award Emoji ["Name is not included in the list"]');
    if (findAward(state(c), a.type, a.id, user.id, name))
      throw notFound('Award Emoji ["Name has already been taken"]');
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) => addAward(d, a.type, a.id, user.id, name, now));
    return c.json(issuableRenderer(c).award(tget(state(c).issuables.awards, id)!), 201);
  });

  r.delete(`${base}/:award_id`, opts, (c) => {
    const user = requireUser(c);
    const prm = parse(c, { ...idShape, award_id: p.int().required() });
    const a = awardable(c, type, iidOf(prm), noteOf(prm));
    const award = tget(state(c).issuables.awards, prm.award_id as number);
    if (!award || award.awardable_type !== a.type || award.awardable_id !== a.id)
      throw recordNotFound('no such award');
    if (award.user_id !== user.id && !user.admin) throw unauthorized();
    checkUnmodifiedSince(c, award.updated_at);
    write(c, (d) => removeAward(d, award.id));
    return c.body(null, 204);
  });
}

export function awardRoutes(r: ApiRouter): void {
  for (const onNotes of [false, true]) {
    const notes = onNotes ? '/notes/:note_id' : '';
    routes(r, 'Issue', `/projects/:id/issues/:issue_iid${notes}/award_emoji`, 'issue_iid', onNotes);
    routes(
      r,
      'MergeRequest',
      `/projects/:id/merge_requests/:merge_request_iid${notes}/award_emoji`,
      'merge_request_iid',
      onNotes,
    );
    routes(r, 'Snippet', `/projects/:id/snippets/:snippet_id${notes}/award_emoji`, 'snippet_id', onNotes);
    routes(r, 'Epic', `/groups/:id/epics/:epic_iid${notes}/award_emoji`, 'epic_iid', onNotes, 'premium');
  }
}
