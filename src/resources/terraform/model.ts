/** Terraform state writes (`Terraform::RemoteStateHandler`'s records), shared by the API and project deletion. */
import { createHash } from 'node:crypto';
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { TerraformStateRecord, TerraformStateVersionRecord } from './store.js';

type S = Draft<PlatformState>;

const nameKey = (projectId: number, name: string) => `${projectId}/${name}`;

export function findState(
  st: PlatformState,
  projectId: number,
  name: string,
): TerraformStateRecord | undefined {
  const id = iget(st.terraform.idx.byName, nameKey(projectId, name));
  return id === undefined ? undefined : tget(st.terraform.states, id);
}

/** The state's versions, lowest serial first. */
export function stateVersions(st: PlatformState, stateId: number): TerraformStateVersionRecord[] {
  return mget(st.terraform.idx.versions, String(stateId))
    .map((id) => tget(st.terraform.versions, id)!)
    .sort((a, b) => a.version - b.version);
}

/** `latest_version`: the highest serial (`ordered_by_version_desc`). */
export const latestVersion = (st: PlatformState, stateId: number) => stateVersions(st, stateId).at(-1);

/** `Terraform::State.create_or_find_by(project:, name:)`. */
export function createOrFindState(
  st: S,
  projectId: number,
  name: string,
  now: string,
): Draft<TerraformStateRecord> {
  const found = findState(st, projectId, name);
  if (found) return tget(st.terraform.states, found.id)!;
  const id = nextId(st, 'terraform_states');
  const uuid = createHash('sha256')
    .update(`terraform-state/${id}/${projectId}/${name}`)
    .digest('hex')
    .slice(0, 32);
  tset(st.terraform.states, id, {
    id,
    project_id: projectId,
    name,
    uuid,
    lock_xid: null,
    locked_by_user_id: null,
    locked_at: null,
    created_at: now,
    updated_at: now,
  });
  iset(st.terraform.idx.byName, nameKey(projectId, name), id);
  madd(st.terraform.idx.byProject, String(projectId), id);
  return tget(st.terraform.states, id)!;
}

export function addStateVersion(
  st: S,
  state: Draft<TerraformStateRecord>,
  v: { version: number; bytes: Uint8Array; ci_build_id: number | null; now: string },
): void {
  const id = nextId(st, 'terraform_state_versions');
  tset(st.terraform.versions, id, {
    id,
    state_id: state.id,
    version: v.version,
    data: Buffer.from(v.bytes).toString('base64'),
    size: v.bytes.byteLength,
    created_by_user_id: state.locked_by_user_id,
    ci_build_id: v.ci_build_id,
    created_at: v.now,
  });
  madd(st.terraform.idx.versions, String(state.id), id);
  st.terraform.bytes += v.bytes.byteLength;
  state.updated_at = v.now;
}

export function deleteStateVersion(st: S, id: number): void {
  const v = tget(st.terraform.versions, id);
  if (!v) return;
  st.terraform.bytes -= v.size;
  mremove(st.terraform.idx.versions, String(v.state_id), id);
  tdelete(st.terraform.versions, id);
}

/** A state and its versions (the versions' foreign key cascades on the platform). */
export function deleteState(st: S, id: number): void {
  const s = tget(st.terraform.states, id);
  if (!s) return;
  for (const vid of mget(st.terraform.idx.versions, String(id))) deleteStateVersion(st, vid);
  idelete(st.terraform.idx.byName, nameKey(s.project_id, s.name));
  mremove(st.terraform.idx.byProject, String(s.project_id), id);
  tdelete(st.terraform.states, id);
}

/** A deleted project's states go with it. */
export function deleteProjectStates(st: S, projectId: number): void {
  for (const id of mget(st.terraform.idx.byProject, String(projectId))) deleteState(st, id);
}
