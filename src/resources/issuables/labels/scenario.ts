/**
 * Scenario fields of labels beyond a project's own (scenario.ts): group labels (`groups[].labels`), who
 * subscribes to a label, and a group label's priority and subscribers in one project
 * (`projects[].group_labels`), with their cross-checks, builders and export.
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioOut, ScenarioRefs } from '../../../core/area.js';
import type { PlatformState } from '../../../core/state.js';
import { ientries, tget, tvalues } from '../../../core/table.js';
import type { Project } from '../../projects/model.js';
import { availableLabels, createLabel } from '../model.js';
import { keeping, labelScenario } from '../scenario.js';
import { ownLabels, setLabelPriority, setLabelSubscription } from './model.js';

type S = Draft<PlatformState>;
type Entry = Record<string, unknown>;

const subscribers = z.array(z.string()).default([]).describe('usernames subscribed to the label');

export const groupLabelScenario = labelScenario.omit({ priority: true });

export const groupLabelInProject = z.strictObject({
  name: z.string().min(1).describe("a label of the project's group or one above it"),
  priority: z.number().int().min(0).optional(),
  subscribers: subscribers.describe('usernames subscribed to the label in this project'),
});

export const labelGroupFields = { labels: z.array(groupLabelScenario).default([]).describe('group labels') };
export const labelProjectFields = {
  group_labels: z
    .array(groupLabelInProject)
    .default([])
    .describe("group labels' priority and subscribers in this project"),
};

type GroupLabelEntry = z.output<typeof groupLabelScenario>;
type InProject = z.output<typeof groupLabelInProject>;

export type LabelsScenario = {
  groups: { path: string; labels: GroupLabelEntry[] }[];
  projects: { path: string; labels: { name: string; subscribers: string[] }[]; group_labels: InProject[] }[];
};

/** Unknown subscribers; group labels a project names that no group above it has. */
export function labelScenarioProblems(s: LabelsScenario, refs: ScenarioRefs): string[] {
  const problems: string[] = [];
  const users = (at: string, list: readonly string[]) =>
    list.forEach((u, k) => {
      if (!refs.users.has(u.toLowerCase())) problems.push(`${at}.subscribers[${k}]: no user "${u}"`);
    });
  s.groups.forEach((g, i) => g.labels.forEach((l, j) => users(`groups[${i}].labels[${j}]`, l.subscribers)));
  s.projects.forEach((p, i) => {
    p.labels.forEach((l, j) => users(`projects[${i}].labels[${j}]`, l.subscribers));
    const above = s.groups.filter((g) => p.path.toLowerCase().startsWith(`${g.path.toLowerCase()}/`));
    p.group_labels.forEach((l, j) => {
      users(`projects[${i}].group_labels[${j}]`, l.subscribers);
      if (!above.some((g) => g.labels.some((x) => x.name === l.name)))
        problems.push(`projects[${i}].group_labels[${j}].name: no group label "${l.name}" above the project`);
    });
  });
  return problems;
}

export function buildGroupLabels(
  st: S,
  groupId: number,
  labels: readonly GroupLabelEntry[],
  uid: (username: string) => number,
  now: string,
): void {
  for (const l of labels) {
    // With its exported id, as a project's labels: group and project labels share one sequence, so a
    // group label made after a project's would otherwise take that one's id on load.
    const id = keeping(st, 'labels', st.issuables.labels, l.id, () =>
      createLabel(
        st,
        { group_id: groupId },
        { title: l.name, color: l.color, description: l.description ?? null },
        now,
      ),
    );
    for (const u of l.subscribers) setLabelSubscription(st, id, uid(u), null, true);
  }
}

/** After the project's own labels are made: their subscribers, and the group labels' settings here. */
export function buildProjectLabelSettings(
  st: S,
  projectId: number,
  entry: Pick<LabelsScenario['projects'][number], 'labels' | 'group_labels'>,
  uid: (username: string) => number,
): void {
  const own = ownLabels(st, { project_id: projectId });
  for (const l of entry.labels) {
    const rec = own.find((x) => x.title === l.name);
    if (rec) for (const u of l.subscribers) setLabelSubscription(st, rec.id, uid(u), projectId, true);
  }
  const available = availableLabels(st, tget(st.projects, projectId) as Project);
  for (const l of entry.group_labels) {
    const rec = available.find((x) => x.group_id !== null && x.title === l.name);
    if (!rec) continue;
    if (l.priority !== undefined) setLabelPriority(st, projectId, rec.id, l.priority);
    for (const u of l.subscribers) setLabelSubscription(st, rec.id, uid(u), projectId, true);
  }
}

/** The entry named `name` in `list` of an exported group or project, made when missing. */
function entryIn(e: Entry, list: string, name: string, make = false): Entry | undefined {
  const arr = (e[list] ??= []) as Entry[];
  let found = arr.find((x) => x.name === name);
  if (!found && make) arr.push((found = { name, subscribers: [] }));
  return found;
}

const addSubscriber = (e: Entry | undefined, username: string) => {
  if (e) ((e.subscribers ??= []) as string[]).push(username);
};

/** Group labels into their groups; subscriptions and group label priorities where the builders read them. */
export function exportLabels(st: PlatformState, out: ScenarioOut): void {
  const iss = st.issuables;
  for (const l of tvalues(iss.labels)) {
    const g = l.group_id === null ? undefined : out.group(l.group_id);
    if (!g) continue;
    const e: Entry = { id: l.id, name: l.title, color: l.color };
    if (l.description !== null) e.description = l.description;
    ((g.labels ??= []) as Entry[]).push(e);
  }
  for (const [key, priority] of ientries(iss.idx.labelPriority)) {
    const [pid, lid] = key.split(':').map(Number) as [number, number];
    const l = tget(iss.labels, lid);
    const p = out.project(pid);
    if (l && p) entryIn(p, 'group_labels', l.title, true)!.priority = priority;
  }
  for (const [key, subscribed] of ientries(iss.idx.labelSubscriptions)) {
    if (!subscribed) continue;
    const [lid, uid, pid] = key.split(':').map(Number) as [number, number, number];
    const l = tget(iss.labels, lid);
    const username = out.username(uid);
    if (!l || username === undefined) continue;
    if (l.project_id !== null) {
      const p = pid === l.project_id ? out.project(pid) : undefined;
      if (p) addSubscriber(entryIn(p, 'labels', l.title), username);
    } else if (pid === 0) {
      const g = out.group(l.group_id!);
      if (g) addSubscriber(entryIn(g, 'labels', l.title), username);
    } else {
      const p = out.project(pid);
      if (p) addSubscriber(entryIn(p, 'group_labels', l.title, true), username);
    }
  }
}
