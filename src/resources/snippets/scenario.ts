/** Personal snippets in an exported scenario (the top-level `snippets`). */
import type { ScenarioOut } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { tvalues } from '../../core/table.js';

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
    if (s.description !== null) e.description = s.description;
    if (s.visibility !== 'private') e.visibility = s.visibility;
    list.push(e);
  }
  if (list.length) out.file.snippets = list;
}
