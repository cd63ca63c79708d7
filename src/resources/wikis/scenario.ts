/** Scenario files' `wiki` pages of a project or group. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { tvalues } from '../../core/table.js';
import { createPage, pageErrors, slugOf, squishTitle } from './model.js';
import { WIKI_FORMATS, type WikiOwner } from './store.js';

const pageSchema = z.strictObject({
  title: z.string().describe('the page title; `dir/Title` puts it in a directory'),
  content: z.string(),
  format: z.enum(WIKI_FORMATS).default('markdown'),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
});

export const wikiFields = { wiki: z.array(pageSchema).max(10_000).optional() };

export interface WikiEntry {
  wiki?: z.output<typeof pageSchema>[];
}

/** The page validations and the git wiki's one-file-per-name rule, as the API would answer them. */
export function wikiProblems(e: WikiEntry, at: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  (e.wiki ?? []).forEach((pg, j) => {
    const title = squishTitle(pg.title);
    for (const [field, msgs] of Object.entries(pageErrors(title, pg.content)))
      for (const m of msgs) problems.push(`${at}.wiki[${j}].${field}: ${m}`);
    if (title === null) return;
    const slug = slugOf(title).toLowerCase();
    if (seen.has(slug))
      problems.push(`${at}.wiki[${j}].title: a page named "${slugOf(title)}" is listed twice`);
    seen.add(slug);
  });
  return problems;
}

export function buildWiki(st: Draft<PlatformState>, owner: WikiOwner, e: WikiEntry, b: ScenarioBuild): void {
  for (const pg of e.wiki ?? []) {
    const created = isoOf(pg.created_at) ?? b.now;
    const fields = { slug: slugOf(squishTitle(pg.title)!), format: pg.format, content: pg.content };
    createPage(st, owner, fields, created, isoOf(pg.updated_at) ?? created);
  }
}

/** Current pages only: versions other than the newest are not part of the format. */
export function exportWikis(st: PlatformState, out: ScenarioOut): void {
  for (const page of tvalues(st.wikis.pages)) {
    const e = page.project_id !== null ? out.project(page.project_id) : out.group(page.group_id!);
    if (!e) continue;
    const entry: Record<string, unknown> = { title: page.slug, content: page.content };
    if (page.format !== 'markdown') entry.format = page.format;
    entry.created_at = page.created_at;
    if (page.updated_at !== page.created_at) entry.updated_at = page.updated_at;
    ((e.wiki ??= []) as unknown[]).push(entry);
  }
}
