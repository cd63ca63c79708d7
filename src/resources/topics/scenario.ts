/** Scenario files' `topics`: topics with a description (projects' `tag_list` creates the others). */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { PlatformState } from '../../core/state.js';
import type { ScenarioOut } from '../../core/area.js';
import { tget, tvalues } from '../../core/table.js';
import { createTopic, topicIdByName } from './model.js';

export const topicScenario = z.strictObject({
  name: z.string().trim().min(1).max(255),
  description: z.string().max(1024).nullable().optional(),
});

export type TopicScenario = z.output<typeof topicScenario>;

/** Top-level fields of this area. */
export const topicFields = {
  topics: z
    .array(topicScenario)
    .default([])
    .describe("project topics with a description; projects' tag_list creates the others"),
};

/** Duplicate names (case-insensitive), as `topics[i].name: ...` lines. */
export function topicProblems(topics: readonly TopicScenario[]): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  topics.forEach((t, i) => {
    const k = t.name.toLowerCase();
    if (seen.has(k)) problems.push(`topics[${i}].name: "${t.name}" is listed twice`);
    seen.add(k);
  });
  return problems;
}

/** Creates the listed topics, before the projects whose tags would otherwise create them. */
export function buildTopics(st: Draft<PlatformState>, topics: readonly TopicScenario[], now: string): void {
  for (const t of topics) {
    const id = topicIdByName(st, t.name);
    if (id === undefined) createTopic(st, { name: t.name, description: t.description ?? null }, now);
    else tget(st.topics.records, id)!.description = t.description ?? null;
  }
}

/**
 * Every topic, in creation order, so that a load numbers them the same way; projects' `tag_list` links
 * them again. Not kept: avatars (uploads are not part of a scenario).
 */
export function exportTopics(st: PlatformState, out: ScenarioOut): void {
  const topics = tvalues(st.topics.records).map((t) =>
    t.description === null ? { name: t.name } : { name: t.name, description: t.description },
  );
  if (topics.length) out.file.topics = topics;
}
