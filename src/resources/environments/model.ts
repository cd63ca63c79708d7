/** Environment records and the model's rules: slugs, tiers, validations, writers. */
import { createHash } from 'node:crypto';
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { EnvironmentRecord, EnvironmentTier } from './store.js';
import { addressableUrlProblem } from '../../core/url.js';

type S = Draft<PlatformState>;

/**
 * `Gitlab::Slug::Environment`: lowercase letters, digits and `-`, starting with a letter, at most 24
 * characters; a name that is not already its own slug gets a suffix made from the name's SHA-256, so
 * that two names rarely meet.
 */
export function environmentSlug(name: string): string {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/g, '-');
  if (!/^[a-z]/.test(slug)) slug = `env-${slug}`;
  slug = slug.replace(/-{2,}/g, '-');
  if (slug.length <= 24 && slug === name) return slug.replace(/-$/, '');
  slug = slug.slice(0, 17);
  if (!slug.endsWith('-')) slug += '-';
  const suffix = BigInt(`0x${createHash('sha256').update(name).digest('hex')}`)
    .toString(36)
    .slice(-6);
  return slug + suffix;
}

/** `Environment#guess_tier`: from words in the name, as the platform guesses when none is given. */
export function guessTier(name: string): EnvironmentTier {
  if (/dev|review|trunk/i.test(name)) return 'development';
  if (/test|qa/i.test(name)) return 'testing';
  if (/st(a|)g|mod(e|)l|pre|demo/i.test(name)) return 'staging';
  if (/pr(o|)d|live/i.test(name)) return 'production';
  return 'other';
}

/** `Gitlab::Regex.environment_name_regex`: no `/` at either end. */
const NAME_FORMAT = /^[a-zA-Z0-9_${}. -]([a-zA-Z0-9_/${}. -]*[a-zA-Z0-9_${}. -])?$/;
const NAME_MESSAGE =
  "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";

const nameKey = (projectId: number, name: string) => `${projectId}:${name}`;

/** `AddressableUrlValidator` with its defaults: an http(s) URL. */
export const urlProblem = (url: string): string | null => addressableUrlProblem(url);

export interface EnvironmentFields {
  name: string;
  external_url: string | null;
}

/** The model's validations in its order (name, then external_url): the errors hash, empty when valid. */
export function environmentErrors(
  st: PlatformState,
  projectId: number,
  e: EnvironmentFields,
  self?: number,
): Record<string, string[]> {
  const taken = iget(st.environments.idx.names, nameKey(projectId, e.name));
  return fieldErrors(e, taken !== undefined && taken !== self);
}

/** The validations of one environment's fields; `taken`: another of the project's has the name. */
export function fieldErrors(e: EnvironmentFields, taken: boolean): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  if (e.name.trim() === '') add('name', "can't be blank");
  if (taken) add('name', 'has already been taken');
  if (e.name.length > 255) add('name', 'is too long (maximum is 255 characters)');
  if (!NAME_FORMAT.test(e.name)) add('name', NAME_MESSAGE);
  if (e.external_url !== null) {
    if (e.external_url.length > 255) add('external_url', 'is too long (maximum is 255 characters)');
    const problem = urlProblem(e.external_url);
    if (problem) add('external_url', problem);
  }
  return errors;
}

export function createEnvironment(st: S, projectId: number, e: EnvironmentFields, now: string): number {
  const id = nextId(st, 'environments');
  const rec: EnvironmentRecord = {
    id,
    project_id: projectId,
    name: e.name,
    slug: environmentSlug(e.name),
    external_url: e.external_url,
    state: 'available',
    tier: guessTier(e.name),
    created_at: now,
    updated_at: now,
  };
  tset(st.environments.records, id, rec);
  madd(st.environments.idx.byProject, String(projectId), id);
  iset(st.environments.idx.names, nameKey(projectId, e.name), id);
  return id;
}

/** Applies changes; `updated_at` moves only when something changed, as ActiveRecord does. */
export function updateEnvironment(st: S, id: number, ch: Partial<EnvironmentFields>, now: string): void {
  const e = tget(st.environments.records, id)!;
  let changed = false;
  if (ch.name !== undefined && ch.name !== e.name) {
    idelete(st.environments.idx.names, nameKey(e.project_id, e.name));
    iset(st.environments.idx.names, nameKey(e.project_id, ch.name), id);
    e.name = ch.name;
    changed = true;
  }
  if (ch.external_url !== undefined && ch.external_url !== e.external_url) {
    e.external_url = ch.external_url;
    changed = true;
  }
  if (changed) e.updated_at = now;
}

/** `stop!`: an available environment becomes stopped; a stopped one stays as it is. */
export function stopEnvironment(st: S, id: number, now: string): void {
  const e = tget(st.environments.records, id)!;
  if (e.state !== 'available') return;
  e.state = 'stopped';
  e.updated_at = now;
}

export function deleteEnvironment(st: S, id: number): void {
  const e = tget(st.environments.records, id);
  if (!e) return;
  mremove(st.environments.idx.byProject, String(e.project_id), id);
  idelete(st.environments.idx.names, nameKey(e.project_id, e.name));
  tdelete(st.environments.records, id);
}

/** The project's environments, in id order. */
export const projectEnvironments = (st: PlatformState, projectId: number): EnvironmentRecord[] =>
  mget(st.environments.idx.byProject, String(projectId))
    .sort((a, b) => a - b)
    .map((id) => tget(st.environments.records, id)!);

/** Removes a project's environments (`deleteProject` cascades through this). */
export function deleteProjectEnvironments(st: S, projectId: number): void {
  for (const id of mget(st.environments.idx.byProject, String(projectId))) deleteEnvironment(st, id);
}
