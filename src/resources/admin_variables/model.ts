/**
 * Instance and group CI/CD variables. Validation is the project variables' (`variableErrors` of the CI
 * area): instance variables have no environment scope, so they are checked as if scoped to `*`.
 */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { variableErrors, type VariableInput } from '../ci/model.js';
import type { GroupVariableRecord, InstanceVariableRecord } from './store.js';

type S = Draft<PlatformState>;

/** `Ci::InstanceVariable::VALUE_MAX_LENGTH` (13.3+). */
export const INSTANCE_VALUE_MAX = 10_000;

export type InstanceVariableInput = Omit<InstanceVariableRecord, 'id'>;

export const instanceVariableByKey = (st: PlatformState, key: string) => {
  const id = iget(st.ciVariables.idx.instanceKeys, key);
  return id === undefined ? undefined : tget(st.ciVariables.instance, id);
};

/** `Ci::InstanceVariable` validations; `self` is the variable being updated. */
export function instanceVariableErrors(
  st: PlatformState,
  v: InstanceVariableInput,
  self?: number,
): Record<string, string[]> {
  const other = instanceVariableByKey(st, v.key);
  const siblings = other ? [{ id: other.id, key: other.key, environment_scope: '*' }] : [];
  const errors = variableErrors({ ...v, environment_scope: '*' }, siblings, self);
  if (v.value.length > INSTANCE_VALUE_MAX) {
    const list = (errors.value ??= []);
    list.push(`The value of the provided variable exceeds the ${INSTANCE_VALUE_MAX} character limit`);
  }
  return errors;
}

export function createInstanceVariable(st: S, v: InstanceVariableInput): number {
  const id = nextId(st, 'instance_variables');
  tset(st.ciVariables.instance, id, { id, ...v });
  iset(st.ciVariables.idx.instanceKeys, v.key, id);
  return id;
}

export function updateInstanceVariable(st: S, id: number, v: InstanceVariableInput): void {
  const rec = tget(st.ciVariables.instance, id)!;
  if (rec.key !== v.key) {
    idelete(st.ciVariables.idx.instanceKeys, rec.key);
    iset(st.ciVariables.idx.instanceKeys, v.key, id);
  }
  Object.assign(rec, v);
}

export function deleteInstanceVariable(st: S, id: number): void {
  const rec = tget(st.ciVariables.instance, id);
  if (!rec) return;
  idelete(st.ciVariables.idx.instanceKeys, rec.key);
  tdelete(st.ciVariables.instance, id);
}

const groupKey = (groupId: number) => `g${groupId}`;

/** A group's variables, in id order. */
export function groupVariables(st: PlatformState, groupId: number): GroupVariableRecord[] {
  return mget(st.ciVariables.idx.groupBy, groupKey(groupId))
    .sort((a, b) => a - b)
    .map((id) => tget(st.ciVariables.group, id)!);
}

/** `Ci::GroupVariable` validations (key unique per group and scope). */
export function groupVariableErrors(
  st: PlatformState,
  groupId: number,
  v: VariableInput,
  self?: number,
): Record<string, string[]> {
  return variableErrors(v, groupVariables(st, groupId), self);
}

export function createGroupVariable(st: S, groupId: number, v: VariableInput, now: string): number {
  const id = nextId(st, 'group_variables');
  tset(st.ciVariables.group, id, { id, group_id: groupId, ...v, created_at: now, updated_at: now });
  madd(st.ciVariables.idx.groupBy, groupKey(groupId), id);
  return id;
}

export function deleteGroupVariable(st: S, id: number): void {
  const rec = tget(st.ciVariables.group, id);
  if (!rec) return;
  mremove(st.ciVariables.idx.groupBy, groupKey(rec.group_id), id);
  tdelete(st.ciVariables.group, id);
}

/** A deleted group's variables go with it. */
export function deleteGroupVariables(st: S, groupId: number): void {
  for (const id of mget(st.ciVariables.idx.groupBy, groupKey(groupId))) tdelete(st.ciVariables.group, id);
  idelete(st.ciVariables.idx.groupBy, groupKey(groupId));
}

/** `ActiveModel::Type::Boolean::FALSE_VALUES`, as strings (case matters). */
const RAILS_FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'off', 'OFF']);

/**
 * ActiveRecord's boolean cast of a `String` param (these endpoints declare `protected` and `masked` as
 * strings): blank is no value, the false words are false, anything else is true.
 */
export function railsBool(v: string | undefined): boolean | undefined {
  if (v === undefined || v === '') return undefined;
  return !RAILS_FALSE.has(v);
}
