/** Trigger records: creation with a token, updates, deletion with the project, lookup by token. */
import { createHash } from 'node:crypto';
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { TriggerRecord } from './store.js';

type S = Draft<PlatformState>;

/**
 * `SecureRandom.hex(15)` in shape (30 hex characters), derived from the record id and the instant so
 * that a scenario replays byte for byte.
 */
export const triggerToken = (id: number, now: string) =>
  createHash('sha256').update(`fauxlab:trigger:${id}:${now}`).digest('hex').slice(0, 30);

export interface NewTrigger {
  project_id: number;
  owner_id: number | null;
  description: string;
  /** A token the scenario gives; otherwise one is made. */
  token?: string;
  created_at: string;
  updated_at?: string;
  last_used?: string | null;
}

export function createTrigger(st: S, t: NewTrigger): number {
  const id = nextId(st, 'triggers');
  const token = t.token ?? triggerToken(id, t.created_at);
  tset(st.triggers.records, id, {
    id,
    project_id: t.project_id,
    owner_id: t.owner_id,
    description: t.description,
    token,
    created_at: t.created_at,
    updated_at: t.updated_at ?? t.created_at,
    last_used: t.last_used ?? null,
  });
  madd(st.triggers.idx.byProject, String(t.project_id), id);
  iset(st.triggers.idx.tokens, token, id);
  return id;
}

export function deleteTrigger(st: S, id: number): void {
  const t = tget(st.triggers.records, id);
  if (!t) return;
  mremove(st.triggers.idx.byProject, String(t.project_id), id);
  idelete(st.triggers.idx.tokens, t.token);
  tdelete(st.triggers.records, id);
}

/** The project's triggers, in id order. */
export const projectTriggers = (st: PlatformState, projectId: number): TriggerRecord[] =>
  mget(st.triggers.idx.byProject, String(projectId))
    .sort((a, b) => a - b)
    .map((id) => tget(st.triggers.records, id)!);

export function triggerByToken(st: PlatformState, token: string): TriggerRecord | undefined {
  const id = iget(st.triggers.idx.tokens, token);
  return id === undefined ? undefined : tget(st.triggers.records, id);
}

/** Removes a project's triggers (`deleteProject` cascades through this). */
export function deleteProjectTriggers(st: S, projectId: number): void {
  for (const id of mget(st.triggers.idx.byProject, String(projectId))) deleteTrigger(st, id);
}
