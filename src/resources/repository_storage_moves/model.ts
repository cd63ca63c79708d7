/**
 * Storage moves' reads and writes: the validations of `RepositoryStorageMovable` (storages among the
 * configured ones, the container writable), `schedule` (the container read-only until the move
 * replicates or fails), and `Projects::UpdateRepositoryStorageService`'s steps, run as jobs.
 */
import type { Draft } from 'immer';
import { scheduleJob } from '../../core/jobs.js';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, tdelete, tget, tset, tvalues } from '../../core/table.js';
import { setting } from '../settings/model.js';
import type { MoveKind, MoveState, StorageMoveRecord } from './store.js';

type S = Draft<PlatformState>;

export const JOB = {
  start: 'storage_moves.start',
  replicate: 'storage_moves.replicate',
  cleanup: 'storage_moves.cleanup',
  bulk: 'storage_moves.bulk',
} as const;

/**
 * When the worker's steps fall due after the move is scheduled: Sidekiq picks the job up
 * (`UpdateRepositoryStorageWorker`), the repositories are mirrored, the old ones removed.
 */
export const STEP_MS = { start: 1_000, replicate: 2_000, cleanup: 1_000 } as const;

const key = (kind: MoveKind, id: number) => `${kind}:${id}`;

/**
 * `Gitlab.config.repositories.storages.keys`: the storages the instance is configured with, which the
 * application setting's `repository_storages_weighted` is keyed by (a scenario declares more there).
 */
export function configuredStorages(st: PlatformState): string[] {
  const weights = setting(st, 'repository_storages_weighted');
  const names = weights !== null && typeof weights === 'object' ? Object.keys(weights) : [];
  return names.length ? names : ['default'];
}

/**
 * `Repository.pick_storage_shard` (`pick_repository_storage`): the platform draws by weight at random;
 * here the heaviest storage, the first listed among equals, so that a test knows where a move goes.
 */
export function pickStorage(st: PlatformState): string {
  const weights = setting(st, 'repository_storages_weighted') as Record<string, unknown> | null;
  let best: string | undefined;
  let bestWeight = -Infinity;
  for (const name of configuredStorages(st)) {
    const w = Number(weights?.[name] ?? 0);
    if (w > bestWeight) [best, bestWeight] = [name, w];
  }
  return best ?? 'default';
}

/** The storage a container's repository is on now. */
export function storageOf(st: PlatformState, kind: MoveKind, id: number): string {
  if (kind === 'project')
    return (tget(st.projects, id)?.repository_storage as string | undefined) ?? 'default';
  return iget(st.storage_moves.storages, key(kind, id)) ?? 'default';
}

export function setStorage(d: S, kind: MoveKind, id: number, storage: string): void {
  if (kind === 'project') {
    const p = tget(d.projects, id);
    if (p) p.repository_storage = storage;
    return;
  }
  idelete(d.storage_moves.storages, key(kind, id));
  if (storage !== 'default') iset(d.storage_moves.storages, key(kind, id), storage);
}

/** Whether the container still exists (a move's container that is gone hides the move). */
export function containerExists(st: PlatformState, kind: MoveKind, id: number): boolean {
  if (kind === 'project') return tget(st.projects, id) !== undefined;
  if (kind === 'snippet') return tget(st.issuables.snippets, id) !== undefined;
  return tget(st.groups, id) !== undefined;
}

/** `container.repository_read_only?`: set by a move's `schedule`, cleared when it replicates or fails. */
export const readOnly = (st: PlatformState, kind: MoveKind, id: number): boolean =>
  movesOf(st, kind, id).some((m) => m.state === 'scheduled' || m.state === 'started');

export function movesOf(st: PlatformState, kind: MoveKind, id: number): StorageMoveRecord[] {
  return mget(st.storage_moves.idx.byContainer, key(kind, id)).map((m) => tget(st.storage_moves[kind], m)!);
}

/** `order_created_at_desc`, the newest first (ties: the later id first). */
export const newestFirst = (list: StorageMoveRecord[]) =>
  [...list].sort((a, b) =>
    a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : b.id - a.id,
  );

/** Every move of a kind whose container exists (`with_projects` / `with_groups`), newest first. */
export function allMoves(st: PlatformState, kind: MoveKind): StorageMoveRecord[] {
  return newestFirst(
    tvalues(st.storage_moves[kind]).filter((m) => containerExists(st, kind, m.container_id)),
  );
}

/**
 * The model's validations on create, as `errors` by attribute in validation order: the storages'
 * presence and inclusion, then `container_repository_writable` under the kind's own key.
 */
export function moveErrors(
  st: PlatformState,
  kind: MoveKind,
  id: number,
  source: string,
  destination: string,
): Record<string, string[]> {
  const storages = configuredStorages(st);
  const errors: Record<string, string[]> = {};
  const check = (attr: string, v: string) => {
    const list: string[] = [];
    if (v.trim() === '') list.push("can't be blank");
    if (!storages.includes(v)) list.push('is not included in the list');
    if (list.length) errors[attr] = list;
  };
  check('source_storage_name', source);
  check('destination_storage_name', destination);
  if (readOnly(st, kind, id)) errors[kind] = ['is read-only'];
  return errors;
}

export interface NewMove {
  kind: MoveKind;
  container_id: number;
  state: MoveState;
  source_storage_name: string;
  destination_storage_name: string;
  created_at: string;
}

export function addMove(d: S, m: NewMove): StorageMoveRecord {
  const id = nextId(d, `${m.kind}_repository_storage_moves`);
  const rec: StorageMoveRecord = {
    id,
    kind: m.kind,
    container_id: m.container_id,
    state: m.state,
    source_storage_name: m.source_storage_name,
    destination_storage_name: m.destination_storage_name,
    created_at: m.created_at,
    updated_at: m.created_at,
  };
  tset(d.storage_moves[m.kind], id, rec);
  madd(d.storage_moves.idx.byContainer, key(m.kind, m.container_id), id);
  return rec;
}

/** The job that takes a move of this state on, due at `dueMs`; none for a state that is final. */
export function queueStep(d: S, rec: StorageMoveRecord, fromMs: number): void {
  const payload = { kind: rec.kind, id: rec.id };
  if (rec.state === 'scheduled') scheduleJob(d, JOB.start, fromMs + STEP_MS.start, payload);
  else if (rec.state === 'started') scheduleJob(d, JOB.replicate, fromMs + STEP_MS.replicate, payload);
  else if (rec.state === 'replicated') scheduleJob(d, JOB.cleanup, fromMs + STEP_MS.cleanup, payload);
}

/** `build` and `schedule` of a valid move (see `moveErrors`): the move, scheduled, and its worker queued. */
export function scheduleMove(
  d: S,
  kind: MoveKind,
  id: number,
  destination: string,
  now: { iso: string; ms: number },
): StorageMoveRecord {
  const rec = addMove(d, {
    kind,
    container_id: id,
    state: 'scheduled',
    source_storage_name: storageOf(d, kind, id),
    destination_storage_name: destination,
    created_at: now.iso,
  });
  queueStep(d, rec, now.ms);
  return rec;
}

/** A container's moves go with it (the tables' foreign keys cascade). */
export function deleteMovesOf(d: S, kind: MoveKind, id: number): void {
  for (const m of mget(d.storage_moves.idx.byContainer, key(kind, id))) tdelete(d.storage_moves[kind], m);
  idelete(d.storage_moves.idx.byContainer, key(kind, id));
  idelete(d.storage_moves.storages, key(kind, id));
}

/** `human_state_name`. */
export const humanState = (s: MoveState) => (s === 'cleanup_failed' ? 'cleanup failed' : s);
