/**
 * The export archive: a gzip-compressed tar in the layout the README documents (`VERSION`, then
 * `tree/project.json` and one NDJSON file per relation under `tree/project/`). Users are referenced by
 * `{username, email}` so that an import on another instance can map them.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { extract, pack } from 'tar-stream';
import type { PlatformState, PipelineRecord, UserRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { projectVariables, projectPipelineIds } from '../ci/model.js';
import type { Project } from '../projects/model.js';
import { chunkIds } from '../issuables/store.js';
import type { NoteRecord } from '../issuables/store.js';

export const ARCHIVE_VERSION = '0.2.4';
export const GITLAB_VERSION = '13.12.0';

export interface UserRef {
  username: string;
  email: string;
}

export interface ArchiveNote {
  author: UserRef | null;
  body: string;
  system: boolean;
  confidential: boolean;
  created_at: string;
  updated_at: string;
}

/** The parsed content of an archive: the same shape `collect` produces. */
export interface ArchiveContent {
  project: Record<string, unknown>;
  relations: Record<string, Record<string, unknown>[]>;
}

/** Project fields that identify or count, not configure: left out of `tree/project.json`. */
const NOT_EXPORTED = new Set([
  'id',
  'path',
  'namespace_kind',
  'namespace_id',
  'owner_id',
  'path_with_namespace',
  'creator_id',
  'created_at',
  'updated_at',
  'last_activity_at',
  'runners_token',
  'import_status',
  'import_error',
  'import_url',
  'star_count',
  'forks_count',
  'open_issues_count',
  'forked_from_project_id',
  'marked_for_deletion_on',
  'mirror_user_id',
  'avatar_url',
]);

export const RELATIONS = [
  'labels',
  'milestones',
  'issues',
  'merge_requests',
  'snippets',
  'ci_variables',
  'ci_pipelines',
] as const;

const userRef = (st: PlatformState, id: number | null): UserRef | null => {
  const u = id === null ? undefined : (tget(st.users, id) as UserRecord | undefined);
  return u ? { username: u.username, email: u.email } : null;
};

function notesOf(st: PlatformState, type: string, id: number): ArchiveNote[] {
  return mget(st.issuables.idx.notes, `${type}:${id}`)
    .sort((a, b) => a - b)
    .map((n) => tget(st.issuables.notes, n) as NoteRecord)
    .map((n) => ({
      author: userRef(st, n.author_id),
      body: n.body,
      system: n.system,
      confidential: n.confidential,
      created_at: n.created_at,
      updated_at: n.updated_at,
    }));
}

/** Reads everything the archive carries from the state, as plain JSON. */
export function collect(
  st: PlatformState,
  project: Project,
  description: string | undefined,
): ArchiveContent {
  const attrs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(project)) if (!NOT_EXPORTED.has(k)) attrs[k] = v;
  if (description !== undefined) attrs.description = description;
  const pid = project.id;
  const labelTitle = (id: number) => tget(st.issuables.labels, id)?.title;
  const milestoneTitle = (id: number | null) =>
    id === null ? null : (tget(st.issuables.milestones, id)?.title ?? null);
  const users = (ids: readonly number[]) => ids.map((id) => userRef(st, id)).filter((u) => u !== null);
  const meta = tget(st.issuables.projectMeta, pid);
  const issues = meta ? chunkIds(st.issuables.idx.byProject, 'i', pid, meta.issue_iid) : [];
  const mrs = meta ? chunkIds(st.issuables.idx.byProject, 'm', pid, meta.mr_iid) : [];
  const byIid = <T extends { iid: number }>(a: T, b: T) => a.iid - b.iid;
  const relations: ArchiveContent['relations'] = {
    labels: mget(st.issuables.idx.owned, `lp${pid}`)
      .sort((a, b) => a - b)
      .map((id) => tget(st.issuables.labels, id)!)
      .map((l) => ({
        title: l.title,
        color: l.color,
        description: l.description,
        priority: l.priority,
        created_at: l.created_at,
      })),
    milestones: mget(st.issuables.idx.owned, `p${pid}`)
      .map((id) => tget(st.issuables.milestones, id)!)
      .sort(byIid)
      .map((m) => ({
        iid: m.iid,
        title: m.title,
        description: m.description,
        state: m.state,
        due_date: m.due_date,
        start_date: m.start_date,
        created_at: m.created_at,
        updated_at: m.updated_at,
      })),
    issues: issues
      .map((id) => tget(st.issuables.issues, id)!)
      .sort(byIid)
      .map((i) => ({
        iid: i.iid,
        title: i.title,
        description: i.description,
        state: i.state,
        author: userRef(st, i.author_id),
        assignees: users(i.assignee_ids),
        labels: i.label_ids.map(labelTitle).filter((t) => t !== undefined),
        milestone: milestoneTitle(i.milestone_id),
        confidential: i.confidential,
        discussion_locked: i.discussion_locked,
        due_date: i.due_date,
        weight: i.weight,
        issue_type: i.issue_type,
        closed_at: i.closed_at,
        closed_by: userRef(st, i.closed_by_id),
        created_at: i.created_at,
        updated_at: i.updated_at,
        notes: notesOf(st, 'Issue', i.id),
      })),
    merge_requests: mrs
      .map((id) => tget(st.issuables.mergeRequests, id)!)
      .filter((m) => m.source_project_id === pid)
      .sort(byIid)
      .map((m) => ({
        iid: m.iid,
        title: m.title,
        description: m.description,
        state: m.state,
        source_branch: m.source_branch,
        target_branch: m.target_branch,
        author: userRef(st, m.author_id),
        assignees: users(m.assignee_ids),
        reviewers: users(m.reviewer_ids),
        labels: m.label_ids.map(labelTitle).filter((t) => t !== undefined),
        milestone: milestoneTitle(m.milestone_id),
        merge_status: m.merge_status,
        // The diff's file count (fauxlab generates diffs; their SHAs are not carried).
        changes: tget(st.issuables.diffs, m.diff_id)?.files.length ?? null,
        conflicts: m.conflicts,
        squash: m.squash,
        force_remove_source_branch: m.force_remove_source_branch,
        allow_collaboration: m.allow_collaboration,
        merged_by: userRef(st, m.merged_by_id),
        merged_at: m.merged_at,
        closed_by: userRef(st, m.closed_by_id),
        closed_at: m.closed_at,
        created_at: m.created_at,
        updated_at: m.updated_at,
        notes: notesOf(st, 'MergeRequest', m.id),
      })),
    snippets: mget(st.issuables.idx.owned, `sp${pid}`)
      .sort((a, b) => a - b)
      .map((id) => tget(st.issuables.snippets, id)!)
      .map((s) => ({
        title: s.title,
        file_name: s.file_name,
        description: s.description,
        content: s.content,
        visibility: s.visibility,
        author: userRef(st, s.author_id),
        created_at: s.created_at,
        updated_at: s.updated_at,
        notes: notesOf(st, 'Snippet', s.id),
      })),
    // Values included: fauxlab has no secrets to protect, and a round trip keeps the variables usable.
    ci_variables: projectVariables(st, pid).map((v) => ({
      key: v.key,
      value: v.value,
      variable_type: v.variable_type,
      protected: v.protected,
      masked: v.masked,
      environment_scope: v.environment_scope,
    })),
    ci_pipelines: projectPipelineIds(st, pid)
      .map((id) => tget(st.pipelines, id) as PipelineRecord)
      .map(({ id: _id, project_id: _p, user_id, ...rest }) => ({ ...rest, user: userRef(st, user_id) })),
  };
  return { project: attrs, relations };
}

/** Packs the content into a tar.gz. */
export async function buildArchive(content: ArchiveContent): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    p.on('data', (c: unknown) => chunks.push(c as Buffer));
    p.on('end', resolve);
    p.on('error', reject);
  });
  // A fixed mtime: the same content gives the same bytes.
  const mtime = new Date(0);
  const add = (name: string, text: string) => p.entry({ name, mtime, mode: 0o644 }, text);
  add('VERSION', `${ARCHIVE_VERSION}\n`);
  add('GITLAB_VERSION', `${GITLAB_VERSION}\n`);
  add('tree/project.json', JSON.stringify(content.project));
  for (const name of RELATIONS) {
    const rows = content.relations[name] ?? [];
    add(`tree/project/${name}.ndjson`, rows.map((r) => JSON.stringify(r) + '\n').join(''));
  }
  p.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

/** Why an archive cannot be imported: becomes the import's `import_error`. */
export class ArchiveError extends Error {}

/** Unpacks and checks an archive; throws ArchiveError for anything corrupt or foreign. */
export async function readArchive(bytes: Buffer): Promise<ArchiveContent> {
  let tarBytes: Buffer;
  try {
    tarBytes = gunzipSync(bytes);
  } catch {
    throw new ArchiveError('Unable to decompress the archive: it is not a gzip-compressed file');
  }
  const files = new Map<string, string>();
  try {
    const x = extract();
    const done = new Promise<void>((resolve, reject) => {
      x.on('entry', (header, stream, next) => {
        const parts: Buffer[] = [];
        stream.on('data', (c: unknown) => parts.push(c as Buffer));
        stream.on('end', () => {
          if (header.type === 'file')
            files.set(header.name.replace(/^\.\//, ''), Buffer.concat(parts).toString('utf8'));
          next();
        });
        stream.resume();
      });
      x.on('finish', resolve);
      x.on('error', reject);
    });
    x.end(tarBytes);
    await done;
  } catch {
    throw new ArchiveError('Unable to extract the archive: it is not a tar file');
  }
  const version = files.get('VERSION');
  if (version === undefined) throw new ArchiveError('Invalid archive: the VERSION file is missing');
  if (version.trim() !== ARCHIVE_VERSION)
    throw new ArchiveError(`Import version mismatch: Required ${ARCHIVE_VERSION} but was ${version.trim()}`);
  const projectJson = files.get('tree/project.json');
  if (projectJson === undefined) throw new ArchiveError('Invalid archive: tree/project.json is missing');
  let project: unknown;
  try {
    project = JSON.parse(projectJson);
  } catch {
    throw new ArchiveError('Invalid archive: tree/project.json is not valid JSON');
  }
  if (typeof project !== 'object' || project === null || Array.isArray(project))
    throw new ArchiveError('Invalid archive: tree/project.json is not an object');
  const relations: ArchiveContent['relations'] = {};
  for (const name of RELATIONS) {
    const text = files.get(`tree/project/${name}.ndjson`) ?? '';
    const rows: Record<string, unknown>[] = [];
    for (const [n, line] of text.split('\n').entries()) {
      if (line.trim() === '') continue;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch {
        throw new ArchiveError(
          `Invalid archive: line ${n + 1} of tree/project/${name}.ndjson is not valid JSON`,
        );
      }
      if (typeof row !== 'object' || row === null || Array.isArray(row))
        throw new ArchiveError(
          `Invalid archive: line ${n + 1} of tree/project/${name}.ndjson is not an object`,
        );
      rows.push(row as Record<string, unknown>);
    }
    relations[name] = rows;
  }
  return { project: project as Record<string, unknown>, relations };
}
