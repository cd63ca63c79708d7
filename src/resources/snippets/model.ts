/**
 * Snippets: one table (`st.issuables.snippets`) for project snippets and personal ones (`project_id`
 * null). Who may read one, the size limit, and writes that keep the author and public indexes.
 */
import type { Draft } from 'immer';
import { ACCESS, projectAccess } from '../../core/access.js';
import type { PlatformState, UserRecord, Visibility } from '../../core/state.js';
import { idelete, madd, mget, mremove, tdelete, tget } from '../../core/table.js';
import { createSnippet, removeAward } from '../issuables/model.js';
import type { SnippetFile, SnippetRecord } from '../issuables/store.js';
import type { Project } from '../projects/model.js';
import { setting } from '../settings/model.js';

type S = Draft<PlatformState>;

export const PUBLIC_KEY = 'spublic';
export const authorKey = (userId: number) => `su${userId}`;

/** `read_snippet` (personal and project snippet policies). */
export function canReadSnippet(st: PlatformState, user: UserRecord | null, s: SnippetRecord): boolean {
  if (user?.admin) return true;
  if (user && s.author_id === user.id) return true;
  if (s.project_id === null) {
    if (s.visibility === 'public') return true;
    return s.visibility === 'internal' && !!user && !user.external;
  }
  const project = tget(st.projects, s.project_id) as Project | undefined;
  if (!project || project.snippets_access_level === 'disabled') return false;
  const level = projectAccess(st, user, project);
  if (level >= ACCESS.GUEST) return true;
  if (project.snippets_access_level === 'private' || project.visibility === 'private') return false;
  if (project.visibility === 'internal' && (!user || user.external)) return false;
  if (s.visibility === 'public') return true;
  return s.visibility === 'internal' && !!user && !user.external;
}

/** Rails' `number_to_human_size`: 1024-based, three significant digits, trailing zeros dropped. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'Byte' : 'Bytes'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let i = -1;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number(v.toPrecision(3))} ${units[i]}`;
}

/** The model's content validations, as the full messages the snippet services answer with. */
export function contentProblems(st: PlatformState, content: string): string[] {
  const max = setting(st, 'snippet_size_limit');
  return content.length > max
    ? [`Content is too long (${humanSize(content.length)}). The maximum size is ${humanSize(max)}.`]
    : [];
}

export interface NewPersonalSnippet {
  author_id: number;
  title: string;
  file_name: string;
  description: string | null;
  content: string;
  files?: SnippetFile[];
  visibility: Visibility;
  user_agent?: string | null;
  ip_address?: string | null;
}

export function createPersonalSnippet(st: S, input: NewPersonalSnippet, now: string): number {
  const id = createSnippet(st, { project_id: null, created_at: now, updated_at: now, ...input });
  if (input.visibility === 'public') madd(st.issuables.idx.owned, PUBLIC_KEY, id);
  return id;
}

export function updateSnippet(
  st: S,
  id: number,
  changes: Partial<
    Pick<SnippetRecord, 'title' | 'file_name' | 'description' | 'content' | 'visibility' | 'files'>
  >,
  now: string,
): void {
  const s = tget(st.issuables.snippets, id)!;
  const { files, ...rest } = changes;
  Object.assign(s, rest, { updated_at: now });
  if ('files' in changes) {
    if (files) s.files = files;
    else delete s.files;
  }
  if (s.project_id !== null) return;
  if (s.visibility === 'public') madd(st.issuables.idx.owned, PUBLIC_KEY, id);
  else mremove(st.issuables.idx.owned, PUBLIC_KEY, id);
}

/** Removes a snippet with its notes and award emoji. */
export function deleteSnippet(st: S, id: number): void {
  const s = tget(st.issuables.snippets, id);
  if (!s) return;
  const ix = st.issuables.idx;
  for (const noteId of mget(ix.notes, `Snippet:${id}`)) {
    for (const a of mget(ix.awards, `Note:${noteId}`)) removeAward(st, a);
    tdelete(st.issuables.notes, noteId);
  }
  idelete(ix.notes, `Snippet:${id}`);
  for (const a of mget(ix.awards, `Snippet:${id}`)) removeAward(st, a);
  if (s.project_id !== null) mremove(ix.owned, `sp${s.project_id}`, id);
  mremove(ix.owned, authorKey(s.author_id), id);
  mremove(ix.owned, PUBLIC_KEY, id);
  tdelete(st.issuables.snippets, id);
}
