/**
 * The repository files API (`lib/api/files.rb`): a file at a ref (with the `X-Gitlab-*` headers on GET
 * and HEAD), its raw bytes, and creating, updating and deleting one file as a commit.
 */
import { createHash } from 'node:crypto';
import { state, type Ctx } from '../../core/context.js';
import { apiError, notFound } from '../../core/errors.js';
import { p } from '../../core/params.js';
import { NO_SLASH_URL_PART, type ApiRouter } from '../../core/router.js';
import type { Project } from '../projects/model.js';
import { authorizePush, canPushToBranch, readableRepo } from './access.js';
import { findCommit } from './commits.js';
import { TREE_MODE } from './objects.js';
import { peel, refTarget } from './refs.js';
import { pushBranches } from './post-receive.js';
import { objectsOf } from './store.js';
import { entryAt, splitPath } from './tree.js';
import { buildCommit, lastCommitFor, refuseByPushRule, signatureOf, type Action } from './write.js';

interface FoundFile {
  commit: string;
  blob: string;
  data: Buffer;
  path: string;
}

/** `assign_file_vars!`: the commit (`404 Commit Not Found`) and the blob at the path (`404 File Not Found`). */
function findFile(c: Ctx, proj: Project, ref: string, path: string): FoundFile {
  const commit = findCommit(c, proj, ref);
  const store = objectsOf(state(c));
  const e = entryAt(store, store.commit(commit)!.tree, path);
  if (!e || e.mode === TREE_MODE || splitPath(path).length === 0)
    throw notFound('File', 'no file at this path');
  return { commit, blob: e.id, data: store.raw(e.id, 'blob') ?? Buffer.alloc(0), path };
}

/** `blob_data`, which the GET body and the `X-Gitlab-*` headers both carry. */
function blobData(c: Ctx, f: FoundFile, ref: string) {
  const store = objectsOf(state(c));
  const parts = splitPath(f.path);
  return {
    file_name: parts[parts.length - 1]!,
    file_path: f.path,
    size: f.data.length,
    encoding: 'base64',
    content_sha256: createHash('sha256').update(f.data).digest('hex'),
    ref,
    blob_id: f.blob,
    commit_id: f.commit,
    last_commit_id: lastCommitFor(store, f.commit, f.path) ?? f.commit,
  };
}

/** `set_http_headers`: `X-Gitlab-File-Name` and so on, one per field. */
function setHeaders(c: Ctx, data: Record<string, string | number>): void {
  for (const [k, v] of Object.entries(data))
    c.header(
      `X-Gitlab-${k
        .split('_')
        .map((s) => s.charAt(0).toUpperCase() + s.slice(1))
        .join('-')}`,
      String(v),
    );
}

const writeShape = {
  id: p.str().required(),
  file_path: p.str().required().filePath(),
  branch: p.str().required().notBlank(),
  commit_message: p.str().required().notBlank(),
  start_branch: p.str(),
  encoding: p.str().values(['text', 'base64']),
  author_email: p.str(),
  author_name: p.str(),
};

type WriteParams = {
  file_path: string;
  branch: string;
  commit_message: string;
  start_branch?: string;
  encoding?: string;
  author_email?: string;
  author_name?: string;
};

/** One action as a commit on the branch; the platform's message when the file changed meanwhile. */
function commitOne(c: Ctx, proj: Project, prm: WriteParams, action: Action, stale?: string): void {
  // `authorize! :push_code`, then the commit service's own check of the branch (a 400, not a 403).
  authorizePush(c, proj);
  const st = state(c);
  if (!canPushToBranch(st, c.get('viewer').user, proj, prm.branch))
    throw apiError(400, 'You are not allowed to push into this branch');
  const store = objectsOf(st);
  if (action.last_commit_id !== undefined) {
    const head = refTarget(st, proj, 'branch', prm.start_branch ?? prm.branch);
    const last = head === undefined ? undefined : lastCommitFor(store, peel(store, head), prm.file_path);
    if (last !== undefined && last !== action.last_commit_id) throw apiError(400, stale);
  }
  const user = c.get('viewer').user!;
  const { id } = buildCommit(
    st,
    proj,
    {
      branch: prm.branch,
      message: prm.commit_message,
      actions: [{ ...action, last_commit_id: undefined }],
      start_branch: prm.start_branch,
      author_name: prm.author_name,
      author_email: prm.author_email,
    },
    signatureOf(user, Math.floor(c.get('fx').clock.ms() / 1000)),
  );
  refuseByPushRule(st, proj, 'branch', prm.branch, { id });
  pushBranches(c, proj, [{ branch: prm.branch, id }]);
}

export function fileRoutes(r: ApiRouter): void {
  const readShape = {
    id: p.str().required(),
    file_path: p.str().required().filePath(),
    ref: p.str().required(),
  };
  // `FILE_ENDPOINT_REQUIREMENTS`: `files/renovate.json` is the file `renovate.json`.
  const requirements = { id: NO_SLASH_URL_PART, file_path: NO_SLASH_URL_PART };

  r.get(
    '/projects/:id/repository/files/:file_path/raw',
    { params: { ...readShape, ref: p.str(), lfs: p.bool() } },
    (c, prm) => {
      const proj = readableRepo(c);
      const ref = prm.ref || proj.default_branch || 'HEAD';
      const f = findFile(c, proj, ref, prm.file_path);
      setHeaders(c, blobData(c, f, ref));
      c.header('Content-Type', 'text/plain; charset=utf-8');
      c.header('Cache-Control', 'no-cache');
      return c.body(new Uint8Array(f.data));
    },
  );

  r.get('/projects/:id/repository/files/:file_path', { params: readShape, requirements }, (c, prm) => {
    const proj = readableRepo(c);
    const f = findFile(c, proj, prm.ref, prm.file_path);
    const data = blobData(c, f, prm.ref);
    setHeaders(c, data);
    return c.json({ ...data, content: f.data.toString('base64') });
  });

  r.post(
    '/projects/:id/repository/files/:file_path',
    { requirements, params: { ...writeShape, content: p.str().required() } },
    (c, prm) => {
      const proj = readableRepo(c);
      const action: Action = {
        action: 'create',
        file_path: prm.file_path,
        content: prm.content,
        encoding: enc(prm),
      };
      commitOne(c, proj, prm, action);
      return c.json({ file_path: prm.file_path, branch: prm.branch }, 201);
    },
  );

  r.put(
    '/projects/:id/repository/files/:file_path',
    { requirements, params: { ...writeShape, content: p.str().required(), last_commit_id: p.str() } },
    (c, prm) => {
      const proj = readableRepo(c);
      const action: Action = {
        action: 'update',
        file_path: prm.file_path,
        content: prm.content,
        encoding: enc(prm),
        last_commit_id: prm.last_commit_id,
      };
      commitOne(
        c,
        proj,
        prm,
        action,
        'You are attempting to update a file that has changed since you started editing it.',
      );
      return c.json({ file_path: prm.file_path, branch: prm.branch });
    },
  );

  r.delete(
    '/projects/:id/repository/files/:file_path',
    { requirements, params: { ...writeShape, last_commit_id: p.str() } },
    (c, prm) => {
      const proj = readableRepo(c);
      const action: Action = {
        action: 'delete',
        file_path: prm.file_path,
        last_commit_id: prm.last_commit_id,
      };
      commitOne(
        c,
        proj,
        prm,
        action,
        'You are attempting to delete a file that has been previously updated.',
      );
      return c.body(null, 204);
    },
  );
}

const enc = (prm: { encoding?: string }) =>
  (prm.encoding === 'base64' ? 'base64' : 'text') as Action['encoding'];
