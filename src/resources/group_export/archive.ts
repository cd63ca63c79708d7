/**
 * The group export archive in 13.12's NDJSON layout: `VERSION`, `GITLAB_VERSION`,
 * `tree/groups/_all.ndjson` (the ids of the group and its subgroups, parents first), and per group
 * `tree/groups/<id>.json` (its attributes) and `tree/groups/<id>/<relation>.ndjson` for labels,
 * milestones and members. Members name their user by `{username, email}` so that an import maps them to
 * existing users by e-mail. Projects are not part of a group export.
 */
import type { Draft } from 'immer';
import { ACCESS, VISIBILITY_LEVEL } from '../../core/access.js';
import type { GroupRecord, PlatformState, Visibility } from '../../core/state.js';
import { iget, mget, tget, tvalues } from '../../core/table.js';
import type { Group } from '../groups/model.js';
import { ARCHIVE_VERSION, ArchiveError, GITLAB_VERSION } from '../import_export/archive.js';
import type { ArchiveFiles } from '../import_export/store.js';
import { createLabel, createMilestone } from '../issuables/model.js';
import { createGroup, setMember } from '../projects/model.js';

type Row = Record<string, unknown>;
type S = Draft<PlatformState>;

/** Group attributes written to `<id>.json` (the rest is derived, secret, or instance-specific). */
const ATTRIBUTES = [
  'name',
  'path',
  'description',
  'share_with_group_lock',
  'require_two_factor_authentication',
  'two_factor_grace_period',
  'project_creation_level',
  'subgroup_creation_level',
  'auto_devops_enabled',
  'emails_disabled',
  'mentions_disabled',
  'lfs_enabled',
  'default_branch_protection',
  'request_access_enabled',
] as const;

const LEVEL_OF: Record<number, Visibility> = { 0: 'private', 10: 'internal', 20: 'public' };

/** The group and every group below it, parents first. */
function tree(st: PlatformState, root: number): GroupRecord[] {
  const out: GroupRecord[] = [];
  const visit = (id: number) => {
    const g = tget(st.groups, id);
    if (!g) return;
    out.push(g);
    for (const child of mget(st.idx.subgroups, String(id))) visit(child);
  };
  visit(root);
  return out;
}

const ndjson = (rows: Row[]) => Buffer.from(rows.map((r) => JSON.stringify(r) + '\n').join(''));

/** The archive's files for the group as it is now. */
export function groupArchiveFiles(st: PlatformState, groupId: number): ArchiveFiles {
  const files: ArchiveFiles = new Map();
  const groups = tree(st, groupId);
  files.set('VERSION', Buffer.from(`${ARCHIVE_VERSION}\n`));
  files.set('GITLAB_VERSION', Buffer.from(`${GITLAB_VERSION}\n`));
  files.set('tree/groups/_all.ndjson', Buffer.from(groups.map((g) => `${g.id}\n`).join('')));
  for (const g of groups) {
    const attrs: Row = { id: g.id, parent_id: g.id === groupId ? null : g.parent_id };
    for (const k of ATTRIBUTES) attrs[k] = (g as Group)[k] ?? null;
    attrs.visibility_level = VISIBILITY_LEVEL[g.visibility];
    attrs.created_at = g.created_at;
    attrs.updated_at = g.updated_at;
    files.set(`tree/groups/${g.id}.json`, Buffer.from(JSON.stringify(attrs)));
    const labels = mget(st.issuables.idx.owned, `lg${g.id}`).map((id) => tget(st.issuables.labels, id)!);
    files.set(
      `tree/groups/${g.id}/labels.ndjson`,
      ndjson(
        labels.map((l) => ({
          title: l.title,
          color: l.color,
          description: l.description,
          type: 'GroupLabel',
        })),
      ),
    );
    const milestones = mget(st.issuables.idx.owned, `g${g.id}`).map((id) =>
      tget(st.issuables.milestones, id)!,
    );
    files.set(
      `tree/groups/${g.id}/milestones.ndjson`,
      ndjson(
        milestones.map((m) => ({
          iid: m.iid,
          title: m.title,
          description: m.description,
          state: m.state,
          start_date: m.start_date,
          due_date: m.due_date,
          created_at: m.created_at,
          updated_at: m.updated_at,
        })),
      ),
    );
    const members: Row[] = [];
    for (const m of tvalues(st.members))
      if (m.source === 'group' && m.source_id === g.id) {
        const u = tget(st.users, m.user_id);
        if (u)
          members.push({
            access_level: m.access_level,
            expires_at: m.expires_at,
            user: { username: u.username, email: u.email },
          });
      }
    files.set(`tree/groups/${g.id}/members.ndjson`, ndjson(members));
  }
  return files;
}

const text = (files: ArchiveFiles, name: string) => files.get(name)?.toString('utf8');

function rows(files: ArchiveFiles, name: string): Row[] {
  const body = text(files, name);
  if (body === undefined) return [];
  const out: Row[] = [];
  for (const line of body.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) out.push(v as Row);
    } catch {
      throw new ArchiveError(`${name}: a line is not JSON`);
    }
  }
  return out;
}

/** Bounds on what one import creates. */
const MAX_GROUPS = 1000;
const MAX_ROWS = 10_000;

const str = (v: unknown) => (typeof v === 'string' ? v : null);

/**
 * Restores an archive into the group the import request created (`Groups::ImportExport::ImportService`):
 * the root's description and settings (its name and path are the request's; its visibility at most its
 * parent's), subgroups below it, and each group's labels, milestones and members (existing users found
 * by e-mail; the importer stays owner of the root). Throws ArchiveError for a foreign archive, before
 * anything is written.
 */
export function restoreGroup(
  d: S,
  groupId: number,
  importerId: number,
  files: ArchiveFiles,
  now: string,
): void {
  if (text(files, 'VERSION')?.trim() !== ARCHIVE_VERSION)
    throw new ArchiveError('Import/Export version mismatch');
  const ids = (text(files, 'tree/groups/_all.ndjson') ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^\d+$/.test(l))
    .map(Number)
    .slice(0, MAX_GROUPS);
  if (ids.length === 0) throw new ArchiveError('The group tree is missing');
  const attrsOf = new Map<number, Row>();
  for (const id of ids) {
    const body = text(files, `tree/groups/${id}.json`);
    try {
      const v = body === undefined ? undefined : (JSON.parse(body) as unknown);
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error();
      attrsOf.set(id, v as Row);
    } catch {
      throw new ArchiveError(`tree/groups/${id}.json is missing or not JSON`);
    }
  }
  const mapped = new Map<number, number>([[ids[0]!, groupId]]);
  let budget = MAX_ROWS;
  for (const oldId of ids) {
    const a = attrsOf.get(oldId)!;
    let gid = mapped.get(oldId);
    const parentOld = typeof a.parent_id === 'number' ? a.parent_id : null;
    if (gid === undefined) {
      const parent = parentOld === null ? undefined : mapped.get(parentOld);
      const path = str(a.path);
      if (parent === undefined || !path) continue;
      const parentRec = tget(d.groups, parent)!;
      if (iget(d.idx.namespaces, `${parentRec.full_path}/${path}`.toLowerCase()) !== undefined) continue;
      gid = createGroup(d, { path, name: str(a.name) ?? path, parent_id: parent }, now);
      mapped.set(oldId, gid);
    }
    const g = tget(d.groups, gid) as Draft<Group>;
    if (typeof a.description === 'string') g.description = a.description;
    for (const k of ATTRIBUTES)
      if (k !== 'name' && k !== 'path' && k !== 'description' && a[k] !== undefined && a[k] !== null)
        (g as Record<string, unknown>)[k] = a[k];
    // The root keeps the visibility the request gave it; subgroups take theirs, at most their parent's.
    if (oldId !== ids[0]) {
      const wanted = LEVEL_OF[a.visibility_level as number] ?? g.visibility;
      const cap = tget(d.groups, g.parent_id!)!.visibility;
      g.visibility = VISIBILITY_LEVEL[wanted] <= VISIBILITY_LEVEL[cap] ? wanted : cap;
    }
    for (const l of rows(files, `tree/groups/${oldId}/labels.ndjson`)) {
      if (--budget < 0) break;
      const title = str(l.title);
      if (!title) continue;
      const taken = mget(d.issuables.idx.owned, `lg${gid}`).some(
        (id) => tget(d.issuables.labels, id)!.title === title,
      );
      if (!taken)
        createLabel(
          d,
          { group_id: gid },
          { title, color: str(l.color) ?? undefined, description: str(l.description) },
          now,
        );
    }
    for (const m of rows(files, `tree/groups/${oldId}/milestones.ndjson`)) {
      if (--budget < 0) break;
      const title = str(m.title);
      if (!title) continue;
      const taken = mget(d.issuables.idx.owned, `g${gid}`).some(
        (id) => tget(d.issuables.milestones, id)!.title === title,
      );
      if (!taken)
        createMilestone(
          d,
          { group_id: gid },
          {
            title,
            description: str(m.description),
            state: m.state === 'closed' ? 'closed' : 'active',
            start_date: str(m.start_date),
            due_date: str(m.due_date),
          },
          now,
        );
    }
    for (const m of rows(files, `tree/groups/${oldId}/members.ndjson`)) {
      if (--budget < 0) break;
      const u = m.user as Row | undefined;
      const email = str(u?.email)?.toLowerCase();
      const uid = email ? iget(d.idx.emails, email) : undefined;
      const level = typeof m.access_level === 'number' ? m.access_level : null;
      if (uid === undefined || level === null || ![10, 20, 30, 40, 50].includes(level)) continue;
      // The importer keeps the owner access the creation gave them.
      if (gid === groupId && uid === importerId) continue;
      setMember(d, 'group', gid, uid, Math.min(level, ACCESS.OWNER), now);
    }
  }
}
