/**
 * `lib/api/repositories.rb`: the tree, blobs, compare, merge base and contributors. Reads need
 * `download_code`.
 */
import { state, type Ctx } from '../../core/context.js';
import { apiError, notFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { Project } from '../projects/model.js';
import { readableRepo } from './access.js';
import { diffEntity } from './diff.js';
import { commitEntity } from './entities.js';
import { ancestors, mergeBase, walk } from './history.js';
import { TREE_MODE } from './objects.js';
import { inRepository } from './contents.js';
import { resolveCommit } from './refs.js';
import { objectsOf } from './store.js';
import { diffTrees, entryAt, listTree } from './tree.js';

const typeOf = (mode: string) => (mode === TREE_MODE ? 'tree' : mode === '160000' ? 'commit' : 'blob');

/**
 * `Gitlab::Git::Blob.raw` of an id in the project's repository: `404 Blob Not Found` for anything else,
 * a blob only another project's refs reach included (the object store is the instance's).
 */
function findBlob(c: Ctx, proj: Project, sha: string): Buffer {
  const st = state(c);
  const id = sha.toLowerCase();
  const data = /^[0-9a-f]{40}$/.test(id) ? objectsOf(st).raw(id, 'blob') : undefined;
  if (data === undefined) throw notFound('Blob', 'no blob with this id');
  if (!inRepository(st, proj, id)) throw notFound('Blob', 'no ref of this project reaches the blob');
  return data;
}

function compare(c: Ctx, proj: Project, from: string, to: string, straight: boolean) {
  const st = state(c);
  const store = objectsOf(st);
  const a = resolveCommit(st, proj, from);
  const b = resolveCommit(st, proj, to);
  if (a === undefined || b === undefined) throw notFound('Ref', 'a compared ref does not exist');
  const base = straight ? a : (mergeBase(store, a, b) ?? a);
  const excluded = ancestors(store, a);
  const commits = walk(store, [b])
    .filter((id) => !excluded.has(id))
    .reverse();
  const deltas = diffTrees(store, store.commit(base)?.tree, store.commit(b)?.tree);
  const last = commits[commits.length - 1];
  return {
    commit: last === undefined ? null : commitEntity(c, proj, last),
    commits: commits.map((id) => commitEntity(c, proj, id)),
    diffs: deltas.map((d) => diffEntity(store, d)),
    compare_timeout: false,
    compare_same_ref: from === to,
  };
}

export function repositoryReadRoutes(r: ApiRouter): void {
  r.get(
    '/projects/:id/repository/tree',
    {
      params: {
        id: p.str().required(),
        path: p.str(),
        ref: p.str(),
        recursive: p.bool().default(false),
        pagination: p.str().values(['legacy', 'keyset']),
        page_token: p.str(),
        ...paginationParams,
      },
    },
    (c, prm) => {
      const proj = readableRepo(c);
      const store = objectsOf(state(c));
      const commit = resolveCommit(state(c), proj, prm.ref || proj.default_branch || 'HEAD');
      if (commit === undefined) throw notFound('Tree', 'no commit by this ref');
      const path = (prm.path ?? '').replace(/^\/+|\/+$/g, '');
      const dir = entryAt(store, store.commit(commit)!.tree, path);
      const list = dir?.mode === TREE_MODE ? listTree(store, dir.id, path, prm.recursive) : [];
      let rows = list;
      if (prm.pagination === 'keyset' && prm.page_token) {
        const at = list.findIndex((e) => e.id === prm.page_token);
        rows = at < 0 ? [] : list.slice(at + 1);
      }
      return paginate(c, rows, (e) => ({
        id: e.id,
        name: e.name,
        type: typeOf(e.mode),
        path: e.path,
        mode: e.mode === TREE_MODE ? '040000' : e.mode,
      }));
    },
  );

  r.get(
    '/projects/:id/repository/blobs/:sha',
    { params: { id: p.str().required(), sha: p.str().required() } },
    (c, prm) => {
      const proj = readableRepo(c);
      const data = findBlob(c, proj, prm.sha);
      return c.json({
        size: data.length,
        encoding: 'base64',
        content: data.toString('base64'),
        sha: prm.sha.toLowerCase(),
      });
    },
  );

  r.get(
    '/projects/:id/repository/blobs/:sha/raw',
    { params: { id: p.str().required(), sha: p.str().required() } },
    (c, prm) => {
      const proj = readableRepo(c);
      const data = findBlob(c, proj, prm.sha);
      c.header('Content-Type', 'text/plain; charset=utf-8');
      return c.body(new Uint8Array(data));
    },
  );

  r.get(
    '/projects/:id/repository/compare',
    {
      params: {
        id: p.str().required(),
        from: p.str().required(),
        to: p.str().required(),
        from_project_id: p.int(),
        straight: p.bool().default(false),
      },
    },
    (c, prm) => {
      const proj = readableRepo(c);
      if (prm.from_project_id !== undefined && prm.from_project_id !== proj.id)
        throw notFound('Project', 'compare across projects needs the other project');
      return c.json(compare(c, proj, prm.from, prm.to, prm.straight));
    },
  );

  r.get(
    '/projects/:id/repository/merge_base',
    { params: { id: p.str().required(), refs: p.strArray().required() } },
    (c, prm) => {
      const proj = readableRepo(c);
      if (prm.refs.length < 2) throw apiError(400, 'Provide at least 2 refs');
      const st = state(c);
      const ids = prm.refs.map((ref) => {
        const id = resolveCommit(st, proj, ref);
        if (id === undefined) throw apiError(404, `Could not find ref: ${ref}`);
        return id;
      });
      const store = objectsOf(st);
      let base: string | undefined = ids[0];
      for (const id of ids.slice(1)) base = base === undefined ? undefined : mergeBase(store, base, id);
      if (base === undefined) throw notFound('Merge Base', 'the refs share no commit');
      return c.json(commitEntity(c, proj, base));
    },
  );

  r.get(
    '/projects/:id/repository/contributors',
    {
      params: {
        id: p.str().required(),
        order_by: p.str().values(['email', 'name', 'commits']).default('commits'),
        sort: p.str().values(['asc', 'desc']).default('asc'),
        ...paginationParams,
      },
    },
    (c, prm) => {
      const proj = readableRepo(c);
      const st = state(c);
      const store = objectsOf(st);
      const head = proj.default_branch ? resolveCommit(st, proj, proj.default_branch) : undefined;
      const by = new Map<
        string,
        { name: string; email: string; commits: number; additions: 0; deletions: 0 }
      >();
      for (const id of head ? walk(store, [head]) : []) {
        const a = store.commit(id)!.author;
        const key = a.email.toLowerCase();
        const e = by.get(key) ?? {
          name: a.name,
          email: a.email,
          commits: 0,
          additions: 0 as const,
          deletions: 0 as const,
        };
        e.commits++;
        by.set(key, e);
      }
      const key = prm.order_by as 'email' | 'name' | 'commits';
      const rows = [...by.values()].sort((x, y) => {
        const v = x[key] < y[key] ? -1 : x[key] > y[key] ? 1 : 0;
        return prm.sort === 'asc' ? v : -v;
      });
      return paginate(c, rows, (x) => x);
    },
  );
}
