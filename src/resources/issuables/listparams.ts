/**
 * The list parameters of issues and merge requests (Grape's `issues_params` and
 * `merge_requests_base_params`), their custom validators and their reading into finder filters.
 */
import { findUser } from '../../core/auth.js';
import type { Ctx } from '../../core/context.js';
import { grapeError } from '../../core/errors.js';
import { paginationParams } from '../../core/pagination.js';
import {
  mutuallyExclusive,
  p,
  parseParams,
  type ParamValue,
  type Parsed,
  type RawParams,
} from '../../core/params.js';
import { parse } from '../../core/router.js';
import type { PlatformState } from '../../core/state.js';
import {
  parseSearch,
  type Filters,
  type IssueOrder,
  type NegatableFilters,
  type Wildcard,
} from './finder.js';

export const ISSUE_ORDERS: readonly IssueOrder[] = [
  'created_at',
  'updated_at',
  'priority',
  'due_date',
  'relative_position',
  'label_priority',
  'milestone_due',
  'popularity',
  'weight',
];
const SCOPES = ['created-by-me', 'assigned-to-me', 'created_by_me', 'assigned_to_me', 'all'] as const;
const DUE_DATES = ['0', 'overdue', 'week', 'month', 'next_month_and_previous_two_weeks', ''] as const;

const labels = () => p.strArray({ commaSeparated: true });

/** `negatable_issue_filter_params`. */
const issueNegatable = {
  labels: labels(),
  milestone: p.str(),
  iids: p.intArray({ commaSeparated: true }),
  search: p.str(),
  in: p.str(),
  author_id: p.int(),
  author_username: p.str(),
  assignee_id: p.str(),
  // `assignee_username` is read raw: `check_assignees_count` wraps a string into an array.
  my_reaction_emoji: p.str(),
};
const issueNegatablePaid = { ...issueNegatable, weight: p.str() };

function issueShape(paid: boolean, endpoint: 'global' | 'group' | 'project') {
  return {
    with_labels_details: p.bool().default(false),
    state: p.str().values(['opened', 'closed', 'all']).default('all'),
    order_by: p.str().values(ISSUE_ORDERS).default('created_at'),
    sort: p
      .str()
      .values(['asc', 'desc'] as const)
      .default('desc'),
    due_date: p.str().values(DUE_DATES),
    ...(paid ? issueNegatablePaid : issueNegatable),
    created_after: p.datetime(),
    created_before: p.datetime(),
    updated_after: p.datetime(),
    updated_before: p.datetime(),
    not: p.hash(),
    scope: endpoint === 'global' ? p.str().values(SCOPES).default('created_by_me') : p.str().values(SCOPES),
    confidential: p.bool(),
    ...paginationParams,
    ...(endpoint === 'project' ? {} : { non_archived: p.bool().default(true) }),
  };
}

type IssueShape = ReturnType<typeof issueShape>;
const issueShapes = new Map<string, IssueShape>();

export type IssueListParams = Parsed<IssueShape> & { weight?: string };

/** A parsed issue list request and the params its pagination links carry. */
interface ParsedList {
  readonly prm: IssueListParams;
  readonly links: Record<string, unknown>;
}

/**
 * Parsed issue list requests by URL, per instance: the raw params are the URL's (its query and path),
 * and a client sends its few list URLs again and again; reading some twenty declared params cost more
 * than finding the issues. Only what parsed without an error is kept, frozen.
 */
const parsedLists = new WeakMap<object, Map<string, ParsedList>>();
/** Parsed URLs kept per instance: past this many, the instance starts over. */
const PARSED_LISTS = 256;

/** Parses an issue list request; the shape depends on the tier (weights) and the endpoint. */
export function parseIssueList(c: Ctx, endpoint: 'global' | 'group' | 'project'): IssueListParams {
  const fx = c.get('fx');
  const paid = fx.tier() !== 'free';
  let kept = parsedLists.get(fx);
  if (kept === undefined) parsedLists.set(fx, (kept = new Map()));
  const at = `${+paid}${endpoint}|${c.req.url}`;
  const hit = kept.get(at);
  if (hit !== undefined) {
    c.set('linkParams', hit.links);
    return hit.prm;
  }
  const key = `${paid}:${endpoint}`;
  let shape = issueShapes.get(key);
  if (!shape) {
    shape = issueShape(paid, endpoint);
    issueShapes.set(key, shape);
  }
  const raw = c.get('params');
  const out = parse(c, shape) as IssueListParams;
  checkNegatable(raw, '', paid);
  if (out.not) parseNested(out.not, paid ? issueNegatablePaid : issueNegatable, paid);
  if (kept.size >= PARSED_LISTS) kept.clear();
  kept.set(at, { prm: deepFreeze(out), links: Object.freeze(c.get('linkParams')) });
  return out;
}

/** `v` and everything in it frozen: a kept parse or request is shared by the requests of its URL. */
export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k in v) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}

/** The `integer_none_any` params. */
const NONE_ANY = ['assignee_id', 'reviewer_id'] as const;
const NONE_ANY_PAID = [...NONE_ANY, 'weight'] as const;

/** `mutually_exclusive` pairs, `integer_none_any` and `check_assignees_count`, at the top or under `not`. */
function checkNegatable(raw: RawParams, prefix: string, paid: boolean): void {
  const name = (k: string) => (prefix ? `${prefix}[${k}]` : k);
  const named = (k: string) => (raw[k] === undefined ? {} : { [name(k)]: raw[k] as ParamValue });
  // Each pair is refused only when both are given (most requests give neither: nothing is made for them).
  if (raw.author_id !== undefined && raw.author_username !== undefined)
    mutuallyExclusive(
      { ...named('author_id'), ...named('author_username') },
      name('author_id'),
      name('author_username'),
    );
  if (raw.assignee_id !== undefined && raw.assignee_username !== undefined)
    mutuallyExclusive(
      { ...named('assignee_id'), ...named('assignee_username') },
      name('assignee_id'),
      name('assignee_username'),
    );
  if (raw.reviewer_id !== undefined && raw.reviewer_username !== undefined)
    mutuallyExclusive(
      { ...named('reviewer_id'), ...named('reviewer_username') },
      name('reviewer_id'),
      name('reviewer_username'),
    );
  for (const k of paid ? NONE_ANY_PAID : NONE_ANY) {
    const v = raw[k];
    if (v === undefined || v === null || v === '') continue;
    const s = String(v);
    if (!/^[+-]?\d+$/.test(s.trim()) && !['none', 'any'].includes(s.toLowerCase()))
      throw grapeError(400, `${name(k)} should be an integer, none, or any, however got ${s}`);
  }
  const usernames = raw.assignee_username;
  if (usernames !== undefined && usernames !== null) {
    const list = Array.isArray(usernames) ? usernames : [usernames];
    if (list.some((u) => typeof u !== 'string' && typeof u !== 'number'))
      throw grapeError(400, `${name('assignee_username')} is invalid`);
    if (list.length > 1 && !paid)
      throw grapeError(
        400,
        `${name('assignee_username')} allows one value, but found ${list.length}: ${list.join(', ')}`,
      );
  }
}

/** A nested hash (`not[...]`) validated against a shape, with Grape's nested names in messages. */
function parseNested(
  hash: Record<string, ParamValue>,
  shape: Record<
    string,
    | ReturnType<typeof p.str>
    | ReturnType<typeof labels>
    | ReturnType<typeof p.int>
    | ReturnType<typeof p.intArray>
  >,
  paid: boolean,
): void {
  try {
    parseParams(shape as Parameters<typeof parseParams>[0], hash);
  } catch (e) {
    const body = (e as { body?: { error?: string } }).body;
    if (!body?.error) throw e;
    const keys = Object.keys(shape).sort((a, b) => b.length - a.length);
    const msg = body.error
      .split(', ')
      .map((part) => {
        const k = keys.find((key) => part.startsWith(`${key} `) || part.startsWith(`${key}[`));
        return k ? `not[${k}]${part.slice(k.length)}` : part;
      })
      .join(', ');
    throw grapeError(400, msg);
  }
  checkNegatable(hash, 'not', paid);
}

// ---------------------------------------------------------------------------------------------------
// Merge requests

const mrNegatable = {
  author_id: p.int(),
  author_username: p.str(),
  assignee_id: p.str(),
  reviewer_id: p.str(),
  reviewer_username: p.str(),
  labels: labels(),
  milestone: p.str(),
  my_reaction_emoji: p.str(),
};

function mrShape(paid: boolean, endpoint: 'global' | 'group' | 'project') {
  return {
    ...mrNegatable,
    state: p.str().values(['opened', 'closed', 'locked', 'merged', 'all']).default('all'),
    order_by: p
      .str()
      .values(['created_at', 'updated_at'] as const)
      .default('created_at'),
    sort: p
      .str()
      .values(['asc', 'desc'] as const)
      .default('desc'),
    with_labels_details: p.bool().default(false),
    with_merge_status_recheck: p.bool().default(false),
    created_after: p.datetime(),
    created_before: p.datetime(),
    updated_after: p.datetime(),
    updated_before: p.datetime(),
    view: p.str().values(['simple']),
    scope: endpoint === 'global' ? p.str().values(SCOPES).default('created_by_me') : p.str().values(SCOPES),
    source_branch: p.str(),
    source_project_id: p.int(),
    target_branch: p.str(),
    search: p.str(),
    in: p.str(),
    wip: p.str().values(['yes', 'no']),
    not: p.hash(),
    deployed_before: p.str(),
    deployed_after: p.str(),
    environment: p.str(),
    ...(paid
      ? {
          approver_ids: p.strArray({ commaSeparated: true }),
          approved_by_ids: p.strArray({ commaSeparated: true }),
        }
      : {}),
    ...paginationParams,
    ...(endpoint === 'project' ? { iids: p.intArray({ commaSeparated: true }) } : {}),
    ...(endpoint === 'group' ? { non_archived: p.bool().default(true) } : {}),
  };
}

type MrShape = ReturnType<typeof mrShape>;
const mrShapes = new Map<string, MrShape>();

export type MrListParams = Parsed<MrShape> & {
  iids?: number[];
  non_archived?: boolean;
  approver_ids?: string[];
  approved_by_ids?: string[];
};

export function parseMrList(c: Ctx, endpoint: 'global' | 'group' | 'project'): MrListParams {
  const paid = c.get('fx').tier() !== 'free';
  const key = `${paid}:${endpoint}`;
  let shape = mrShapes.get(key);
  if (!shape) {
    shape = mrShape(paid, endpoint);
    mrShapes.set(key, shape);
  }
  const out = parse(c, shape) as MrListParams;
  checkNegatable(c.get('params'), '', false);
  if (out.not) parseNested(out.not, mrNegatable, false);
  for (const k of ['approver_ids', 'approved_by_ids'] as const) {
    const v = (out as { [key: string]: unknown })[k] as string[] | undefined;
    if (v === undefined) continue;
    if (v.length === 1 && ['none', 'any'].includes(v[0]!.toLowerCase())) continue;
    if (!v.every((x) => /^\d+$/.test(x.trim())))
      throw grapeError(400, `${k} should be an array, 'None' or 'Any'`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Reading params into filters

const wildcard = (v: string): Wildcard | undefined => {
  const s = v.toLowerCase();
  return s === 'none' ? 'none' : s === 'any' ? 'any' : undefined;
};

function labelFilter(v: string[] | undefined): string[] | Wildcard | undefined {
  if (v === undefined) return undefined;
  const names = v.map((s) => s.trim()).filter((s) => s !== '');
  if (names.length === 0) return undefined;
  const lower = names.map((s) => s.toLowerCase());
  // `No+Label` is the deprecated spelling of `None` (a `+` in a query string is a space).
  if (lower.some((s) => s === 'none' || s === 'no label' || s === 'no+label')) return 'none';
  if (lower.includes('any')) return 'any';
  return lower;
}

function milestoneFilter(v: string | undefined): string | Wildcard | undefined {
  if (v === undefined || v === '') return undefined;
  const lower = v.toLowerCase();
  if (lower === 'none' || lower === 'no milestone' || lower === 'no+milestone') return 'none';
  if (lower === 'any') return 'any';
  return v;
}

const userId = (st: PlatformState, username: string) => {
  const u = findUser(st, username);
  // A user named by username only: a numeric string is a username here.
  return u && u.username.toLowerCase() === username.toLowerCase() ? u.id : -1;
};

function idOrWildcard(v: unknown): number | Wildcard | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const s = String(v).trim();
  return wildcard(s) ?? Number(s);
}

const strArr = (v: unknown): string[] | undefined =>
  v === undefined || v === null
    ? undefined
    : Array.isArray(v)
      ? v.flatMap((x) => String(x).split(','))
      : String(v).split(',');

/** Reads the negatable filters of a raw hash (top level or `not`). */
export function negatableFilters(
  st: PlatformState,
  raw: Record<string, unknown>,
  paid: boolean,
): NegatableFilters {
  const f: NegatableFilters = {};
  f.labels = labelFilter(strArr(raw.labels));
  f.milestone = milestoneFilter(raw.milestone === undefined ? undefined : String(raw.milestone));
  if (raw.author_id !== undefined && raw.author_id !== '') f.authorId = Number(raw.author_id);
  else if (typeof raw.author_username === 'string' && raw.author_username !== '')
    f.authorId = userId(st, raw.author_username);
  const assignee = idOrWildcard(raw.assignee_id);
  if (assignee !== undefined) f.assignee = typeof assignee === 'number' ? [assignee] : assignee;
  else if (raw.assignee_username !== undefined) {
    const names = (
      Array.isArray(raw.assignee_username) ? raw.assignee_username : [raw.assignee_username]
    ).map(String);
    if (names.length) f.assignee = names.map((n) => userId(st, n));
  }
  const reviewer = idOrWildcard(raw.reviewer_id);
  if (reviewer !== undefined) f.reviewer = reviewer;
  else if (typeof raw.reviewer_username === 'string' && raw.reviewer_username !== '')
    f.reviewer = userId(st, raw.reviewer_username);
  if (typeof raw.my_reaction_emoji === 'string' && raw.my_reaction_emoji !== '')
    f.myReaction = wildcard(raw.my_reaction_emoji) ?? raw.my_reaction_emoji;
  if (paid) {
    const w = idOrWildcard(raw.weight);
    if (w !== undefined) f.weight = w;
  }
  const iids = strArr(raw.iids);
  if (iids !== undefined && iids.length) f.iids = iids.map((s) => Number(s.trim()));
  if (typeof raw.search === 'string' && raw.search !== '')
    f.search = parseSearch(raw.search, typeof raw.in === 'string' ? raw.in : undefined);
  return f;
}

/** The finder filters of a parsed list request. */
export function listFilters(
  st: PlatformState,
  prm: {
    state?: string;
    scope?: string;
    created_after?: string;
    created_before?: string;
    updated_after?: string;
    updated_before?: string;
    confidential?: boolean;
    due_date?: string;
    not?: Record<string, ParamValue>;
  },
  raw: RawParams,
  paid: boolean,
  mr?: { source_branch?: string; target_branch?: string; source_project_id?: number; wip?: 'yes' | 'no' },
): Filters {
  const given = prm.scope ?? 'all';
  // The negatable filters' object grows into the whole (no copy of it per request).
  const f = negatableFilters(st, raw, paid) as Filters;
  f.scope = (given.includes('-') ? given.replace(/-/g, '_') : given) as Filters['scope'];
  f.not = prm.not ? negatableFilters(st, prm.not, paid) : {};
  if (prm.state !== undefined) f.state = prm.state;
  if (prm.created_after) f.createdAfter = prm.created_after;
  if (prm.created_before) f.createdBefore = prm.created_before;
  if (prm.updated_after) f.updatedAfter = prm.updated_after;
  if (prm.updated_before) f.updatedBefore = prm.updated_before;
  if (prm.confidential !== undefined) f.confidential = prm.confidential;
  if (prm.due_date) f.dueDate = prm.due_date as Filters['dueDate'];
  if (mr) {
    if (mr.source_branch !== undefined) f.sourceBranch = mr.source_branch;
    if (mr.target_branch !== undefined) f.targetBranch = mr.target_branch;
    if (mr.source_project_id !== undefined) f.sourceProjectId = mr.source_project_id;
    if (mr.wip !== undefined) f.wip = mr.wip;
  }
  return f;
}
