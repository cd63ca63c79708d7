/**
 * Scenario files: the issues, merge requests, milestones, labels, notes and snippets nested under a
 * project, epics at the top level, their cross-checks and how a world is built from them.
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import { isoDate, isoOf, isoTime } from '../../core/fields.js';
import { withId, type PlatformState } from '../../core/state.js';
import { emptyTable, iget, tget, tset, type Table } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import {
  addAward,
  createEpic,
  linkEpicIssue,
  createIssue,
  createLabel,
  createMergeRequest,
  createMilestone,
  createNote,
  createSnippet,
  issueIdByIid,
  labelIdsFor,
  realizeDeclared,
} from './model.js';
import type { AwardableType, NoteableType } from './store.js';
import { awardOnly, emojiName } from './text.js';
import { noteThreadFields, threadInput } from './discussions/scenario.js';
import { buildEpicTree, epicTreeFields } from './epic-tree-scenario.js';

type S = Draft<PlatformState>;

/** `make` with the entry's exported id, if it has one (see `withId`). */
export function keeping<T>(
  st: S,
  seq: string,
  table: Table<T>,
  id: number | undefined,
  make: () => number,
): number {
  return withId(st as PlatformState, seq, id, (n) => tget(table, n) !== undefined, make);
}

type AwardEntry = z.output<typeof awardSchema>;

/** A scenario's award emoji on one awardable, each with its id and times (default: the awardable's). */
export function buildAwards(
  st: S,
  type: AwardableType,
  targetId: number,
  list: readonly AwardEntry[],
  uid: (username: string) => number,
  at: string,
): void {
  for (const a of list) {
    const created = isoOf(a.created_at) ?? at;
    const id = keeping(st, 'award_emoji', st.issuables.awards, a.id, () =>
      addAward(st, type, targetId, uid(a.user), emojiName(a.name)!, created),
    );
    tget(st.issuables.awards, id)!.updated_at = isoOf(a.updated_at) ?? created;
  }
}

/** The id a record had where it was exported from (`fauxlab scenario export` writes it); default the next. */
export const recordId = z.number().int().min(1).max(0x7fffffff).optional();

export const awardSchema = z.strictObject({
  id: recordId,
  name: z.string().refine((n) => emojiName(n) !== undefined, 'is not an emoji the platform knows'),
  user: z.string().describe('username'),
  created_at: isoTime.optional().describe("default the awardable's creation time"),
  updated_at: isoTime.optional(),
});

export const noteScenario = z.strictObject({
  id: recordId,
  body: z.string().min(1),
  author: z.string().optional().describe('username; default the author of the noteable'),
  system: z.boolean().default(false),
  confidential: z.boolean().default(false),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
  award_emoji: z.array(awardSchema).default([]).describe('award emoji on the note'),
  ...noteThreadFields,
});

const issuableFields = {
  id: recordId,
  title: z.string().min(1),
  iid: z.number().int().min(1).optional().describe('default: the next free iid'),
  description: z.string().optional(),
  author: z.string().optional().describe('username; default the project creator'),
  assignees: z.array(z.string()).default([]).describe('usernames'),
  labels: z.array(z.string()).default([]).describe('label titles; missing ones are created'),
  milestone: z.string().optional().describe('title of a milestone listed in the project'),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
  award_emoji: z.array(awardSchema).default([]),
  notes: z.array(noteScenario).default([]),
  time_estimate: z.number().int().min(0).default(0).describe('seconds'),
  total_time_spent: z.number().int().min(0).default(0).describe('seconds'),
};

export const issueScenario = z.strictObject({
  ...issuableFields,
  state: z.enum(['opened', 'closed']).default('opened'),
  confidential: z.boolean().default(false),
  discussion_locked: z.boolean().optional(),
  due_date: isoDate.optional(),
  weight: z.number().int().min(0).optional().describe('paid tiers'),
  closed_at: isoTime.optional(),
  closed_by: z.string().optional().describe('username'),
  relative_position: z
    .number()
    .int()
    .optional()
    .describe("place among the project's issues (default: after the previous one)"),
  moved_to: z
    .string()
    .regex(/^.+#\d+$/, 'must be `project/path#iid`')
    .optional()
    .describe('the issue this one was moved to (needs `iid`)'),
});

export const mergeRequestScenario = z.strictObject({
  ...issuableFields,
  source_branch: z.string().min(1),
  target_branch: z.string().optional().describe("default the project's default branch"),
  reviewers: z.array(z.string()).default([]),
  state: z.enum(['opened', 'closed', 'merged', 'locked']).default('opened'),
  merge_status: z.enum(['unchecked', 'can_be_merged', 'cannot_be_merged']).optional(),
  conflicts: z.boolean().default(false).describe('a mergeability check finds conflicts'),
  squash: z.boolean().optional(),
  changes: z.number().int().min(1).max(100).optional().describe('files changed (changes_count)'),
  merged_by: z.string().optional(),
  merged_at: isoTime.optional(),
  approvals_before_merge: z
    .number()
    .int()
    .min(0)
    .max(100)
    .optional()
    .describe("paid tiers: the merge request's own approvals count (POST .../approvals)"),
  context_commits: z
    .array(
      z.strictObject({
        sha: z.string().regex(/^[0-9a-f]{40}$/),
        message: z.string(),
        author_name: z.string(),
        author_email: z.string(),
        authored_date: isoTime,
        committer_name: z.string(),
        committer_email: z.string(),
        committed_date: isoTime,
      }),
    )
    .max(1000)
    .refine((l) => new Set(l.map((c) => c.sha)).size === l.length, 'each sha once')
    .optional()
    .describe('context commits (POST .../context_commits), as copied when added'),
});

export const milestoneScenario = z.strictObject({
  id: recordId,
  title: z.string().min(1),
  description: z.string().optional(),
  state: z.enum(['active', 'closed']).default('active'),
  due_date: isoDate.optional(),
  start_date: isoDate.optional(),
  created_at: isoTime.optional(),
});

export const labelScenario = z.strictObject({
  id: recordId,
  name: z.string().min(1),
  color: z
    .string()
    .regex(/^#(?:[0-9A-Fa-f]{3}){1,2}$/)
    .optional(),
  description: z.string().optional(),
  priority: z.number().int().min(0).optional(),
  subscribers: z.array(z.string()).default([]).describe('usernames subscribed to the label'),
});

/** A snippet's files (13.5+): its repository's paths and contents, up to ten, each path once. */
export const snippetFilesScenario = z
  .array(
    z.strictObject({
      path: z
        .string()
        .min(1)
        .max(1024)
        .refine(
          (p) => p.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && s !== '.git'),
          'must be a relative path of non-empty segments',
        ),
      content: z.string(),
    }),
  )
  .min(1)
  .max(10)
  .refine((files) => new Set(files.map((f) => f.path)).size === files.length, 'each path once')
  .optional()
  .describe("the snippet's files (path, content); without it, the one file file_name with content");

export const snippetScenario = z.strictObject({
  id: recordId,
  title: z.string().min(1),
  file_name: z.string().default('snippet.txt'),
  content: z.string().default(''),
  files: snippetFilesScenario,
  description: z.string().optional(),
  author: z.string().optional(),
  visibility: z.enum(['private', 'internal', 'public']).default('private'),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
  award_emoji: z.array(awardSchema).default([]),
  notes: z.array(noteScenario).default([]),
});

/** Fields a project entry of a scenario may carry for this area. */
export const projectIssuablesFields = {
  labels: z.array(labelScenario).default([]).describe('project labels'),
  milestones: z.array(milestoneScenario).default([]),
  issues: z.array(issueScenario).default([]),
  merge_requests: z.array(mergeRequestScenario).default([]),
  snippets: z.array(snippetScenario).default([]).describe('project snippets (for their notes)'),
};

export const epicScenario = z.strictObject({
  id: recordId,
  group: z.string().describe('full path of a group listed in `groups`'),
  title: z.string().min(1),
  description: z.string().optional(),
  author: z.string(),
  confidential: z.boolean().default(false),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
  state: z.enum(['opened', 'closed']).default('opened'),
  closed_at: isoTime.optional().describe('closed epics: when (default: updated_at)'),
  labels: z.array(z.string().min(1)).max(100).default([]).describe('label names'),
  start_date_is_fixed: z.boolean().default(false),
  start_date_fixed: isoDate.optional(),
  due_date_is_fixed: z.boolean().default(false),
  due_date_fixed: isoDate.optional(),
  issues: z
    .array(z.string().regex(/^.+#\d+$/, 'must be `project/path#iid`'))
    .max(10_000)
    .default([])
    .describe('issues in the epic, top first, as `project/path#iid` (the issue listed with that iid)'),
  award_emoji: z.array(awardSchema).default([]),
  notes: z.array(noteScenario).default([]),
  ...epicTreeFields,
});

/** Top-level fields of this area. */
export const epicFields = {
  epics: z
    .array(epicScenario)
    .default([])
    .describe('paid tiers: group epics (as far as their notes need them)'),
};

/** What this area reads of a scenario. */
export type IssuablesScenario = { projects: ProjectEntry[] } & z.output<z.ZodObject<typeof epicFields>>;

export type ProjectEntry = {
  path: string;
  labels: z.output<typeof labelScenario>[];
  milestones: z.output<typeof milestoneScenario>[];
  issues: z.output<typeof issueScenario>[];
  merge_requests: z.output<typeof mergeRequestScenario>[];
  snippets: z.output<typeof snippetScenario>[];
};

/** Cross-references a scenario's issuables make: users, milestones, duplicate iids. */
export function issuableProblems(
  projects: readonly ProjectEntry[],
  epics: readonly z.output<typeof epicScenario>[],
  usernames: ReadonlySet<string>,
  groups: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  const user = (at: string, name: string | undefined) => {
    if (name !== undefined && !usernames.has(name.toLowerCase())) problems.push(`${at}: no user "${name}"`);
  };
  const awards = (at: string, list: readonly { user: string }[]) =>
    list.forEach((a, k) => user(`${at}.award_emoji[${k}].user`, a.user));
  const notes = (at: string, list: readonly z.output<typeof noteScenario>[]) =>
    list.forEach((n, k) => {
      user(`${at}.notes[${k}].author`, n.author);
      user(`${at}.notes[${k}].resolved_by`, n.resolved_by);
      awards(`${at}.notes[${k}]`, n.award_emoji);
    });
  projects.forEach((p, i) => {
    const at = `projects[${i}]`;
    const titles = new Set<string>();
    p.milestones.forEach((m, j) => {
      if (titles.has(m.title)) problems.push(`${at}.milestones[${j}].title: "${m.title}" is listed twice`);
      titles.add(m.title);
    });
    for (const kind of ['issues', 'merge_requests'] as const) {
      const iids = new Set<number>();
      (p[kind] as (z.output<typeof issueScenario> | z.output<typeof mergeRequestScenario>)[]).forEach(
        (x, j) => {
          const here = `${at}.${kind}[${j}]`;
          if (x.iid !== undefined) {
            if (iids.has(x.iid)) problems.push(`${here}.iid: ${x.iid} is used twice`);
            iids.add(x.iid);
          }
          if ('moved_to' in x && x.moved_to !== undefined && x.iid === undefined)
            problems.push(`${here}.moved_to: needs the issue's iid`);
          user(`${here}.author`, x.author);
          x.assignees.forEach((a, k) => user(`${here}.assignees[${k}]`, a));
          awards(here, x.award_emoji);
          if (x.milestone !== undefined && !titles.has(x.milestone))
            problems.push(`${here}.milestone: no milestone "${x.milestone}" in the project's milestones`);
          notes(here, x.notes);
          if ('closed_by' in x) user(`${here}.closed_by`, x.closed_by);
          if ('reviewers' in x) {
            x.reviewers.forEach((a, k) => user(`${here}.reviewers[${k}]`, a));
            user(`${here}.merged_by`, x.merged_by);
          }
        },
      );
    }
    p.snippets.forEach((s, j) => {
      user(`${at}.snippets[${j}].author`, s.author);
      awards(`${at}.snippets[${j}]`, s.award_emoji);
      notes(`${at}.snippets[${j}]`, s.notes);
    });
  });
  const inEpics = new Set<string>();
  epics.forEach((e, i) => {
    if (!groups.has(e.group.toLowerCase())) problems.push(`epics[${i}].group: no group "${e.group}"`);
    user(`epics[${i}].author`, e.author);
    awards(`epics[${i}]`, e.award_emoji);
    notes(`epics[${i}]`, e.notes);
    e.issues.forEach((ref, k) => {
      const at = `epics[${i}].issues[${k}]`;
      const hash = ref.lastIndexOf('#');
      const path = ref.slice(0, hash).toLowerCase();
      const project = projects.find((p) => p.path.toLowerCase() === path);
      const group = e.group.toLowerCase();
      if (!project || !(path.startsWith(`${group}/`) && path.length > group.length + 1))
        problems.push(`${at}: no project "${ref.slice(0, hash)}" in the epic's group or its subgroups`);
      else if (!project.issues.some((x) => x.iid === Number(ref.slice(hash + 1))))
        problems.push(`${at}: no issue listed with iid ${ref.slice(hash + 1)} in "${project.path}"`);
      if (inEpics.has(ref.toLowerCase())) problems.push(`${at}: "${ref}" is in another epic already`);
      inEpics.add(ref.toLowerCase());
    });
  });
  return problems;
}

/** Builds a project's issuables from its scenario entry (plain mutation on a state being built). */
/** Declared merge requests waiting for their first version (id -> files changed), per build. */
const pending = new WeakMap<object, Map<number, number | undefined>>();

function pendingChanges(st: S): Map<number, number | undefined> {
  let m = pending.get(st);
  if (!m) pending.set(st, (m = new Map()));
  return m;
}

/**
 * Once every project's repository is built: each declared merge request gets its first diff version,
 * and a source branch the repository lacks.
 */
export function realizeDeclaredMergeRequests(st: S): void {
  const m = pending.get(st);
  if (!m) return;
  pending.delete(st);
  for (const [id, files] of m) realizeDeclared(st, id, files);
}

export function buildProjectIssuables(
  st: S,
  projectId: number,
  entry: Omit<ProjectEntry, 'path'>,
  uid: (username: string) => number,
  now: string,
): void {
  const project = tget(st.projects, projectId) as Project;
  const defaultAuthor = project.creator_id;
  const author = (name: string | undefined) => (name === undefined ? defaultAuthor : uid(name));
  for (const l of entry.labels)
    keeping(st, 'labels', st.issuables.labels, l.id, () =>
      createLabel(
        st,
        { project_id: projectId },
        { title: l.name, color: l.color, description: l.description ?? null, priority: l.priority ?? null },
        now,
      ),
    );
  const milestones = new Map<string, number>();
  for (const m of entry.milestones)
    milestones.set(
      m.title,
      keeping(st, 'milestones', st.issuables.milestones, m.id, () =>
        createMilestone(
          st,
          { project_id: projectId },
          {
            title: m.title,
            description: m.description ?? null,
            state: m.state,
            due_date: m.due_date ?? null,
            start_date: m.start_date ?? null,
            created_at: isoOf(m.created_at),
          },
          now,
        ),
      ),
    );
  const addNotes = (
    type: NoteableType,
    id: number,
    list: readonly z.output<typeof noteScenario>[],
    fallbackAuthor: number,
  ) => {
    for (const n of list) {
      const by = n.author === undefined ? fallbackAuthor : uid(n.author);
      const emoji = type === 'Issue' || type === 'MergeRequest' ? awardOnly(n.body) : undefined;
      const at = isoOf(n.created_at) ?? now;
      if (emoji && !n.system) addAward(st, type as AwardableType, id, by, emoji, at);
      else {
        const noteId = keeping(st, 'notes', st.issuables.notes, n.id, () =>
          createNote(
            st,
            {
              noteable_type: type,
              noteable_id: id,
              project_id: projectId,
              author_id: by,
              body: n.body,
              system: n.system,
              confidential: n.confidential,
              created_at: at,
              updated_at: isoOf(n.updated_at),
              ...threadInput(n, uid, at),
            },
            at,
          ),
        );
        buildAwards(st, 'Note', noteId, n.award_emoji, uid, at);
      }
    }
  };
  const awards = (type: AwardableType, id: number, list: readonly AwardEntry[], at: string) =>
    buildAwards(st, type, id, list, uid, at);
  // Explicit iids first, so that the sequence continues after the highest of them.
  const ordered = <T extends { iid?: number }>(list: readonly T[]) => [
    ...list.filter((x) => x.iid !== undefined),
    ...list.filter((x) => x.iid === undefined),
  ];
  for (const i of ordered(entry.issues)) {
    const created = isoOf(i.created_at) ?? now;
    const labelIds = labelIdsFor(st, project, i.labels, true, created);
    const id = keeping(st, 'issues', st.issuables.issues, i.id, () =>
      createIssue(
        st,
        {
          project_id: projectId,
          author_id: author(i.author),
          title: i.title,
          description: i.description ?? null,
          iid: i.iid,
          assignee_ids: i.assignees.map(uid),
          label_ids: labelIds,
          milestone_id: i.milestone === undefined ? null : milestones.get(i.milestone)!,
          confidential: i.confidential,
          discussion_locked: i.discussion_locked ?? null,
          due_date: i.due_date ?? null,
          weight: i.weight ?? null,
          state: i.state,
          created_at: created,
          updated_at: isoOf(i.updated_at),
          closed_at: isoOf(i.closed_at),
          closed_by_id: i.closed_by === undefined ? null : uid(i.closed_by),
        },
        created,
      ),
    );
    const rec = tget(st.issuables.issues, id)!;
    addNotes('Issue', id, i.notes, rec.author_id);
    awards('Issue', id, i.award_emoji, created);
    // Notes and awards made while building must not move the given times.
    rec.updated_at = isoOf(i.updated_at) ?? created;
    rec.time_estimate = i.time_estimate;
    rec.total_time_spent = i.total_time_spent;
    if (i.relative_position !== undefined) {
      rec.relative_position = i.relative_position;
      const meta = tget(st.issuables.projectMeta, projectId)!;
      meta.last_position = Math.max(meta.last_position, i.relative_position);
    }
  }
  for (const m of ordered(entry.merge_requests)) {
    const created = isoOf(m.created_at) ?? now;
    const labelIds = labelIdsFor(st, project, m.labels, true, created);
    const id = keeping(st, 'merge_requests', st.issuables.mergeRequests, m.id, () =>
      createMergeRequest(
        st,
        {
          project_id: projectId,
          author_id: author(m.author),
          title: m.title,
          description: m.description ?? null,
          iid: m.iid,
          source_branch: m.source_branch,
          target_branch: m.target_branch ?? project.default_branch ?? 'master',
          assignee_ids: m.assignees.map(uid),
          reviewer_ids: m.reviewers.map(uid),
          label_ids: labelIds,
          milestone_id: m.milestone === undefined ? null : milestones.get(m.milestone)!,
          state: m.state,
          merge_status: m.merge_status,
          conflicts: m.conflicts,
          squash: m.squash,
          version: false,
          created_at: created,
          updated_at: isoOf(m.updated_at),
          merged_by_id: m.merged_by === undefined ? null : uid(m.merged_by),
          merged_at: isoOf(m.merged_at),
        },
        created,
      ),
    );
    pendingChanges(st).set(id, m.changes);
    const rec = tget(st.issuables.mergeRequests, id)!;
    addNotes('MergeRequest', id, m.notes, rec.author_id);
    awards('MergeRequest', id, m.award_emoji, created);
    rec.updated_at = isoOf(m.updated_at) ?? created;
    rec.time_estimate = m.time_estimate;
    rec.total_time_spent = m.total_time_spent;
    if (m.approvals_before_merge !== undefined) rec.approvals_before_merge = m.approvals_before_merge;
    if (m.context_commits?.length)
      tset((st.issuables.contextCommits ??= emptyTable()), id, {
        merge_request_id: id,
        commits: m.context_commits.map((cm) => ({
          sha: cm.sha,
          message: cm.message,
          author_name: cm.author_name,
          author_email: cm.author_email,
          authored_date: isoOf(cm.authored_date)!,
          committer_name: cm.committer_name,
          committer_email: cm.committer_email,
          committed_date: isoOf(cm.committed_date)!,
        })),
      });
  }
  for (const s of entry.snippets) {
    const by = author(s.author);
    const content = s.content === '' && s.files ? s.files[0]!.content : s.content;
    const created = isoOf(s.created_at) ?? now;
    const id = keeping(st, 'snippets', st.issuables.snippets, s.id, () =>
      createSnippet(st, {
        project_id: projectId,
        author_id: by,
        title: s.title,
        file_name: s.file_name,
        description: s.description ?? null,
        content,
        ...(s.files ? { files: snippetFilesOf(s.files) } : {}),
        visibility: s.visibility,
        created_at: created,
        updated_at: isoOf(s.updated_at) ?? created,
      }),
    );
    awards('Snippet', id, s.award_emoji, created);
    addNotes('Snippet', id, s.notes, by);
  }
}

/** A scenario's snippet files as the repository keeps them: in path order. */
export const snippetFilesOf = (files: readonly { path: string; content: string }[]) =>
  files
    .map((f) => ({ path: f.path, content: f.content }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

/** Builds the scenario's epics. */
/** `moved_to` of issues, once every project's issues exist. */
export function buildIssueMoves(st: S, projects: readonly ProjectEntry[]): void {
  for (const p of projects) {
    const pid = iget(st.idx.projects, p.path.toLowerCase());
    if (pid === undefined) continue;
    for (const i of p.issues) {
      if (i.moved_to === undefined || i.iid === undefined) continue;
      const at = i.moved_to.lastIndexOf('#');
      const target = iget(st.idx.projects, i.moved_to.slice(0, at).toLowerCase());
      const from = issueIdByIid(st, pid, i.iid);
      const to =
        target === undefined ? undefined : issueIdByIid(st, target, Number(i.moved_to.slice(at + 1)));
      if (from !== undefined && to !== undefined) tget(st.issuables.issues, from)!.moved_to_id = to;
    }
  }
}

export function buildEpics(
  st: S,
  epics: readonly z.output<typeof epicScenario>[],
  uid: (username: string) => number,
  now: string,
): void {
  const ids: number[] = [];
  for (const e of epics) {
    const groupId = iget(st.idx.namespaces, e.group.toLowerCase())!;
    const at = isoOf(e.created_at) ?? now;
    const id = keeping(st, 'epics', st.issuables.epics, e.id, () =>
      createEpic(st, {
        group_id: groupId,
        author_id: uid(e.author),
        title: e.title,
        description: e.description ?? null,
        confidential: e.confidential,
        created_at: at,
        updated_at: isoOf(e.updated_at) ?? at,
        state: e.state,
        closed_at: e.state === 'closed' ? (isoOf(e.closed_at) ?? isoOf(e.updated_at) ?? at) : null,
        labels: [...e.labels],
        start_date_is_fixed: e.start_date_is_fixed,
        start_date_fixed: e.start_date_fixed ?? null,
        due_date_is_fixed: e.due_date_is_fixed,
        due_date_fixed: e.due_date_fixed ?? null,
      }),
    );
    ids.push(id);
    buildAwards(st, 'Epic', id, e.award_emoji, uid, at);
    // Each new link goes to the top, so the list is linked from its bottom up.
    for (const ref of [...e.issues].reverse()) {
      const hash = ref.lastIndexOf('#');
      const pid = iget(st.idx.projects, ref.slice(0, hash).toLowerCase());
      const issue = pid === undefined ? undefined : issueIdByIid(st, pid, Number(ref.slice(hash + 1)));
      if (issue !== undefined) linkEpicIssue(st, id, issue, at);
    }
    for (const n of e.notes) {
      const noteAt = isoOf(n.created_at) ?? at;
      const noteId = keeping(st, 'notes', st.issuables.notes, n.id, () =>
        createNote(
          st,
          {
            noteable_type: 'Epic',
            noteable_id: id,
            project_id: null,
            group_id: groupId,
            author_id: n.author === undefined ? uid(e.author) : uid(n.author),
            body: n.body,
            system: n.system,
            confidential: n.confidential,
            created_at: noteAt,
            updated_at: isoOf(n.updated_at),
            ...threadInput(n, uid, noteAt),
          },
          noteAt,
        ),
      );
      buildAwards(st, 'Note', noteId, n.award_emoji, uid, noteAt);
    }
  }
  buildEpicTree(st, epics, ids);
}
