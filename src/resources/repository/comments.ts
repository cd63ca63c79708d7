/**
 * Comments on a commit (`GET`/`POST .../repository/commits/:sha/comments`, `Entities::CommitNote`):
 * anyone who may read the code reads them; a signed-in reader may comment, on the commit or on one line
 * of a file its diff touches. A comment is a note on the commit (`noteable_type: Commit`), the same notes
 * the commit's discussions show: a comment on a line is a `LegacyDiffNote`, and a diff note started
 * through the discussions API shows here with its file and line.
 */
import { state, write, type Ctx } from '../../core/context.js';
import { apiError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { createNote, keepNoteCommits } from '../issuables/model/notes.js';
import type { NoteRecord } from '../issuables/store.js';
import { emitEvent } from '../integrations/events.js';
import { readableRepo } from './access.js';
import { lineForPosition, positionDiffLines } from './diff-lines.js';
import { authorEntity } from './entities.js';
import { commitDeltas, findCommit } from './commits.js';

/** The longest comment kept (the platform's notes column bound). */
const MAX_NOTE = 1_000_000;

/** `diff_file.file_path`, `diff_line.line` and `diff_line.type` of a note on a line; nulls for others. */
function noteLine(st: PlatformState, project: ProjectRecord, n: NoteRecord) {
  if (n.legacy_line) return n.legacy_line;
  const none = { path: null, line: null, line_type: null };
  if (n.type !== 'DiffNote' || !n.position) return none;
  const lines = positionDiffLines(st, project, n.position);
  if (!lines) return none;
  const path = n.position.new_path || n.position.old_path;
  const l = n.position.position_type === 'text' ? lineForPosition(lines, n.position) : undefined;
  return { path, line: l ? (l.new_line ?? l.old_line) : null, line_type: l?.type ?? null };
}

function commentEntity(c: Ctx, project: ProjectRecord, n: NoteRecord) {
  const { path, line, line_type } = noteLine(state(c), project, n);
  return {
    note: n.body,
    path,
    line,
    line_type,
    author: authorEntity(c, n.author_id),
    created_at: n.created_at,
  };
}

/** The commit's notes, by `created_at` (then id). */
export function commitNotes(st: PlatformState, projectId: number, sha: string): NoteRecord[] {
  return mget(st.issuables.idx.notes, `Commit:${projectId}`)
    .map((id) => tget(st.issuables.notes, id)!)
    .filter((n) => n.commit_id === sha)
    .sort((a, b) => (a.created_at === b.created_at ? a.id - b.id : a.created_at < b.created_at ? -1 : 1));
}

const shaParams = { id: p.str().required(), sha: p.str().required() };

export function commentRoutes(r: ApiRouter): void {
  r.get(
    '/projects/:id/repository/commits/:sha/comments',
    { params: { ...shaParams, ...paginationParams } },
    (c, prm) => {
      const proj = readableRepo(c);
      const sha = findCommit(c, proj, prm.sha);
      return paginate(c, commitNotes(state(c), proj.id, sha), (n) => commentEntity(c, proj, n));
    },
  );

  r.post(
    '/projects/:id/repository/commits/:sha/comments',
    {
      params: {
        ...shaParams,
        note: p.str().required(),
        path: p.str(),
        line: p.int(),
        line_type: p.str().values(['new', 'old']).default('new'),
      },
    },
    (c, prm) => {
      const proj = readableRepo(c);
      const sha = findCommit(c, proj, prm.sha);
      if (prm.note.length > MAX_NOTE)
        throw apiError(400, { note: ['is too long (maximum is 1000000 characters)'] });
      const onLine = prm.path !== undefined && prm.line !== undefined;
      // A line comment needs a file the commit's diff touches; otherwise it is a comment on the commit.
      if (onLine && !commitDeltas(c, sha).some((d) => d.path === prm.path || d.from === prm.path))
        throw apiError(400, 'Failed to save note {:note=>["can\'t be blank"]}');
      const now = c.get('fx').clock.iso();
      const id = write(c, (d) => {
        const made = createNote(
          d,
          {
            noteable_type: 'Commit',
            noteable_id: proj.id,
            project_id: proj.id,
            commit_id: sha,
            author_id: c.get('viewer').user!.id,
            body: prm.note,
            type: onLine ? 'LegacyDiffNote' : null,
            legacy_line: onLine
              ? { path: prm.path!, line: prm.line!, line_type: prm.line_type as 'new' | 'old' }
              : undefined,
          },
          now,
        );
        keepNoteCommits(d, made);
        return made;
      });
      emitEvent(c, { kind: 'note', id });
      return c.json(commentEntity(c, proj, tget(state(c).issuables.notes, id)!), 201);
    },
  );
}
