/**
 * Commit statuses (`lib/api/commit_statuses.rb`): what CI integrations report on a commit. Posting a
 * state moves the running or pending status of the same name and ref, or starts a new one, by the
 * state machine's events (pending: enqueue; running: run; success; failed: drop; canceled: cancel).
 */
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, notFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { nextId, type PlatformState } from '../../core/state.js';
import { madd, mget, tget, tset } from '../../core/table.js';
import { authorizePush, readableRepo } from './access.js';
import { authorEntity } from './entities.js';
import { findCommit } from './commits.js';
import { ancestors } from './history.js';
import { names, peel, refTarget } from './refs.js';
import { objectsOf, type CommitStatusRecord } from './store.js';
import { pipelineForStatus, settleExternalPipeline } from '../ci/external.js';

const STATES = ['pending', 'running', 'success', 'failed', 'canceled'] as const;
type State = (typeof STATES)[number];

/** The event each posted state fires, and the states it leaves from (`CommitStatus` state machine). */
const EVENTS: Record<State, [event: string, from: readonly string[]]> = {
  pending: ['enqueue', ['created', 'skipped', 'manual', 'scheduled']],
  running: ['run', ['created', 'pending']],
  success: ['success', ['created', 'pending', 'running']],
  failed: ['drop', ['created', 'pending', 'running']],
  canceled: ['cancel', ['created', 'pending', 'running', 'manual', 'scheduled']],
};

function statusEntity(c: Ctx, s: CommitStatusRecord) {
  return {
    id: s.id,
    sha: s.sha,
    ref: s.ref,
    status: s.status,
    name: s.name,
    target_url: s.target_url,
    description: s.description,
    created_at: s.created_at,
    started_at: s.started_at,
    finished_at: s.finished_at,
    allow_failure: false,
    coverage: s.coverage,
    author: authorEntity(c, s.author_id),
  };
}

const statusesOf = (st: PlatformState, projectId: number) =>
  mget(st.repository.idx.statusesBy, String(projectId)).map((id) => tget(st.repository.statuses, id)!);

/** The first branch that contains the commit (`branch_names_contains(sha).first`). */
function branchContaining(
  st: PlatformState,
  proj: Parameters<typeof names>[1],
  sha: string,
): string | undefined {
  const store = objectsOf(st);
  return names(st, proj, 'branch')
    .sort()
    .find((n) => ancestors(store, peel(store, refTarget(st, proj, 'branch', n)!)).has(sha));
}

export function statusRoutes(r: ApiRouter): void {
  r.get(
    '/projects/:id/repository/commits/:sha/statuses',
    {
      params: {
        id: p.str().required(),
        sha: p.str().required(),
        ref: p.str(),
        stage: p.str(),
        name: p.str(),
        all: p.bool().default(false),
        ...paginationParams,
      },
    },
    (c, prm) => {
      const proj = readableRepo(c);
      const sha = findCommit(c, proj, prm.sha);
      let list = statusesOf(state(c), proj.id).filter(
        (s) => s.sha === sha && (!prm.ref || s.ref === prm.ref) && (!prm.name || s.name === prm.name),
      );
      // Without `all`, the latest status of each name (and ref).
      if (!prm.all) {
        const latest = new Map<string, CommitStatusRecord>();
        for (const s of list) latest.set(`${s.name}\0${s.ref}`, s);
        list = [...latest.values()];
      }
      return paginate(c, list, (s) => statusEntity(c, s));
    },
  );

  r.post(
    '/projects/:id/statuses/:sha',
    {
      params: {
        id: p.str().required(),
        sha: p.str().required(),
        state: p.str().required().values(STATES),
        ref: p.str(),
        target_url: p.str(),
        description: p.str(),
        name: p.str(),
        context: p.str(),
        coverage: p.float(),
        pipeline_id: p.int(),
      },
    },
    (c, prm) => {
      const proj = readableRepo(c);
      authorizePush(c, proj);
      const st = state(c);
      const sha = findCommit(c, proj, prm.sha);
      const ref = prm.ref ?? branchContaining(st, proj, sha);
      if (ref === undefined) throw notFound('References for commit', 'no branch contains the commit');
      const name = prm.name ?? prm.context ?? 'default';
      const now = c.get('fx').clock.iso();
      const open = statusesOf(st, proj.id).find(
        (s) =>
          s.sha === sha &&
          s.ref === ref &&
          s.name === name &&
          (s.status === 'pending' || s.status === 'running'),
      );
      const from = open?.status ?? 'created';
      const [event, allowed] = EVENTS[prm.state as State];
      // `running` first tries `enqueue` (without a bang), so a created status runs through pending.
      if (!allowed.includes(from))
        throw apiError(
          400,
          `Cannot transition status via :${event} from :${from} (Reason(s): Status cannot transition via "${event}")`,
        );
      const finished = prm.state === 'success' || prm.state === 'failed' || prm.state === 'canceled';
      const id = write(c, (d) => {
        const id = open?.id ?? nextId(d, 'commit_statuses');
        const pipelineId =
          open?.pipeline_id ?? pipelineForStatus(d, proj.id, sha, ref, c.get('viewer').user!.id, now);
        const rec: CommitStatusRecord = {
          id,
          project_id: proj.id,
          sha,
          ref,
          name,
          status: prm.state,
          target_url: prm.target_url ?? open?.target_url ?? null,
          description: prm.description ?? open?.description ?? null,
          coverage: prm.coverage ?? open?.coverage ?? null,
          author_id: c.get('viewer').user!.id,
          created_at: open?.created_at ?? now,
          started_at: prm.state === 'pending' ? null : (open?.started_at ?? now),
          finished_at: finished ? now : null,
          pipeline_id: pipelineId,
        };
        tset(d.repository.statuses, id, rec);
        if (!open) madd(d.repository.idx.statusesBy, String(proj.id), id);
        // The pipeline's status is its statuses' (the latest of each name).
        const latest = new Map<string, CommitStatusRecord>();
        for (const s of statusesOf(d as PlatformState, proj.id))
          if (s.pipeline_id === pipelineId) latest.set(s.name, s);
        settleExternalPipeline(d, pipelineId, [...latest.values()], now);
        return id;
      });
      return c.json(statusEntity(c, tget(state(c).repository.statuses, id)!), 201);
    },
  );
}
