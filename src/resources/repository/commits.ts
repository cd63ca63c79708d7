/**
 * The commits API (`lib/api/commits.rb`): list, get, create with actions, diff and refs. Reads need
 * `download_code`; a commit needs push access to its branch.
 */
import { findProject } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { forbidden, grapeError, notFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { mutuallyExclusive, p, type RawParams } from '../../core/params.js';
import { NO_SLASH_URL_PART, type ApiRouter } from '../../core/router.js';
import { mget, tget } from '../../core/table.js';
import { PipelineRenderer } from '../ci/entities.js';
import { nameWithNamespace } from '../issuables/entities.js';
import type { Project } from '../projects/model.js';
import { authorizePushToBranch, readableRepo } from './access.js';
import { diffEntity, stats } from './diff.js';
import { commitEntity } from './entities.js';
import { ancestors, walk } from './history.js';
import { names, peel, refTarget, resolveCommit } from './refs.js';
import { pushBranches } from './post-receive.js';
import { objectsOf } from './store.js';
import { diffTrees } from './tree.js';
import {
  buildCommit,
  MAX_ACTIONS,
  refuseByPushRule,
  signatureOf,
  type Action,
  type ActionKind,
} from './write.js';

const KINDS: readonly ActionKind[] = ['create', 'delete', 'move', 'update', 'chmod'];

/** `user_project.commit(sha)` or `404 Commit Not Found`. */
export function findCommit(c: Ctx, proj: Project, ref: string): string {
  const id = resolveCommit(state(c), proj, ref);
  if (id === undefined) throw notFound('Commit', 'no commit by this ref or sha');
  return id;
}

/** The changes a commit made against its first parent. */
export function commitDeltas(c: Ctx, id: string) {
  const store = objectsOf(state(c));
  const commit = store.commit(id);
  const parent = commit?.parents[0];
  return diffTrees(store, parent ? store.commit(parent)?.tree : undefined, commit?.tree);
}

/** `Entities::CommitDetail`. */
export function commitDetail(c: Ctx, proj: Project, id: string, withStats: boolean) {
  const st = state(c);
  const out: Record<string, unknown> = commitEntity(c, proj, id);
  if (withStats) out.stats = stats(objectsOf(st), commitDeltas(c, id));
  out.status = null;
  out.project_id = proj.id;
  const pipelines = mget(st.idx.pipelinesBy, String(proj.id))
    .map((pid) => tget(st.pipelines, pid)!)
    .filter((pl) => pl.sha === id);
  const last = pipelines[pipelines.length - 1];
  out.last_pipeline = last ? new PipelineRenderer(c).basic(last, proj) : null;
  return out;
}

/** Grape's check of each `actions[]` entry, in the platform's order of messages. */
function actionsOf(raw: unknown): Action[] {
  if (!Array.isArray(raw)) throw grapeError(400, 'actions is invalid');
  if (raw.length > MAX_ACTIONS) throw grapeError(400, 'actions is invalid');
  const problems: string[] = [];
  const out = raw.map((a, i): Action => {
    const e = (a ?? {}) as RawParams;
    const at = `actions[${i}]`;
    const str = (k: string) =>
      typeof e[k] === 'string' ? (e[k] as string) : e[k] == null ? undefined : String(e[k]);
    const action = str('action');
    if (action === undefined) problems.push(`${at}[action] is missing`);
    else if (!KINDS.includes(action as ActionKind))
      problems.push(`${at}[action] does not have a valid value`);
    const file_path = str('file_path');
    if (file_path === undefined) problems.push(`${at}[file_path] is missing`);
    const encoding = str('encoding');
    if (encoding !== undefined && encoding !== 'text' && encoding !== 'base64')
      problems.push(`${at}[encoding] does not have a valid value`);
    if (action === 'move' && str('previous_path') === undefined)
      problems.push(`${at}[previous_path] is missing`);
    const mode = e.execute_filemode;
    if (action === 'chmod' && mode === undefined) problems.push(`${at}[execute_filemode] is missing`);
    return {
      action: action as ActionKind,
      file_path: file_path ?? '',
      previous_path: str('previous_path'),
      content: str('content'),
      encoding: encoding as Action['encoding'],
      last_commit_id: str('last_commit_id'),
      execute_filemode: mode === true || mode === 'true',
    };
  });
  if (problems.length > 0) throw grapeError(400, problems.join(', '));
  return out;
}

/**
 * `start_project` (13.12): found as `find_project!` finds (hidden is 404), and only the project this one
 * was forked from (`forked_from?`), else 403 naming it.
 */
function forkParent(c: Ctx, proj: Project, idOrPath: number | string): Project {
  const start = findProject(c, String(idOrPath)) as Project;
  if (proj.forked_from_project_id !== start.id)
    throw forbidden(`Project is not included in the fork network for ${nameWithNamespace(state(c), start)}`);
  return start;
}

const refParams = { id: p.str().required(), sha: p.str().required() };

export function commitRoutes(r: ApiRouter): void {
  r.get(
    '/projects/:id/repository/commits',
    {
      params: {
        id: p.str().required(),
        ref_name: p.str(),
        since: p.datetime(),
        until: p.datetime(),
        path: p.str(),
        author: p.str(),
        all: p.bool(),
        with_stats: p.bool(),
        first_parent: p.bool(),
        order: p.str().values(['default', 'topo']),
        trailers: p.bool(),
        ...paginationParams,
      },
    },
    (c, prm) => {
      const proj = readableRepo(c);
      const st = state(c);
      const store = objectsOf(st);
      let starts: string[];
      if (prm.all) {
        starts = (['branch', 'tag'] as const).flatMap((k) =>
          names(st, proj, k).map((n) => peel(store, refTarget(st, proj, k, n)!)),
        );
      } else {
        const head = resolveCommit(st, proj, prm.ref_name || proj.default_branch || 'master');
        starts = head === undefined ? [] : [head];
      }
      const after = prm.since ? Date.parse(String(prm.since)) / 1000 : -Infinity;
      const before = prm.until ? Date.parse(String(prm.until)) / 1000 : Infinity;
      const author = prm.author?.toLowerCase();
      const ids = walk(store, starts, { firstParent: prm.first_parent, path: prm.path || undefined }).filter(
        (id) => {
          const o = store.commit(id)!;
          if (o.committer.time < after || o.committer.time > before) return false;
          return !author || `${o.author.name} <${o.author.email}>`.toLowerCase().includes(author);
        },
      );
      return paginate(c, ids, (id) => {
        const out: Record<string, unknown> = commitEntity(c, proj, id);
        if (prm.with_stats) out.stats = stats(store, commitDeltas(c, id));
        return out;
      });
    },
  );

  r.get(
    '/projects/:id/repository/commits/:sha',
    // `COMMIT_ENDPOINT_REQUIREMENTS`: a ref named `v1.json` is asked for as it is.
    { params: { ...refParams, stats: p.bool().default(true) }, requirements: { sha: NO_SLASH_URL_PART } },
    (c, prm) => {
      const proj = readableRepo(c);
      return c.json(commitDetail(c, proj, findCommit(c, proj, prm.sha), prm.stats));
    },
  );

  r.get(
    '/projects/:id/repository/commits/:sha/diff',
    { params: { ...refParams, ...paginationParams } },
    (c, prm) => {
      const proj = readableRepo(c);
      const id = findCommit(c, proj, prm.sha);
      const store = objectsOf(state(c));
      return paginate(c, commitDeltas(c, id), (d) => diffEntity(store, d));
    },
  );

  r.get(
    '/projects/:id/repository/commits/:sha/refs',
    {
      params: {
        ...refParams,
        type: p.str().values(['branch', 'tag', 'all']).default('all'),
        ...paginationParams,
      },
    },
    (c, prm) => {
      const proj = readableRepo(c);
      const id = findCommit(c, proj, prm.sha);
      const st = state(c);
      const store = objectsOf(st);
      const out: { type: string; name: string }[] = [];
      for (const kind of ['branch', 'tag'] as const) {
        if (prm.type !== 'all' && prm.type !== kind) continue;
        for (const n of names(st, proj, kind).sort())
          if (ancestors(store, peel(store, refTarget(st, proj, kind, n)!)).has(id))
            out.push({ type: kind, name: n });
      }
      return paginate(c, out, (x) => x);
    },
  );

  r.post(
    '/projects/:id/repository/commits',
    {
      params: {
        id: p.str().required(),
        branch: p.str().required().notBlank(),
        commit_message: p.str().required(),
        actions: p.hashArray().required(),
        start_branch: p.str(),
        start_sha: p.str(),
        start_project: p.intOrStr(),
        author_email: p.str(),
        author_name: p.str(),
        stats: p.bool().default(true),
        force: p.bool().default(false),
      },
    },
    (c, prm) => {
      mutuallyExclusive(c.get('params'), 'start_branch', 'start_sha');
      const actions = actionsOf(c.get('params').actions);
      const proj = readableRepo(c);
      const startProject =
        prm.start_project === undefined ? undefined : forkParent(c, proj, prm.start_project);
      authorizePushToBranch(c, proj, prm.branch);
      const user = c.get('viewer').user!;
      const time = Math.floor(c.get('fx').clock.ms() / 1000);
      const { id } = buildCommit(
        state(c),
        proj,
        {
          branch: prm.branch,
          message: prm.commit_message,
          actions,
          start_branch: prm.start_branch,
          start_sha: prm.start_sha,
          start_project: startProject,
          force: prm.force,
          author_name: prm.author_name,
          author_email: prm.author_email,
        },
        signatureOf(user, time),
      );
      refuseByPushRule(state(c), proj, 'branch', prm.branch, { id });
      pushBranches(c, proj, [{ branch: prm.branch, id }]);
      return c.json(commitDetail(c, proj, id, prm.stats), 201);
    },
  );
}
