/** `Entities::Release` and its parts, per viewer: code-reading fields only for who may download code. */
import { createHash } from 'node:crypto';
import { state, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { issuableRenderer } from '../issuables/entities.js';
import type { Project } from '../projects/model.js';
import { commitEntity } from '../repository/entities.js';
import type { ReleaseLinkRecord, ReleaseRecord } from './store.js';

/** What a viewer may see of a project's releases. */
export interface Sight {
  downloadCode: boolean;
  readMilestone: boolean;
  updateRelease: boolean;
}

const web = (c: Ctx, p: Project) => `${requestBase(c)}/${p.path_with_namespace}`;
const escTag = (tag: string) => encodeURIComponent(tag);

/** `Entities::Releases::Link`. */
export function linkEntity(c: Ctx, p: Project, r: ReleaseRecord, l: ReleaseLinkRecord) {
  return {
    id: l.id,
    name: l.name,
    url: l.url,
    direct_asset_url: l.filepath ? `${web(c, p)}/-/releases/${escTag(r.tag)}/downloads${l.filepath}` : l.url,
    external: !l.url.startsWith(web(c, p)),
    link_type: l.link_type,
  };
}

/** `Release#upcoming_release?`: released later than now, on the instance clock. */
export const upcoming = (c: Ctx, r: ReleaseRecord) => Date.parse(r.released_at) > c.get('fx').clock.ms();

/**
 * The release's evidence, collected when it is released (at once, or at `released_at` for an upcoming
 * one); a historical release (released before it was created) gets none.
 */
function evidences(c: Ctx, p: Project, r: ReleaseRecord) {
  if (Date.parse(r.released_at) < Date.parse(r.created_at) || upcoming(c, r)) return [];
  const collected = r.released_at > r.created_at ? r.released_at : r.created_at;
  return [
    {
      sha: evidenceSha(r),
      filepath: `${web(c, p)}/-/releases/${escTag(r.tag)}/evidences/${r.id}.json`,
      collected_at: collected,
    },
  ];
}

/** The evidence summary's SHA-256 (the platform's `summary_sha`), stable for the release's facts. */
const evidenceSha = (r: ReleaseRecord) =>
  createHash('sha256')
    .update(`${r.project_id}\0${r.tag}\0${r.sha}\0${r.released_at}\0${r.description}`)
    .digest('hex');

/** `html`: the description rendered (`include_html_description`), or undefined to leave it out. */
export function releaseEntity(c: Ctx, p: Project, r: ReleaseRecord, see: Sight, html?: string) {
  const st = state(c);
  const render = issuableRenderer(c);
  const out: Record<string, unknown> = { name: r.name ?? r.tag };
  if (see.downloadCode) out.tag_name = r.tag;
  out.description = r.description;
  if (html !== undefined) out.description_html = html;
  out.created_at = r.created_at;
  out.released_at = r.released_at;
  if (r.author_id !== null && tget(st.users, r.author_id)) out.author = render.user(r.author_id);
  if (see.downloadCode) out.commit = commitEntity(c, p, r.sha);
  out.upcoming_release = upcoming(c, r);
  if (r.milestone_ids.length && see.readMilestone) {
    const ms = r.milestone_ids.flatMap((id) => {
      const m = tget(st.issuables.milestones, id);
      return m ? [m] : [];
    });
    // `order_by_dates_and_title`: due date, then start date, then title.
    ms.sort(
      (a, b) =>
        cmp(a.due_date, b.due_date) ||
        cmp(a.start_date, b.start_date) ||
        (a.title < b.title ? -1 : a.title > b.title ? 1 : 0),
    );
    const stats = milestoneStats(st);
    out.milestones = ms.map((m) => {
      const n = stats.get(m.id);
      return {
        ...(render.milestone(m) as object),
        issue_stats: { total: n?.total ?? 0, closed: n?.closed ?? 0 },
      };
    });
  }
  if (see.downloadCode) {
    out.commit_path = `/${p.path_with_namespace}/-/commit/${r.sha}`;
    out.tag_path = `/${p.path_with_namespace}/-/tags/${escTag(r.tag)}`;
  }
  const sources = ['zip', 'tar.gz', 'tar.bz2', 'tar'].map((format) => ({
    format,
    url: `${web(c, p)}/-/archive/${escTag(r.tag)}/${p.path}-${r.tag}.${format}`,
  }));
  const links = [...r.links].sort((a, b) =>
    a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : b.id - a.id,
  );
  const assets: Record<string, unknown> = { count: r.links.length + sources.length };
  if (see.downloadCode) assets.sources = sources;
  assets.links = links.map((l) => linkEntity(c, p, r, l));
  out.assets = assets;
  if (see.downloadCode) out.evidences = evidences(c, p, r);
  const self = `${web(c, p)}/-/releases/${escTag(r.tag)}`;
  out._links = see.updateRelease ? { self, edit_url: `${self}/edit` } : { self };
  return out;
}

// The issues table is replaced on every write that touches an issue: counts made once per table.
const statsOf = new WeakMap<object, Map<number, { total: number; closed: number }>>();

/** `MilestoneWithStats`' issue counts of every milestone, counted in one pass over the issues. */
function milestoneStats(st: PlatformState): Map<number, { total: number; closed: number }> {
  let stats = statsOf.get(st.issuables.issues);
  if (!stats) {
    stats = new Map();
    for (const i of tvalues(st.issuables.issues)) {
      if (i.milestone_id === null) continue;
      const n = stats.get(i.milestone_id) ?? { total: 0, closed: 0 };
      n.total++;
      if (i.state === 'closed') n.closed++;
      stats.set(i.milestone_id, n);
    }
    statsOf.set(st.issuables.issues, stats);
  }
  return stats;
}

/** Nulls last, as the database orders ascending dates. */
const cmp = (a: string | null, b: string | null) =>
  a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;
