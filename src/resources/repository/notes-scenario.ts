/**
 * Scenario files' `commit_notes` of a project: the notes on its commits, the ones the commit comments
 * and commit discussions APIs show (individual notes, threads, diff notes with a position, comments on
 * a line through the comments API).
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut, ScenarioRefs } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { mget, tget, tvalues } from '../../core/table.js';
import { positionScenario } from '../issuables/discussions/scenario.js';
import { createNote } from '../issuables/model/notes.js';
import { awardEntries } from '../issuables/export.js';
import { awardSchema, buildAwards, keeping, recordId } from '../issuables/scenario.js';
import type { DiffPosition } from '../issuables/store.js';
import { resolveCommit } from './refs.js';

type S = Draft<PlatformState>;

const commitNoteScenario = z.strictObject({
  id: recordId,
  commit: z.string().min(1).max(255).describe('the SHA (or a branch or tag) of a commit of the project'),
  body: z.string().min(1),
  author: z.string().optional().describe('username; default the project creator'),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
  award_emoji: z.array(awardSchema).default([]),
  type: z
    .enum(['DiscussionNote', 'DiffNote', 'LegacyDiffNote'])
    .optional()
    .describe(
      'a thread (`DiffNote`: with `position`; `LegacyDiffNote`: with `line`); default an individual note',
    ),
  discussion_id: z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .optional()
    .describe("40 hex digits: the commit's notes with the same id form one thread"),
  position: positionScenario.optional().describe("a diff note's position on the commit's diff"),
  line: z
    .strictObject({
      path: z.string().min(1).max(4096),
      line: z.number().int().min(1),
      line_type: z.enum(['new', 'old']).default('new'),
    })
    .optional()
    .describe('the line of a comment through the commit comments API (`LegacyDiffNote`)'),
});

export const commitNotesFields = {
  commit_notes: z
    .array(commitNoteScenario)
    .optional()
    .describe("notes on the project's commits (the commit comments and discussions APIs)"),
};

type CommitNote = z.output<typeof commitNoteScenario>;
export interface CommitNotesProject {
  commit_notes?: CommitNote[];
}

/** Unknown authors, and a position or line on a note of another type. */
export function commitNotesProblems(p: CommitNotesProject, at: string, refs: ScenarioRefs): string[] {
  const out: string[] = [];
  (p.commit_notes ?? []).forEach((n, i) => {
    const where = `${at}.commit_notes[${i}]`;
    if (n.author !== undefined && !refs.users.has(n.author.toLowerCase()))
      out.push(`${where}.author: no user "${n.author}"`);
    if ((n.type === 'DiffNote') !== (n.position !== undefined))
      out.push(`${where}: a DiffNote has a position, and only a DiffNote`);
    if ((n.type === 'LegacyDiffNote') !== (n.line !== undefined))
      out.push(`${where}: a LegacyDiffNote has a line, and only a LegacyDiffNote`);
  });
  return out;
}

/** The project's commit notes (after its repository is built, so that branches and tags name commits). */
export function buildCommitNotes(
  st: S,
  project: ProjectRecord,
  p: CommitNotesProject,
  b: ScenarioBuild,
): void {
  for (const n of p.commit_notes ?? []) {
    const sha = resolveCommit(st as PlatformState, project, n.commit);
    if (sha === undefined)
      throw new Error(`commit_notes: no commit "${n.commit}" in ${project.path_with_namespace}`);
    const id = keeping(st, 'notes', st.issuables.notes, n.id, () =>
      createNote(
        st,
        {
          noteable_type: 'Commit',
          noteable_id: project.id,
          project_id: project.id,
          commit_id: sha,
          author_id: n.author === undefined ? project.creator_id : b.uid(n.author),
          body: n.body,
          created_at: isoOf(n.created_at),
          updated_at: isoOf(n.updated_at),
          type: n.type ?? null,
          discussion_id: n.discussion_id,
          position: n.position as DiffPosition | undefined,
          legacy_line: n.line,
        },
        b.now,
      ),
    );
    buildAwards(st, 'Note', id, n.award_emoji, b.uid, isoOf(n.created_at) ?? b.now);
  }
}

/** Every project's commit notes, oldest first, as the builder reads them back. */
export function exportCommitNotes(st: PlatformState, out: ScenarioOut): void {
  for (const project of tvalues(st.projects)) {
    const ids = mget(st.issuables.idx.notes, `Commit:${project.id}`);
    const e = ids.length > 0 ? out.project(project.id) : undefined;
    if (!e) continue;
    e.commit_notes = [...ids]
      .sort((a, b) => a - b)
      .map((id) => tget(st.issuables.notes, id)!)
      .filter((n) => n.commit_id !== undefined && !n.system)
      .map((n) => {
        const entry: Record<string, unknown> = { id: n.id, commit: n.commit_id, body: n.body };
        const author = out.username(n.author_id);
        if (author !== undefined) entry.author = author;
        entry.created_at = n.created_at;
        if (n.updated_at !== n.created_at) entry.updated_at = n.updated_at;
        const awards = awardEntries(st, out, 'Note', n.id);
        if (awards.length) entry.award_emoji = awards;
        if (n.type !== null) {
          entry.type = n.type;
          entry.discussion_id = n.discussion_id;
        }
        if (n.position) entry.position = n.position;
        if (n.legacy_line) entry.line = n.legacy_line;
        return entry;
      });
  }
}
