/**
 * Comments on a commit (`GET`/`POST .../repository/commits/:sha/comments`, `Entities::CommitNote`):
 * anyone who may read the code reads them; a signed-in reader may comment, on the commit or on one line
 * of a file its diff touches.
 */
import { state, write, type Ctx } from '../../core/context.js';
import { apiError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { nextId } from '../../core/state.js';
import { madd, mget, tget, tset } from '../../core/table.js';
import { readableRepo } from './access.js';
import { authorEntity } from './entities.js';
import { commitDeltas, findCommit } from './commits.js';
import type { CommitCommentRecord } from './store.js';

/** The longest comment kept (the platform's notes column bound). */
const MAX_NOTE = 1_000_000;

function commentEntity(c: Ctx, n: CommitCommentRecord) {
  return {
    note: n.note,
    path: n.path,
    line: n.line,
    line_type: n.line_type,
    author: authorEntity(c, n.author_id),
    created_at: n.created_at,
  };
}

const shaParams = { id: p.str().required(), sha: p.str().required() };

export function commentRoutes(r: ApiRouter): void {
  r.get(
    '/projects/:id/repository/commits/:sha/comments',
    { params: { ...shaParams, ...paginationParams } },
    (c, prm) => {
      const proj = readableRepo(c);
      const sha = findCommit(c, proj, prm.sha);
      const st = state(c);
      const list = mget(st.repository.idx.commentsBy, String(proj.id))
        .map((id) => tget(st.repository.comments, id)!)
        .filter((n) => n.sha === sha);
      return paginate(c, list, (n) => commentEntity(c, n));
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
        const id = nextId(d, 'notes');
        tset(d.repository.comments, id, {
          id,
          project_id: proj.id,
          sha,
          note: prm.note,
          path: onLine ? prm.path! : null,
          line: onLine ? prm.line! : null,
          line_type: onLine ? (prm.line_type as 'new' | 'old') : null,
          author_id: c.get('viewer').user!.id,
          created_at: now,
        });
        madd(d.repository.idx.commentsBy, String(proj.id), id);
        return id;
      });
      return c.json(commentEntity(c, tget(state(c).repository.comments, id)!), 201);
    },
  );
}
