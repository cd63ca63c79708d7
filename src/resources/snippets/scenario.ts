/** Scenario files' top-level `snippets`: personal snippets. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioOut } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { tvalues } from '../../core/table.js';
import { snippetFilesOf, snippetFilesScenario } from '../issuables/scenario.js';
import { createPersonalSnippet } from './model.js';

export const personalSnippetScenario = z.strictObject({
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
  for (const s of list)
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
      now,
    );
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
    const e: Record<string, unknown> = { author, title: s.title };
    if (s.file_name !== 'snippet.txt') e.file_name = s.file_name;
    e.content = s.content;
    if (s.files) e.files = s.files.map((f) => ({ path: f.path, content: f.content }));
    if (s.description !== null) e.description = s.description;
    if (s.visibility !== 'private') e.visibility = s.visibility;
    list.push(e);
  }
  if (list.length) out.file.snippets = list;
}
