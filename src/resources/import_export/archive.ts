/**
 * The export archive: a gzip-compressed tar in the layout the README documents (`VERSION`,
 * `tree/project.json`, one NDJSON file per relation under `tree/project/`, `repository.json` with the
 * refs, and `project.bundle`, the platform's git bundle of the repository). Users are referenced by `{username, email}` so that an
 * import on another instance can map them; labels by title; milestones by title and level.
 *
 * Reading the state (`collect`), writing the archive's files (`archiveFiles`) and reading them back
 * (`parseArchive`) are synchronous, so that background jobs can do them; only the tar framing is
 * asynchronous (tar-stream works on streams), so it happens at the edges: packing when a finished export
 * is first downloaded or uploaded. Unpacking an upload is `unpack.ts`: bounded, in slices, off the
 * request path.
 */
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import type { PipelineRecord, PlatformState, UserRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { projectPipelineIds } from '../ci/model.js';
import { refNames, findRef, refTable } from '../ci/refs.js';
import { chunkIds } from '../issuables/store.js';
import type {
  AwardableType,
  DiffVersionRecord,
  LabelRecord,
  MilestoneRecord,
  NoteRecord,
} from '../issuables/store.js';
import type { Project } from '../projects/model.js';
import { BundleError, projectBundle, readBundle, type Bundle } from '../repository/bundle.js';
import { validRefName } from '../repository/names.js';
import type { ArchiveFiles } from './store.js';

/** `Gitlab::ImportExport::VERSION` of 13.x: an archive with another version is refused. */
export const ARCHIVE_VERSION = '0.2.4';
export const GITLAB_VERSION = '13.12.0';

type Row = Record<string, unknown>;

/** The parsed content of an archive: the same shape `collect` produces. */
export interface ArchiveContent {
  project: Row;
  relations: Record<Relation, Row[]>;
  /** Branches and tags with their shas (the default branch included). */
  repository: ArchiveRepository;
}

export interface ArchiveRepository {
  /** Branch and tag names with the commits they are at (tags peeled). */
  branches: Record<string, string>;
  tags: Record<string, string>;
  /** `project.bundle`: a git bundle of every ref and the objects they reach (none for an empty repository). */
  bundle?: Buffer;
  /** The bundle read back (an import): its refs and objects. */
  git?: Bundle;
}

/**
 * Project fields left out of `tree/project.json`: the platform's `excluded_attributes` of a project
 * (name, path, namespace, creator, import state, tokens, mirror settings, timestamps, counters, tags,
 * storage, LFS, packages, e-mails, deletion marks), and what fauxlab derives (fork, counts, owner).
 */
export const NOT_EXPORTED: ReadonlySet<string> = new Set([
  'id',
  'name',
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
  'avatar_url',
  'mirror',
  'mirror_user_id',
  'mirror_trigger_builds',
  'only_mirror_protected_branches',
  'mirror_overwrites_diverged_branches',
  'repository_storage',
  'lfs_enabled',
  'packages_enabled',
  'emails_disabled',
  'tag_list',
  'star_count',
  'forks_count',
  'open_issues_count',
  'forked_from_project_id',
  'marked_for_deletion_on',
]);

/** The relation files, in the order an import restores them (labels and milestones before their users). */
export const RELATIONS = [
  'labels',
  'milestones',
  'project_members',
  'issues',
  'merge_requests',
  'snippets',
  'ci_pipelines',
] as const;
export type Relation = (typeof RELATIONS)[number];

export interface UserRef {
  username: string;
  email: string;
}

const userRef = (st: PlatformState, id: number | null): UserRef | null => {
  const u = id === null ? undefined : (tget(st.users, id) as UserRecord | undefined);
  return u ? { username: u.username, email: u.email } : null;
};

const byId = (a: number, b: number) => a - b;

/** Reads everything the archive carries from the state, as plain JSON. */
export function collect(st: PlatformState, project: Project, description: string | null): ArchiveContent {
  const pid = project.id;
  const attrs: Row = {};
  for (const [k, v] of Object.entries(project)) if (!NOT_EXPORTED.has(k)) attrs[k] = v;
  if (description !== null) attrs.description = description;
  // The platform stores the policy's next run (a day after the project's creation unless set); fauxlab
  // derives it when unset, which would move it to the imported project's creation.
  const policy = project.container_expiration_policy;
  if (policy.next_run_at === null)
    attrs.container_expiration_policy = {
      ...policy,
      next_run_at: new Date(Date.parse(project.created_at) + 86_400_000).toISOString(),
    };

  const users = (ids: readonly number[]) => ids.map((id) => userRef(st, id)).filter((u) => u !== null);
  const awards = (type: AwardableType, id: number) =>
    mget(st.issuables.idx.awards, `${type}:${id}`)
      .sort(byId)
      .map((a) => tget(st.issuables.awards, a)!)
      .map((a) => ({
        name: a.name,
        user: userRef(st, a.user_id),
        created_at: a.created_at,
        updated_at: a.updated_at,
      }));
  const noteRows = (list: readonly NoteRecord[]) =>
    list.map((n) => ({
      author: userRef(st, n.author_id),
      body: n.body,
      system: n.system,
      confidential: n.confidential,
      created_at: n.created_at,
      updated_at: n.updated_at,
      award_emoji: awards('Note', n.id),
    }));
  const notes = (type: string, id: number) =>
    noteRows(
      mget(st.issuables.idx.notes, `${type}:${id}`)
        .sort(byId)
        .map((n) => tget(st.issuables.notes, n) as NoteRecord),
    );
  // `Ci::Pipeline#notes`: the notes on the pipeline's commit go with each pipeline of that commit.
  const commitNotes = (sha: string) =>
    noteRows(
      mget(st.issuables.idx.notes, `Commit:${pid}`)
        .sort(byId)
        .map((n) => tget(st.issuables.notes, n) as NoteRecord)
        .filter((n) => n.commit_id === sha),
    );

  // Group labels and milestones go with the project as far as its issues and merge requests use them
  // (the platform exports them nested in each issuable; here once each, flagged `group`).
  const labelIds = new Set<number>(mget(st.issuables.idx.owned, `lp${pid}`));
  const milestoneIds = new Set<number>(mget(st.issuables.idx.owned, `p${pid}`));
  const meta = tget(st.issuables.projectMeta, pid);
  const issues = (meta ? chunkIds(st.issuables.idx.byProject, 'i', pid, meta.issue_iid) : [])
    .map((id) => tget(st.issuables.issues, id)!)
    .sort((a, b) => a.iid - b.iid);
  const mrs = (meta ? chunkIds(st.issuables.idx.byProject, 'm', pid, meta.mr_iid) : [])
    .map((id) => tget(st.issuables.mergeRequests, id)!)
    .filter((m) => m.source_project_id === pid)
    .sort((a, b) => a.iid - b.iid);
  for (const r of [...issues, ...mrs]) {
    for (const l of r.label_ids) labelIds.add(l);
    if (r.milestone_id !== null) milestoneIds.add(r.milestone_id);
  }
  const labelTitles = (ids: readonly number[]) =>
    ids.map((id) => tget(st.issuables.labels, id)?.title).filter((t) => t !== undefined);
  const milestoneRef = (id: number | null) => {
    const m = id === null ? undefined : tget(st.issuables.milestones, id);
    return m ? { title: m.title, group: m.group_id !== null } : null;
  };
  const labels = [...labelIds]
    .sort(byId)
    .map((id) => tget(st.issuables.labels, id) as LabelRecord | undefined)
    .filter((l) => l !== undefined)
    // Project labels first: group labels are looked up (or made) after them.
    .sort((a, b) => Number(a.group_id !== null) - Number(b.group_id !== null));
  const milestones = [...milestoneIds]
    .map((id) => tget(st.issuables.milestones, id) as MilestoneRecord | undefined)
    .filter((m) => m !== undefined)
    .sort((a, b) => Number(a.group_id !== null) - Number(b.group_id !== null) || a.iid - b.iid);
  const diffs = (mrId: number) =>
    mget(st.issuables.idx.diffs, String(mrId))
      .sort(byId)
      .map((d) => tget(st.issuables.diffs, d) as DiffVersionRecord)
      .map(({ id: _id, merge_request_id: _mr, ...rest }) => rest);

  const relations: ArchiveContent['relations'] = {
    labels: labels.map((l) => ({
      title: l.title,
      group: l.group_id !== null,
      color: l.color,
      description: l.description,
      priority: l.priority,
      created_at: l.created_at,
    })),
    milestones: milestones.map((m) => ({
      iid: m.iid,
      title: m.title,
      group: m.group_id !== null,
      description: m.description,
      state: m.state,
      due_date: m.due_date,
      start_date: m.start_date,
      created_at: m.created_at,
      updated_at: m.updated_at,
    })),
    project_members: mget(st.idx.membersBySource, `project:${pid}`)
      .sort(byId)
      .map((id) => tget(st.members, id)!)
      .map((m) => ({
        user: userRef(st, m.user_id),
        access_level: m.access_level,
        expires_at: m.expires_at,
        created_at: m.created_at,
      })),
    issues: issues.map((i) => ({
      iid: i.iid,
      title: i.title,
      description: i.description,
      state: i.state,
      author: userRef(st, i.author_id),
      assignees: users(i.assignee_ids),
      labels: labelTitles(i.label_ids),
      milestone: milestoneRef(i.milestone_id),
      confidential: i.confidential,
      discussion_locked: i.discussion_locked,
      due_date: i.due_date,
      weight: i.weight,
      issue_type: i.issue_type,
      health_status: i.health_status,
      relative_position: i.relative_position,
      time_estimate: i.time_estimate,
      total_time_spent: i.total_time_spent,
      closed_at: i.closed_at,
      closed_by: userRef(st, i.closed_by_id),
      created_at: i.created_at,
      updated_at: i.updated_at,
      award_emoji: awards('Issue', i.id),
      notes: notes('Issue', i.id),
    })),
    merge_requests: mrs.map((m) => ({
      iid: m.iid,
      title: m.title,
      description: m.description,
      state: m.state,
      source_branch: m.source_branch,
      target_branch: m.target_branch,
      author: userRef(st, m.author_id),
      assignees: users(m.assignee_ids),
      reviewers: users(m.reviewer_ids),
      labels: labelTitles(m.label_ids),
      milestone: milestoneRef(m.milestone_id),
      merge_status: m.merge_status,
      merge_check_due_at: m.merge_check_due_at,
      conflicts: m.conflicts,
      merge_when_pipeline_succeeds: m.merge_when_pipeline_succeeds,
      merge_commit_sha: m.merge_commit_sha,
      squash_commit_sha: m.squash_commit_sha,
      squash: m.squash,
      force_remove_source_branch: m.force_remove_source_branch,
      should_remove_source_branch: m.should_remove_source_branch,
      allow_collaboration: m.allow_collaboration,
      merge_error: m.merge_error,
      discussion_locked: m.discussion_locked,
      approvals_before_merge: m.approvals_before_merge,
      time_estimate: m.time_estimate,
      total_time_spent: m.total_time_spent,
      merged_by: userRef(st, m.merged_by_id),
      merged_at: m.merged_at,
      closed_by: userRef(st, m.closed_by_id),
      closed_at: m.closed_at,
      created_at: m.created_at,
      updated_at: m.updated_at,
      merge_request_diffs: diffs(m.id),
      award_emoji: awards('MergeRequest', m.id),
      notes: notes('MergeRequest', m.id),
    })),
    snippets: mget(st.issuables.idx.owned, `sp${pid}`)
      .sort(byId)
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
        award_emoji: awards('Snippet', s.id),
        notes: notes('Snippet', s.id),
      })),
    // CI/CD variables are not exported: the platform leaves them out (with triggers, webhooks and any
    // encrypted token), so an imported project has none.
    ci_pipelines: projectPipelineIds(st, pid)
      .map((id) => tget(st.pipelines, id) as PipelineRecord)
      .map(({ id: _id, project_id: _p, user_id, ...rest }) => ({
        ...rest,
        user: userRef(st, user_id),
        notes: commitNotes(rest.sha),
      })),
  };
  const repository: ArchiveContent['repository'] = { branches: refTable(), tags: refTable() };
  for (const kind of ['branch', 'tag'] as const)
    for (const name of refNames(st, project, kind))
      (kind === 'branch' ? repository.branches : repository.tags)[name] = findRef(st, project, kind, name)!;
  const bundle = projectBundle(st, project);
  if (bundle) repository.bundle = bundle;
  return { project: attrs, relations, repository };
}

/** The archive's files, in the order they are packed. */
export function archiveFiles(content: ArchiveContent): ArchiveFiles {
  const files: ArchiveFiles = new Map();
  files.set('VERSION', Buffer.from(`${ARCHIVE_VERSION}\n`));
  files.set('GITLAB_VERSION', Buffer.from(`${GITLAB_VERSION}\n`));
  files.set('tree/project.json', Buffer.from(JSON.stringify(content.project)));
  for (const name of RELATIONS)
    files.set(
      `tree/project/${name}.ndjson`,
      Buffer.from(content.relations[name].map((r) => JSON.stringify(r) + '\n').join('')),
    );
  const { branches, tags, bundle } = content.repository;
  files.set('repository.json', Buffer.from(JSON.stringify({ branches, tags })));
  if (bundle) files.set('project.bundle', bundle);
  return files;
}

/** tar-stream and its streams, loaded on the first export or import: a tenth of start-up otherwise. */
const tar = () => createRequire(import.meta.url)('tar-stream') as typeof import('tar-stream');

/** Packs files into a tar.gz; the same files give the same bytes. */
export async function packArchive(files: ArchiveFiles): Promise<Buffer> {
  const p = tar().pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    p.on('data', (c: unknown) => chunks.push(c as Buffer));
    p.on('end', resolve);
    p.on('error', reject);
  });
  const mtime = new Date(0);
  for (const [name, body] of files) p.entry({ name, mtime, mode: 0o644 }, body);
  p.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

/** Why an archive cannot be imported: becomes the import's `import_error`. */
export class ArchiveError extends Error {}

const isObject = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks an unpacked archive and reads its content; throws ArchiveError for anything foreign. */
export function parseArchive(files: ArchiveFiles): ArchiveContent {
  const text = (name: string) => files.get(name)?.toString('utf8');
  const version = text('VERSION');
  if (version === undefined) throw new ArchiveError('Invalid archive: the VERSION file is missing');
  if (version.trim() !== ARCHIVE_VERSION)
    throw new ArchiveError(`Import version mismatch: Required ${ARCHIVE_VERSION} but was ${version.trim()}`);
  const json = (name: string): unknown => {
    const t = text(name);
    if (t === undefined) throw new ArchiveError(`Invalid archive: ${name} is missing`);
    try {
      return JSON.parse(t);
    } catch {
      throw new ArchiveError(`Invalid archive: ${name} is not valid JSON`);
    }
  };
  const project = json('tree/project.json');
  if (!isObject(project)) throw new ArchiveError('Invalid archive: tree/project.json is not an object');
  const relations = {} as ArchiveContent['relations'];
  for (const name of RELATIONS) {
    const file = `tree/project/${name}.ndjson`;
    const rows: Row[] = [];
    for (const [n, line] of (text(file) ?? '').split('\n').entries()) {
      if (line.trim() === '') continue;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch {
        throw new ArchiveError(`Invalid archive: line ${n + 1} of ${file} is not valid JSON`);
      }
      if (!isObject(row))
        throw new ArchiveError(`Invalid archive: line ${n + 1} of ${file} is not an object`);
      rows.push(row);
    }
    relations[name] = rows;
  }
  const repository: ArchiveContent['repository'] = { branches: {}, tags: {} };
  if (files.has('repository.json')) {
    const repo = json('repository.json');
    const refs = (v: unknown) =>
      Object.fromEntries(
        Object.entries(isObject(v) ? v : {}).filter(
          (e): e is [string, string] => typeof e[1] === 'string' && /^[0-9a-f]{40}$/.test(e[1]),
        ),
      );
    if (isObject(repo)) {
      repository.branches = refs(repo.branches);
      repository.tags = refs(repo.tags);
    }
  }
  const bundle = files.get('project.bundle');
  if (bundle !== undefined) {
    try {
      repository.git = readBundle(bundle);
    } catch (e) {
      if (!(e instanceof BundleError)) throw e;
      throw new ArchiveError(`Invalid archive: project.bundle: ${e.message}`);
    }
    for (const r of repository.git.refs) {
      const name = r.name.replace(/^refs\/(heads|tags)\//, '');
      if (r.name !== 'HEAD' && name !== r.name && !validRefName(name))
        throw new ArchiveError(
          `Invalid archive: project.bundle names an invalid ref ${JSON.stringify(r.name)}`,
        );
    }
    repository.bundle = bundle;
  }
  return { project, relations, repository };
}
