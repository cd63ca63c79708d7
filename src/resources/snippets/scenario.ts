/** Scenario files' top-level `snippets`: personal snippets. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioOut } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { isoOf, isoTime } from '../../core/fields.js';
import { awardEntries } from '../issuables/export.js';
import {
  awardSchema,
  buildAwards,
  keeping,
  recordId,
  snippetFilesOf,
  snippetFilesScenario,
} from '../issuables/scenario.js';
import { createPersonalSnippet } from './model.js';

export const personalSnippetScenario = z.strictObject({
  id: recordId,
  author: z.string().min(1).describe('username'),
  title: z.string().min(1),
  file_name: z.string().default('snippet.txt'),
  content: z
    .string()
    .min(1)
    .optional()
    .describe("the file's content; with files, the first file's by default"),
  files: snippetFilesScenario,
  description: z.string().optional(),
  visibility: z.enum(['private', 'internal', 'public']).default('private'),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
  award_emoji: z.array(awardSchema).default([]),
});

/** Top-level fields of this area. */
export const personalSnippetFields = {
  snippets: z.array(personalSnippetScenario).default([]).describe('personal snippets'),
};

type PersonalSnippet = z.output<typeof personalSnippetScenario>;

/** What this area reads of a scenario. */
export type SnippetsScenario = z.output<z.ZodObject<typeof personalSnippetFields>>;

export function personalSnippetProblems(
  list: readonly PersonalSnippet[],
  users: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  list.forEach((sn, i) => {
    if (!users.has(sn.author.toLowerCase())) problems.push(`snippets[${i}].author: no user "${sn.author}"`);
    sn.award_emoji.forEach((a, k) => {
      if (!users.has(a.user.toLowerCase()))
        problems.push(`snippets[${i}].award_emoji[${k}].user: no user "${a.user}"`);
    });
    if (sn.content === undefined && !sn.files) problems.push(`snippets[${i}]: give content or files`);
  });
  return problems;
}

export function buildPersonalSnippets(
  st: Draft<PlatformState>,
  list: readonly PersonalSnippet[],
  uid: (username: string) => number,
  now: string,
): void {
  for (const s of list) {
    const created = isoOf(s.created_at) ?? now;
    const id = keeping(st, 'snippets', st.issuables.snippets, s.id, () =>
      createPersonalSnippet(
        st,
        {
          author_id: uid(s.author),
          title: s.title,
          file_name: s.file_name,
          description: s.description ?? null,
          content: s.content ?? s.files?.[0]?.content ?? '',
          ...(s.files ? { files: snippetFilesOf(s.files) } : {}),
          visibility: s.visibility,
        },
        created,
      ),
    );
    tget(st.issuables.snippets, id)!.updated_at = isoOf(s.updated_at) ?? created;
    buildAwards(st, 'Snippet', id, s.award_emoji, uid, created);
  }
}

/**
 * Every personal snippet, in creation order. Not kept: the user agent and address of an API-created
 * snippet (spam-check details a scenario has no field for).
 */
export function exportPersonalSnippets(st: PlatformState, out: ScenarioOut): void {
  const list: Record<string, unknown>[] = [];
  for (const s of tvalues(st.issuables.snippets)) {
    const author = out.username(s.author_id);
    if (s.project_id !== null || author === undefined) continue;
    const e: Record<string, unknown> = { id: s.id, author, title: s.title };
    if (s.file_name !== 'snippet.txt') e.file_name = s.file_name;
    e.content = s.content;
    if (s.files) e.files = s.files.map((f) => ({ path: f.path, content: f.content }));
    if (s.description !== null) e.description = s.description;
    if (s.visibility !== 'private') e.visibility = s.visibility;
    e.created_at = s.created_at;
    if (s.updated_at !== s.created_at) e.updated_at = s.updated_at;
    const awards = awardEntries(st, out, 'Snippet', s.id);
    if (awards.length) e.award_emoji = awards;
    list.push(e);
  }
  if (list.length) out.file.snippets = list;
}
