/**
 * `git push -o ...` as 13.12 reads it (`Gitlab::PushOptions`): `ci.skip`, `ci.variable`, and the
 * `merge_request.*` (alias `mr.*`) options that `MergeRequests::PushOptionsHandlerService` runs from the
 * post-receive step: create or update the open merge request of each pushed branch. What the push is
 * told comes back on the progress band as the post-receive hook prints it (Gitaly's `printMessages`):
 * the warnings as an alert box, then `MergeRequests::GetUrlsService`'s links.
 */
import type { Draft } from 'immer';
import type { PipelineVariable, PlatformState, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { abilities } from '../issuables/access.js';
import { chunkIds } from '../issuables/store.js';
import { labelIdsFor } from '../issuables/model/labels.js';
import {
  createMergeRequest,
  keepDiffCommits,
  updateMergeRequest,
  type MergeRequestChanges,
} from '../issuables/model/merge-requests.js';
import type { Project } from '../projects/model.js';
import { ancestors, walk } from '../repository/history.js';
import { BLANK_SHA, peel, refTarget } from '../repository/refs.js';
import { objectsOf } from '../repository/store.js';

/** The keys each namespace takes (`VALID_OPTIONS`); others are dropped without a word. */
const VALID: Record<string, readonly string[]> = {
  merge_request: [
    'create',
    'description',
    'label',
    'merge_when_pipeline_succeeds',
    'remove_source_branch',
    'target',
    'title',
    'unlabel',
  ],
  ci: ['skip', 'variable'],
};
/** `MULTI_VALUE_OPTIONS`: a value counted per occurrence instead of the last one winning. */
const MULTI = new Set(['ci.variable', 'merge_request.label', 'merge_request.unlabel']);
/** `NAMESPACE_ALIASES`. */
const ALIASES: Record<string, string> = { mr: 'merge_request' };

/** A namespace's options: `true` for a bare key, the value, or the values of a multi-value key. */
export type OptionValues = Map<string, true | string | string[]>;
export type PushOptions = Map<string, OptionValues>;

/** `Gitlab::PushOptions#parse_options` (`OPTION_MATCHER`: `namespace.key[=value]`, each part stripped). */
export function parsePushOptions(raw: readonly string[]): PushOptions {
  const out: PushOptions = new Map();
  for (const option of raw) {
    const m = /^([^.]+)\.([^=]+)=?(.*)$/s.exec(option);
    if (!m) continue;
    let ns = m[1]!.trim();
    const key = m[2]!.trim();
    const value = m[3]!.trim();
    ns = Object.hasOwn(ALIASES, ns) ? ALIASES[ns]! : ns;
    if (!Object.hasOwn(VALID, ns) || !VALID[ns]!.includes(key)) continue;
    let opts = out.get(ns);
    if (!opts) out.set(ns, (opts = new Map()));
    const v = value === '' ? true : value;
    if (MULTI.has(`${ns}.${key}`)) {
      // Counted by value (`HashWithIndifferentAccess.new(0)`): each distinct value once, in order.
      const list = (opts.get(key) as string[] | undefined) ?? [];
      const text = v === true ? 'true' : v;
      if (!list.includes(text)) list.push(text);
      opts.set(key, list);
    } else opts.set(key, v);
  }
  return out;
}

/** `ci.variable="KEY=value"` options as pipeline variables (`Gitlab::PushOptions` + `Ci::CreatePipelineService`). */
export function pushVariables(opts: PushOptions): PipelineVariable[] {
  const list = (opts.get('ci')?.get('variable') as string[] | undefined) ?? [];
  const out: PipelineVariable[] = [];
  for (const item of list) {
    const at = item.indexOf('=');
    // `variables_attributes`: `KEY=value`, split at the first `=`; anything else is dropped.
    if (at <= 0) continue;
    out.push({ key: item.slice(0, at), value: item.slice(at + 1), variable_type: 'env_var' });
  }
  return out;
}

export interface BranchChange {
  name: string;
  old: string;
  next: string;
}

/** `PushOptionsHandlerService::LIMIT`. */
export const MR_BRANCH_LIMIT = 10;

const str = (v: true | string | string[] | undefined): string | undefined =>
  v === undefined ? undefined : v === true ? 'true' : Array.isArray(v) ? v.join(',') : v;

/** `Gitlab::Utils.to_boolean` on an option's value (`true` for a bare key). */
const bool = (v: true | string | string[] | undefined): boolean | undefined => {
  const s = str(v);
  if (s === undefined) return undefined;
  if (/^(true|t|yes|y|1|on)$/i.test(s)) return true;
  if (/^(false|f|no|n|0|off)$/i.test(s)) return false;
  return undefined;
};

/** `String#titleize.humanize` of a branch name: the title BuildService gives a multi-commit branch. */
const humanizedBranch = (branch: string): string => {
  const words = branch.replace(/-/g, '_').replace(/_/g, ' ').toLowerCase().trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/**
 * `MergeRequests::BuildService#assign_title_and_description`: one commit between the branches gives
 * its subject and body; more give the branch's name.
 */
function builtText(
  st: PlatformState,
  project: Project,
  head: string,
  target: string,
  branch: string,
): { title: string; description: string | null } {
  const store = objectsOf(st);
  const targetHead = refTarget(st, project, 'branch', target);
  const stop = targetHead === undefined ? new Set<string>() : ancestors(store, peel(store, targetHead));
  const commits = walk(store, [head], { limit: 2 }).filter((id) => !stop.has(id));
  const only = commits.length === 1 ? store.commit(commits[0]!) : undefined;
  if (!only) return { title: humanizedBranch(branch), description: null };
  const [subject, ...rest] = only.message.replace(/\n+$/, '').split('\n');
  const body = rest.join('\n').trim();
  return { title: subject!.trim(), description: body === '' ? null : body };
}

/** What the merge request options did: the errors collected, the merge requests made and updated. */
export interface OptionsOutcome {
  errors: string[];
  created: number[];
  /** The merge requests updated (their update hooks follow the write). */
  updated: number[];
  /** `merge_request.merge_when_pipeline_succeeds`: the merge requests (made or updated) to set. */
  autoMerge: { id: number; sha: string }[];
}

/**
 * `PushOptionsHandlerService#execute` inside the push's write: the errors it collects (none when all
 * went well) and the merge requests it made. Each pushed branch other than the default has its open merge request updated,
 * or, with `merge_request.create`, a new one into `merge_request.target` (default: the default branch).
 */
export function runMergeRequestOptions(
  d: Draft<PlatformState>,
  project: Project,
  user: UserRecord | null,
  changes: readonly BranchChange[],
  opts: OptionValues,
  now: string,
): OptionsOutcome {
  const st = d as PlatformState;
  const errors: string[] = [];
  const created: number[] = [];
  const updated: number[] = [];
  const autoMerge: { id: number; sha: string }[] = [];
  const done = () => ({ errors, created, updated, autoMerge });
  const branches = [
    ...new Set(
      changes
        .filter((ch) => ch.next !== BLANK_SHA && ch.name !== project.default_branch)
        .map((ch) => ch.name),
    ),
  ];
  if (!user) errors.push('User is required');
  const a = abilities(st, user, project);
  if (!a.mergeRequests)
    errors.push(`Merge requests are not enabled for project ${project.path_with_namespace}`);
  if (branches.length > MR_BRANCH_LIMIT)
    errors.push(`Too many branches pushed (${branches.length} were pushed, limit is ${MR_BRANCH_LIMIT})`);
  const target = str(opts.get('target'));
  if (target !== undefined && refTarget(st, project, 'branch', target) === undefined)
    errors.push(`Branch ${target} does not exist`);
  if (errors.length > 0 || !user) return done();
  const title = str(opts.get('title'));
  // `Issuable` validates the title's length (`validates :title, length: { maximum: 255 }`): the
  // merge request is not saved, and the error is the push's warning.
  if (title !== undefined && [...title].length > 255)
    return { ...done(), errors: ['Title is too long (maximum is 255 characters)'] };
  const labels = (opts.get('label') as string[] | undefined) ?? [];
  const unlabels = (opts.get('unlabel') as string[] | undefined) ?? [];
  const description = str(opts.get('description'));
  const removeSource = bool(opts.get('remove_source_branch'));
  // `merge_params`: the flag, the pusher as the merge user, and the pushed head as the merge's sha.
  const mwps = opts.has('merge_when_pipeline_succeeds')
    ? bool(opts.get('merge_when_pipeline_succeeds')) === true
    : false;
  const pushed = (branch: string) => changes.find((ch) => ch.name === branch)!.next;
  for (const branch of branches) {
    const into = target ?? project.default_branch;
    const open = findOpen(st, project, branch);
    if (open !== undefined) {
      const mr = tget(d.issuables.mergeRequests, open)!;
      if (mwps) autoMerge.push({ id: open, sha: pushed(branch) });
      const ch: MergeRequestChanges = {};
      if (title !== undefined) ch.title = title;
      if (description !== undefined) ch.description = description;
      if (target !== undefined) ch.target_branch = target;
      if (removeSource !== undefined) ch.force_remove_source_branch = removeSource;
      if (labels.length > 0 || unlabels.length > 0) {
        const add = labelIdsFor(d, project, labels, a.developer, now);
        const remove = labelIdsFor(d, project, unlabels, false, now);
        ch.label_ids = [...mr.label_ids.filter((id) => !remove.includes(id)), ...add].filter(
          (id, i, all) => all.indexOf(id) === i && !remove.includes(id),
        );
      }
      // Setting the flag is a change of the merge request too (`UpdateService`'s update hook).
      if (Object.keys(ch).length > 0 || (mwps && !mr.merge_when_pipeline_succeeds)) updated.push(open);
      if (Object.keys(ch).length > 0) updateMergeRequest(d, open, ch, user.id, now);
      continue;
    }
    if (opts.get('create') === undefined) continue;
    if (into === null) {
      errors.push("Target branch can't be blank");
      continue;
    }
    if (into === branch) {
      errors.push("Validate branches You can't use same project/branch for source and target");
      continue;
    }
    const head = refTarget(st, project, 'branch', branch)!;
    const built = builtText(st, project, peel(objectsOf(st), head), into, branch);
    const add = labelIdsFor(d, project, labels, a.developer, now);
    const remove = labelIdsFor(d, project, unlabels, false, now);
    const id = createMergeRequest(
      d,
      {
        project_id: project.id,
        source_project_id: project.id,
        author_id: user.id,
        title: title ?? built.title,
        description: description ?? built.description,
        source_branch: branch,
        target_branch: into,
        assignee_ids: [user.id],
        label_ids: add.filter((id) => !remove.includes(id)),
        milestone_id: null,
        force_remove_source_branch: removeSource ?? null,
      },
      now,
    );
    keepDiffCommits(d, tget(d.issuables.mergeRequests, id)!);
    created.push(id);
    if (mwps) autoMerge.push({ id, sha: pushed(branch) });
  }
  return done();
}

/** The open merge request from `branch` of the project, into the project (`from_source_branches`). */
export function findOpen(st: PlatformState, project: Project, branch: string): number | undefined {
  const meta = tget(st.issuables.projectMeta, project.id);
  if (!meta) return undefined;
  for (const id of chunkIds(st.issuables.idx.byProject, 'm', project.id, meta.mr_iid)) {
    const mr = tget(st.issuables.mergeRequests, id);
    if (mr && mr.state === 'opened' && mr.source_project_id === project.id && mr.source_branch === branch)
      return id;
  }
  return undefined;
}

/** Gitaly's `printAlert`: a message boxed in `=` rules, its words centred on lines under 72 columns. */
export function alertLines(message: string): string[] {
  const rule = '='.repeat(72);
  const out = [rule, ''];
  let line = '';
  const centre = (text: string) => {
    const t = text.trim();
    return ' '.repeat(Math.max(Math.floor((72 - t.length) / 2), 0)) + t;
  };
  for (const word of message.split(/\s+/).filter((w) => w !== '')) {
    if (line.length + word.length + 1 >= 72) {
      out.push(centre(line));
      line = '';
    }
    line += `${word} `;
  }
  if (line.length > 0) out.push(centre(line));
  out.push('', rule);
  return out;
}

/** `PostReceiveService#push_options_warning`. */
export const pushOptionsWarning = (raw: readonly string[], errors: readonly string[]): string =>
  `WARNINGS:\nError encountered with push options ${raw.map((p) => `'${p}'`).join(' ')}: ${errors.join('\n\n')}`;
