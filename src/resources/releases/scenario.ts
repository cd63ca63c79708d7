/** Scenario files' `releases` of a project, each on a tag the project has (or makes from `ref`). */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { mget, tget, tvalues } from '../../core/table.js';
import { peel, refTarget, resolveCommit, setRef } from '../repository/refs.js';
import { objectsOf } from '../repository/store.js';
import { createRelease, linkErrors } from './model.js';
import { LINK_TYPES } from './store.js';

const linkSchema = z.strictObject({
  name: z.string().min(1),
  url: z.string(),
  filepath: z.string().optional(),
  link_type: z.enum(LINK_TYPES).default('other'),
});

const releaseSchema = z.strictObject({
  tag_name: z.string().min(1),
  name: z.string().optional(),
  description: z.string().min(1),
  ref: z.string().optional().describe('where to make the tag when the project has no tag of this name'),
  author: z.string().optional().describe('a username; default: none (as releases made before 11.7)'),
  released_at: isoTime.optional(),
  created_at: isoTime.optional(),
  milestones: z.array(z.string()).max(100).default([]).describe("titles of the project's milestones"),
  links: z.array(linkSchema).max(100).default([]),
});

export const releaseProjectFields = { releases: z.array(releaseSchema).max(1000).optional() };

export interface ReleaseProject {
  releases?: z.output<typeof releaseSchema>[];
}

/**
 * Builds the project's releases; a tag that neither exists nor can be made from `ref`, an unknown
 * milestone or a bad link stops the load with its place in the file.
 */
export function buildReleases(
  st: Draft<PlatformState>,
  projectId: number,
  p: ReleaseProject,
  b: ScenarioBuild,
): void {
  const project = tget(st.projects, projectId) as ProjectRecord;
  const seen = new Set<string>();
  (p.releases ?? []).forEach((r, j) => {
    const at = `${project.path_with_namespace}: releases[${j}]`;
    if (seen.has(r.tag_name)) throw new Error(`${at}: a second release of the tag ${r.tag_name}`);
    seen.add(r.tag_name);
    let target = refTarget(st, project, 'tag', r.tag_name);
    if (target === undefined) {
      const made = r.ref === undefined ? undefined : resolveCommit(st, project, r.ref);
      if (made === undefined)
        throw new Error(`${at}: no tag ${r.tag_name}, and no \`ref\` that names a commit`);
      setRef(st, project, 'tag', r.tag_name, made);
      target = made;
    }
    const milestones = mget(st.issuables.idx.owned, `p${projectId}`).map((id) =>
      tget(st.issuables.milestones, id)!,
    );
    const milestoneIds = r.milestones.map((title) => {
      const m = milestones.find((x) => x.title === title);
      if (!m) throw new Error(`${at}: no milestone "${title}" in the project`);
      return m.id;
    });
    const links = r.links.map((l) => ({
      name: l.name,
      url: l.url,
      filepath: l.filepath ?? null,
      link_type: l.link_type,
    }));
    links.forEach((l, k) => {
      const siblings = links
        .slice(0, k)
        .map((x, i) => ({ id: -1 - i, ...x, created_at: '', updated_at: '' }));
      const errors = Object.entries(linkErrors(l, siblings));
      if (errors.length) throw new Error(`${at}.links[${k}].${errors[0]![0]}: ${errors[0]![1][0]}`);
    });
    const created = isoOf(r.created_at) ?? b.now;
    createRelease(
      st,
      projectId,
      {
        tag: r.tag_name,
        name: r.name ?? null,
        description: r.description,
        sha: peel(objectsOf(st), target),
        author_id: r.author === undefined ? null : b.uid(r.author),
        released_at: isoOf(r.released_at) ?? created,
        milestone_ids: milestoneIds,
        links,
      },
      created,
    );
  });
}

export function exportReleases(st: PlatformState, out: ScenarioOut): void {
  for (const r of tvalues(st.releases.records).sort((a, b) => a.id - b.id)) {
    const e = out.project(r.project_id);
    if (!e) continue;
    const entry: Record<string, unknown> = { tag_name: r.tag };
    if (r.name !== null) entry.name = r.name;
    entry.description = r.description;
    const author = out.username(r.author_id);
    if (author !== undefined) entry.author = author;
    entry.created_at = r.created_at;
    entry.released_at = r.released_at;
    const titles = r.milestone_ids.flatMap((id) => {
      const m = tget(st.issuables.milestones, id);
      return m ? [m.title] : [];
    });
    if (titles.length) entry.milestones = titles;
    if (r.links.length)
      entry.links = r.links.map((l) => ({
        name: l.name,
        url: l.url,
        ...(l.filepath ? { filepath: l.filepath } : {}),
        ...(l.link_type !== 'other' ? { link_type: l.link_type } : {}),
      }));
    ((e.releases ??= []) as unknown[]).push(entry);
  }
}
