/**
 * Topics and the projects tagged with them. A project's `tag_list` stays the source of what it shows;
 * every write that changes one goes through `setProjectTopics`, which finds or creates each named topic
 * (names match case-insensitively, as the platform's unique index does) and keeps the links and
 * `total_projects_count` in step. Renaming or deleting a topic rewrites the tag lists of its projects.
 */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mhas, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { TopicRecord } from './store.js';

type S = Draft<PlatformState>;

const lower = (name: string) => name.toLowerCase();

/** Byte order, as `sortedTags` keeps tag lists. */
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export const topicIdByName = (st: PlatformState, name: string) =>
  iget(st.topics.idx.names, lower(name.trim()));

export interface NewTopic {
  name: string;
  description?: string | null;
  avatar_url?: string | null;
}

export function createTopic(st: S, input: NewTopic, now: string): number {
  const id = nextId(st, 'topics');
  tset(st.topics.records, id, {
    id,
    name: input.name,
    description: input.description ?? null,
    avatar_url: input.avatar_url ?? null,
    total_projects_count: 0,
    created_at: now,
    updated_at: now,
  });
  iset(st.topics.idx.names, lower(input.name), id);
  return id;
}

/**
 * Moves a project from the topics of `before` to those of `after` (tag lists, any case): links it to
 * each new name's topic, creating topics as needed, and unlinks it from names it no longer has.
 */
export function setProjectTopics(
  st: S,
  projectId: number,
  before: readonly string[],
  after: readonly string[],
  now: string,
): void {
  const had = new Set(before.map(lower));
  const has = new Set(after.map(lower));
  for (const name of had) if (!has.has(name)) unlink(st, projectId, name);
  for (const tag of after) {
    const key = lower(tag);
    if (had.has(key)) continue;
    had.add(key);
    const id = iget(st.topics.idx.names, key) ?? createTopic(st, { name: tag }, now);
    if (mhas(st.topics.idx.projects, String(id), projectId)) continue;
    madd(st.topics.idx.projects, String(id), projectId);
    tget(st.topics.records, id)!.total_projects_count++;
  }
}

function unlink(st: S, projectId: number, name: string): void {
  const id = iget(st.topics.idx.names, name);
  if (id === undefined) return;
  if (!mhas(st.topics.idx.projects, String(id), projectId)) return;
  mremove(st.topics.idx.projects, String(id), projectId);
  const t = tget(st.topics.records, id)!;
  if (t.total_projects_count > 0) t.total_projects_count--;
}

/** Rewrites the tag lists of a topic's projects: `rename` replaces the topic's name, else it is dropped. */
function retag(st: S, topic: TopicRecord, rename?: string): void {
  const key = lower(topic.name);
  for (const pid of mget(st.topics.idx.projects, String(topic.id))) {
    const p = tget(st.projects, pid) as { tag_list?: readonly string[] } | undefined;
    if (!p?.tag_list) continue;
    const kept = p.tag_list.filter((t) => lower(t) !== key);
    if (rename !== undefined) kept.push(rename);
    p.tag_list = [...new Set(kept)].sort(byteOrder);
  }
}

export interface TopicChanges {
  name?: string;
  title?: string;
  description?: string | null;
  avatar_url?: string | null;
}

export function updateTopic(st: S, id: number, ch: TopicChanges, now: string): void {
  const t = tget(st.topics.records, id)!;
  if (ch.name !== undefined && ch.name !== t.name) {
    retag(st, t, ch.name);
    idelete(st.topics.idx.names, lower(t.name));
    iset(st.topics.idx.names, lower(ch.name), id);
    t.name = ch.name;
  }
  if (ch.title !== undefined) t.title = ch.title;
  if (ch.description !== undefined) t.description = ch.description;
  if (ch.avatar_url !== undefined) t.avatar_url = ch.avatar_url;
  t.updated_at = now;
}

/** Deletes a topic; its projects lose the tag. */
export function deleteTopic(st: S, id: number): void {
  const t = tget(st.topics.records, id);
  if (!t) return;
  retag(st, t);
  idelete(st.topics.idx.projects, String(id));
  idelete(st.topics.idx.names, lower(t.name));
  tdelete(st.topics.records, id);
}

/**
 * `Projects::Topic` validations: the errors hash, empty when valid. `self` is the topic being updated.
 */
export function topicErrors(
  st: PlatformState,
  t: { name: string; description: string | null },
  self?: number,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  if (t.name.trim() === '') add('name', "can't be blank");
  else {
    const other = topicIdByName(st, t.name);
    if (other !== undefined && other !== self) add('name', 'has already been taken');
  }
  if (t.name.length > 255) add('name', 'is too long (maximum is 255 characters)');
  if (t.description !== null && t.description.length > 1024)
    add('description', 'is too long (maximum is 1024 characters)');
  return errors;
}

/**
 * `Topics::MergeService` (15.4): the source topic's projects take the target topic instead (their tag
 * lists renamed), the target's count follows, and the source goes.
 */
export function mergeTopics(st: S, sourceId: number, targetId: number, now: string): void {
  const source = tget(st.topics.records, sourceId)!;
  const target = tget(st.topics.records, targetId)!;
  retag(st, source, target.name);
  const key = String(targetId);
  for (const pid of mget(st.topics.idx.projects, String(sourceId)))
    if (!mhas(st.topics.idx.projects, key, pid)) {
      madd(st.topics.idx.projects, key, pid);
      target.total_projects_count++;
    }
  target.updated_at = now;
  idelete(st.topics.idx.projects, String(sourceId));
  idelete(st.topics.idx.names, lower(source.name));
  tdelete(st.topics.records, sourceId);
}
