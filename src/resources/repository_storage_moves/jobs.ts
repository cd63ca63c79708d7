/**
 * The workers of a storage move, each step a job the previous one queues, dated at its due time
 * (`UpdateRepositoryStorageWorker`, `Projects::UpdateRepositoryStorageService` and its snippet and group
 * wiki twins): `scheduled` -> `started` (the repositories are mirrored to the destination) ->
 * `replicated` (the container's storage is the destination, and it is writable again) -> `finished`
 * (the old copies removed). The bulk services (`ScheduleBulkRepositoryShardMovesService`) schedule a
 * move for every container on the source storage, skipping those the model refuses (already moving).
 * A step whose move or container is gone, or moved on, does nothing.
 */
import type { Draft } from 'immer';
import type { JobRecord } from '../../core/jobs.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState } from '../../core/state.js';
import { mget, tget, tvalues } from '../../core/table.js';
import {
  containerExists,
  JOB,
  moveErrors,
  pickStorage,
  queueStep,
  scheduleMove,
  setStorage,
  storageOf,
} from './model.js';
import type { MoveKind, MoveState, StorageMoveRecord } from './store.js';

type S = Draft<PlatformState>;

function moveOf(d: S, job: JobRecord, state: MoveState): Draft<StorageMoveRecord> | undefined {
  const kind = job.payload.kind as MoveKind;
  const m = tget(d.storage_moves[kind], job.payload.id as number);
  if (!m || m.state !== state || !containerExists(d, kind, m.container_id)) return undefined;
  return m;
}

function advance(m: Draft<StorageMoveRecord>, to: MoveState, dueMs: number): void {
  m.state = to;
  m.updated_at = new Date(dueMs).toISOString();
}

/** The containers of a kind whose repository is on the storage (a group: once its wiki has a page). */
function containersOn(d: S, kind: MoveKind, storage: string): number[] {
  const ids =
    kind === 'project'
      ? tvalues(d.projects).map((p) => p.id)
      : kind === 'snippet'
        ? tvalues(d.issuables.snippets).map((s) => s.id)
        : tvalues(d.groups)
            .filter((g) => mget(d.wikis.idx.byOwner, `g${g.id}`).length > 0)
            .map((g) => g.id);
  return ids.filter((id) => storageOf(d, kind, id) === storage);
}

export function storageMoveJobs(r: ApiRouter): void {
  r.job(JOB.start, (d, job) => {
    const m = moveOf(d, job, 'scheduled');
    if (!m) return;
    advance(m, 'started', job.due_ms);
    queueStep(d, m, job.due_ms);
  });

  r.job(JOB.replicate, (d, job) => {
    const m = moveOf(d, job, 'started');
    if (!m) return;
    // `before_transition started: :replicated`: writable again, the storage is the destination.
    setStorage(d, m.kind, m.container_id, m.destination_storage_name);
    advance(m, 'replicated', job.due_ms);
    queueStep(d, m, job.due_ms);
  });

  r.job(JOB.cleanup, (d, job) => {
    const m = moveOf(d, job, 'replicated');
    if (m) advance(m, 'finished', job.due_ms);
  });

  r.job(JOB.bulk, (d, job) => {
    const kind = job.payload.kind as MoveKind;
    const source = job.payload.source as string;
    const given = job.payload.destination as string | null;
    const now = { iso: new Date(job.due_ms).toISOString(), ms: job.due_ms };
    for (const id of containersOn(d, kind, source)) {
      const destination = given ?? pickStorage(d);
      if (Object.keys(moveErrors(d, kind, id, source, destination)).length === 0)
        scheduleMove(d, kind, id, destination, now);
    }
  });
}
