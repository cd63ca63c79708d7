/**
 * Time tracking of issues and merge requests (`TimeTrackingEndpoints`): set or reset the estimate, add
 * (or subtract) and reset spent time, and read the stats. Durations are read as `Gitlab::TimeTrackingFormatter`
 * reads them (`1h 30m`, `1w 2d`; 8-hour days, 5-day weeks, 4-week months; a bare number is hours) and
 * each change leaves the platform's system note.
 */
import type { Draft } from 'immer';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, validationError } from '../../core/errors.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { tget } from '../../core/table.js';
import { abilities } from './access.js';
import { findIssue, findMergeRequest, loadProject } from './common.js';
import { humanTime, issuableRenderer } from './entities.js';
import { issuableDraft, projectMeta, systemNote } from './model.js';
import type { IssueRecord, MergeRequestRecord } from './store.js';

type Kind = 'issues' | 'merge_requests';
type Rec = IssueRecord | MergeRequestRecord;

const HOUR = 3600;
const UNITS: [RegExp, number][] = [
  [/^(s|secs?|seconds?)$/, 1],
  [/^(m|mins?|minutes?)$/, 60],
  [/^(h|hrs?|hours?)$/, HOUR],
  [/^(d|days?)$/, 8 * HOUR],
  [/^(w|wks?|weeks?)$/, 5 * 8 * HOUR],
  [/^(mo|mos|months?)$/, 4 * 5 * 8 * HOUR],
  [/^(y|yrs?|years?)$/, 12 * 4 * 5 * 8 * HOUR],
];

/** Longest duration text read: anything longer is no duration. */
const MAX_DURATION_TEXT = 256;

/**
 * `Gitlab::TimeTrackingFormatter.parse`: numbers with their units (words it does not know drop out, a
 * number without a unit is hours), a leading `-` for a negative duration; null when there is no number.
 */
export function parseDuration(raw: string): number | null {
  if (raw.length > MAX_DURATION_TEXT) return null;
  const text = raw.trim().toLowerCase();
  const negative = text.startsWith('-');
  let total = 0;
  let found = false;
  for (const m of text.replace(/^-/, '').matchAll(/(\d+(?:\.\d+)?)\s*([a-z]*)/g)) {
    found = true;
    const unit = UNITS.find(([re]) => re.test(m[2]!))?.[1] ?? HOUR;
    total += Number(m[1]) * unit;
  }
  if (!found) return null;
  const seconds = Math.trunc(total);
  return negative ? -seconds : seconds;
}

const IID = {
  issues: { issue_iid: p.int().required() },
  merge_requests: { merge_request_iid: p.int().required() },
};

/** `find_project_issue` / `find_project_merge_request`, then `admin_issue` / `admin_merge_request`. */
function load(c: Ctx, kind: Kind, admin: boolean): { rec: Rec; type: 'Issue' | 'MergeRequest' } {
  const iid =
    kind === 'issues' ? parse(c, IID.issues).issue_iid : parse(c, IID.merge_requests).merge_request_iid;
  const project = loadProject(c);
  const rec = kind === 'issues' ? findIssue(c, project, iid) : findMergeRequest(c, project, iid);
  if (admin) {
    const a = abilities(state(c), c.get('viewer').user, project);
    if (!(kind === 'issues' ? a.adminIssue : a.developer)) throw forbidden();
  }
  return { rec, type: kind === 'issues' ? 'Issue' : 'MergeRequest' };
}

/** `Entities::IssuableTimeStats` of the record as it now stands. */
function stats(c: Ctx, type: 'Issue' | 'MergeRequest', id: number, status: 200 | 201): Response {
  const st = state(c);
  const rec = type === 'Issue' ? tget(st.issuables.issues, id) : tget(st.issuables.mergeRequests, id);
  return c.json(issuableRenderer(c).timeStats(rec!), status);
}

/** Writes one change: the record, its project's version and the system note. */
function change(
  c: Ctx,
  type: 'Issue' | 'MergeRequest',
  rec: Rec,
  apply: (r: Draft<Rec>) => string | null,
): void {
  const user = requireUser(c);
  const now = c.get('fx').clock.iso();
  write(c, (d) => {
    const r = issuableDraft(d, type, rec.id)!;
    const note = apply(r);
    if (note === null) return;
    projectMeta(d, r.project_id);
    systemNote(d, { type, id: r.id, project_id: r.project_id }, user.id, note, now);
  });
}

function estimate(kind: Kind, reset: boolean) {
  return (c: Ctx): Response => {
    requireUser(c);
    const duration = reset ? 0 : parseDuration(parse(c, { duration: p.str().required() }).duration);
    const { rec, type } = load(c, kind, true);
    if (duration === null || duration < 0)
      throw validationError({ time_estimate: ['has an invalid format'] });
    change(c, type, rec, (r) => {
      if (r.time_estimate === duration) return null;
      r.time_estimate = duration;
      return duration === 0 ? 'removed time estimate' : `changed time estimate to ${humanTime(duration)}`;
    });
    return stats(c, type, rec.id, 200);
  };
}

function spend(kind: Kind, reset: boolean) {
  return (c: Ctx): Response => {
    requireUser(c);
    const duration = reset ? null : parseDuration(parse(c, { duration: p.str().required() }).duration);
    const { rec, type } = load(c, kind, true);
    if (!reset && duration !== null && rec.total_time_spent + duration < 0)
      throw validationError({ base: ['Time to subtract exceeds the total time spent'] });
    change(c, type, rec, (r) => {
      if (reset) {
        if (r.total_time_spent === 0) return null;
        r.total_time_spent = 0;
        return 'removed time spent';
      }
      // An unreadable duration changes nothing, as `spend_time` with no time.
      if (duration === null || duration === 0) return null;
      r.total_time_spent += duration;
      return `${duration > 0 ? 'added' : 'subtracted'} ${humanTime(Math.abs(duration))} of time spent`;
    });
    return stats(c, type, rec.id, reset ? 200 : 201);
  };
}

function show(kind: Kind) {
  return (c: Ctx): Response => {
    requireUser(c);
    const { rec, type } = load(c, kind, false);
    return stats(c, type, rec.id, 200);
  };
}

export function timeTrackingRoutes(r: ApiRouter): void {
  for (const [kind, key] of [
    ['issues', 'issue_iid'],
    ['merge_requests', 'merge_request_iid'],
  ] as const) {
    const base = `/projects/:id/${kind}/:${key}`;
    r.post(`${base}/time_estimate`, estimate(kind, false));
    r.post(`${base}/reset_time_estimate`, estimate(kind, true));
    r.post(`${base}/add_spent_time`, spend(kind, false));
    r.post(`${base}/reset_spent_time`, spend(kind, true));
    r.get(`${base}/time_stats`, show(kind));
  }
}
