/**
 * Scenario files' storage moves: a project's `repository_storage`, a group's `wiki_repository_storage`,
 * the top-level `snippet_repository_storages` (snippet id -> storage) and `repository_storage_moves`
 * (every kind's moves, in id order, each naming its container: a project or group path, a snippet id).
 * A move that is not final goes on from the file's `now`.
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { lookupGroup, lookupProject } from '../../core/access.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { ientries, tget, tvalues } from '../../core/table.js';
import { addMove, queueStep, setStorage, storageOf } from './model.js';
import { MOVE_KINDS, type MoveKind } from './store.js';

const storageName = z.string().min(1).max(255);
const STATES = [
  'initial',
  'scheduled',
  'started',
  'finished',
  'failed',
  'replicated',
  'cleanup_failed',
] as const;

const moveSchema = z.strictObject({
  kind: z.enum(['project', 'snippet', 'group']),
  container: z
    .union([z.string().min(1).max(1000), z.number().int().positive()])
    .describe("the project's or group's full path, or the snippet's id"),
  state: z.enum(STATES).default('finished'),
  source_storage_name: storageName.default('default'),
  destination_storage_name: storageName,
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
});

export const storageMoveFields = {
  repository_storage_moves: z
    .array(moveSchema)
    .max(100_000)
    .optional()
    .describe('repository storage moves of projects, snippets and group wikis, in id order per kind'),
  snippet_repository_storages: z
    .record(z.string().regex(/^\d{1,12}$/, 'must be a snippet id'), storageName)
    .optional()
    .describe("snippet id -> the storage its repository is on (default: 'default')"),
};
export const storageMoveProjectFields = {
  repository_storage: storageName.optional().describe("the storage the project's repository is on"),
};
export const storageMoveGroupFields = {
  wiki_repository_storage: storageName.optional().describe("the storage the group's wiki is on"),
};

export interface StorageMovesTop {
  repository_storage_moves?: z.output<typeof moveSchema>[];
  snippet_repository_storages?: Record<string, string>;
}

export function buildProjectStorage(
  st: Draft<PlatformState>,
  id: number,
  p: { repository_storage?: string },
): void {
  if (p.repository_storage !== undefined) setStorage(st, 'project', id, p.repository_storage);
}
export function buildGroupStorage(
  st: Draft<PlatformState>,
  id: number,
  g: { wiki_repository_storage?: string },
): void {
  if (g.wiki_repository_storage !== undefined) setStorage(st, 'group', id, g.wiki_repository_storage);
}

function containerId(st: PlatformState, kind: MoveKind, ref: string | number): number | undefined {
  if (kind === 'snippet')
    return typeof ref === 'number' && tget(st.issuables.snippets, ref) ? ref : undefined;
  const found = kind === 'project' ? lookupProject(st, String(ref)) : lookupGroup(st, String(ref));
  return found?.id;
}

/** A move whose container the file does not hold is a problem of the file, reported at build. */
export function buildStorageMoves(st: Draft<PlatformState>, s: StorageMovesTop, b: ScenarioBuild): void {
  for (const [id, storage] of Object.entries(s.snippet_repository_storages ?? {}))
    if (tget(st.issuables.snippets, Number(id))) setStorage(st, 'snippet', Number(id), storage);
  const nowMs = Date.parse(b.now);
  (s.repository_storage_moves ?? []).forEach((m, i) => {
    const id = containerId(st, m.kind, m.container);
    if (id === undefined)
      throw new Error(
        `repository_storage_moves[${i}].container: no ${m.kind} ${JSON.stringify(m.container)}`,
      );
    const rec = addMove(st, {
      kind: m.kind,
      container_id: id,
      state: m.state,
      source_storage_name: m.source_storage_name,
      destination_storage_name: m.destination_storage_name,
      created_at: isoOf(m.created_at) ?? b.now,
    });
    rec.updated_at = isoOf(m.updated_at) ?? rec.created_at;
    queueStep(st, rec, nowMs);
  });
}

export function exportStorageMoves(st: PlatformState, out: ScenarioOut): void {
  for (const p of tvalues(st.projects)) {
    const storage = storageOf(st, 'project', p.id);
    const e = storage !== 'default' ? out.project(p.id) : undefined;
    if (e) e.repository_storage = storage;
  }
  const snippets: Record<string, string> = {};
  for (const [k, storage] of ientries(st.storage_moves.storages)) {
    const [kind, id] = k.split(':') as [MoveKind, string];
    if (kind === 'snippet') snippets[id] = storage;
    else if (kind === 'group') {
      const e = out.group(Number(id));
      if (e) e.wiki_repository_storage = storage;
    }
  }
  if (Object.keys(snippets).length) out.file.snippet_repository_storages = snippets;
  const moves: Record<string, unknown>[] = [];
  for (const kind of MOVE_KINDS)
    for (const m of tvalues(st.storage_moves[kind]).sort((a, b) => a.id - b.id)) {
      const container =
        kind === 'snippet'
          ? m.container_id
          : kind === 'project'
            ? tget(st.projects, m.container_id)?.path_with_namespace
            : tget(st.groups, m.container_id)?.full_path;
      if (container === undefined) continue;
      moves.push({
        kind,
        container,
        state: m.state,
        source_storage_name: m.source_storage_name,
        destination_storage_name: m.destination_storage_name,
        created_at: m.created_at,
        updated_at: m.updated_at,
      });
    }
  if (moves.length) out.file.repository_storage_moves = moves;
}
