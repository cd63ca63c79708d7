/** Scenario fields of a note that is part of a thread: its type, discussion, diff position, resolution. */
import { z } from 'zod';
import { isoOf, isoTime } from '../../../core/fields.js';
import type { NewNote } from '../model.js';
import type { DiffPosition, NoteRecord } from '../store.js';

const line = z.number().int().min(0).nullable().optional();

export const positionScenario = z.strictObject({
  base_sha: z.string().max(64),
  start_sha: z.string().max(64),
  head_sha: z.string().max(64),
  old_path: z.string().max(4096).nullable().default(null),
  new_path: z.string().max(4096).nullable().default(null),
  position_type: z.enum(['text', 'image']),
  old_line: line,
  new_line: line,
  line_range: z
    .record(z.string(), z.record(z.string(), z.string().max(255)))
    .nullable()
    .optional(),
  width: line,
  height: line,
  x: line,
  y: line,
});

export const noteThreadFields = {
  type: z
    .enum(['DiscussionNote', 'DiffNote'])
    .optional()
    .describe('a note of a thread (a diff note with `position`); default an individual note'),
  discussion_id: z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .optional()
    .describe("40 hex digits: the noteable's notes with the same id form one thread"),
  position: positionScenario.optional().describe("a diff note's position on the merge request's diff"),
  resolved_by: z.string().optional().describe('username: who resolved this note of a merge request thread'),
  resolved_at: isoTime.optional(),
};

type ThreadEntry = {
  type?: 'DiscussionNote' | 'DiffNote';
  discussion_id?: string;
  position?: z.output<typeof positionScenario>;
  resolved_by?: string;
  resolved_at?: string;
};

/** The thread fields of a scenario note, as `createNote` takes them. */
export function threadInput(
  n: ThreadEntry,
  uid: (username: string) => number,
  now: string,
): Partial<NewNote> {
  const out: Partial<NewNote> = {};
  if (n.type) out.type = n.type;
  if (n.discussion_id) out.discussion_id = n.discussion_id;
  if (n.position) out.position = n.position as DiffPosition;
  if (n.resolved_by !== undefined) {
    out.resolved_by_id = uid(n.resolved_by);
    out.resolved_at = isoOf(n.resolved_at) ?? now;
  }
  return out;
}

/** A note's thread fields for an export; nothing for an individual note. */
export function exportThread(n: NoteRecord, username: (id: number | null) => string | undefined) {
  const e: Record<string, unknown> = {};
  if (n.type === null) return e;
  e.type = n.type;
  e.discussion_id = n.discussion_id;
  if (n.position) e.position = n.position;
  const by = n.resolved_at ? username(n.resolved_by_id ?? null) : undefined;
  if (by !== undefined) {
    e.resolved_by = by;
    e.resolved_at = n.resolved_at;
  }
  return e;
}
