/**
 * Discussions: the notes of a noteable grouped by `discussion_id`. An individual note is a discussion of
 * its own (`individual_note`); a thread (`DiscussionNote`, or `DiffNote` on a diff line) gathers its
 * replies. On merge requests a thread's notes are resolvable, and a discussion is resolved when all are.
 */
import { type Draft } from 'immer';
import { type PlatformState } from '../../../core/state.js';
import { mget, tget } from '../../../core/table.js';
import { isResolvable } from '../model.js';
import { type DiffPosition, type NoteableType, type NoteRecord } from '../store.js';

type S = Draft<PlatformState>;

/** Every note of a noteable (of a commit: `id` is its project's, `commitId` its SHA), oldest first (`fresh`). */
export function notesOf(st: PlatformState, type: NoteableType, id: number, commitId?: string): NoteRecord[] {
  return mget(st.issuables.idx.notes, `${type}:${id}`)
    .map((nid) => tget(st.issuables.notes, nid)!)
    .filter((n) => n.commit_id === commitId)
    .sort((a, b) => (a.created_at === b.created_at ? a.id - b.id : a.created_at < b.created_at ? -1 : 1));
}

/** The noteable's discussions in `discussion_ids_relation` order: by their first note. */
export function discussionsOf(notes: readonly NoteRecord[]): NoteRecord[][] {
  const byId = new Map<string, NoteRecord[]>();
  for (const n of notes) {
    const list = byId.get(n.discussion_id);
    if (list) list.push(n);
    else byId.set(n.discussion_id, [n]);
  }
  return [...byId.values()];
}

/** `Discussion#individual_note?`: a lone note that is not a thread. */
export const isIndividual = (notes: readonly NoteRecord[]) => notes.length === 1 && notes[0]!.type === null;

/** `Discussion#resolved?`: resolvable, and every resolvable note resolved. */
export function discussionResolvable(notes: readonly NoteRecord[]): boolean {
  return notes.some(isResolvable);
}

/** Resolves (or unresolves) every resolvable note of a discussion that is not so already. */
export function resolveNotes(
  st: S,
  noteIds: readonly number[],
  userId: number | null,
  now: string | null,
): void {
  for (const id of noteIds) {
    const n = tget(st.issuables.notes, id)!;
    if (!isResolvable(n) || !!n.resolved_at === (now !== null)) continue;
    n.resolved_at = now;
    n.resolved_by_id = now === null ? null : userId;
  }
}

/** `convert_to_discussion!`: an individual note replied to becomes the first note of a thread. */
export function convertToThread(st: S, noteId: number): void {
  const n = tget(st.issuables.notes, noteId)!;
  if (n.type === null) n.type = 'DiscussionNote';
}

/** `Gitlab::Diff::Position#complete?` without the diff: a path, a line (or the image's box) and the refs. */
export function positionComplete(p: DiffPosition): boolean {
  const path = !!(p.new_path || p.old_path);
  const refs = !!(p.base_sha && p.start_sha && p.head_sha);
  const where =
    p.position_type === 'text'
      ? p.new_line != null || p.old_line != null
      : p.width != null && p.height != null && p.x != null && p.y != null;
  return path && refs && where;
}
