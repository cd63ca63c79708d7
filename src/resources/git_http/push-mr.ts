/**
 * The merge request push options around the push's write (`PostReceiveService#process_mr_push_options`
 * once the refs have moved): the merge requests `PushOptionsHandlerService` makes or updates, the
 * pipeline a made one gets (`MergeRequests::AfterCreateService#create_pipeline_for`), the merge when
 * pipeline succeeds its `merge_params` ask for, then their hooks as the API's create and update fire
 * them.
 */
import type { Draft } from 'immer';
import type { Ctx } from '../../core/context.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { mergeRequestPipelineIfAny } from '../ci/mr-pipelines.js';
import { emitEvent } from '../integrations/events.js';
import { autoMergeInWrite } from '../issuables/mr-pipelines.js';
import type { Project } from '../projects/model.js';
import type { Received } from '../repository/post-receive.js';
import {
  runMergeRequestOptions,
  type BranchChange,
  type OptionValues,
  type OptionsOutcome,
} from './push-options.js';

/** In the push's write, after `postReceive`: the options' merge requests, their pipelines, MWPS. */
export function mergeRequestOptionsInWrite(
  d: Draft<PlatformState>,
  project: Project,
  user: UserRecord | null,
  branches: readonly BranchChange[],
  opts: OptionValues,
  o: { now: string; nowMs: number; base: string; received: Received },
): OptionsOutcome {
  const outcome = runMergeRequestOptions(d, project, user, branches, opts, o.now);
  for (const id of outcome.created) {
    const mr = tget(d.issuables.mergeRequests, id)!;
    const pl = mergeRequestPipelineIfAny(d, mr, user?.id ?? null, o.now, o.base);
    if (pl !== undefined) o.received.pipelines.push(pl);
  }
  // The pusher is the merge user; the pushed head is the sha the merge waits for, so that the same
  // push's refresh does not abort it (`RefreshService#abort_auto_merges?`).
  if (user)
    for (const m of outcome.autoMerge)
      autoMergeInWrite(d, m.id, user.id, { sha: m.sha }, { nowMs: o.nowMs, base: o.base, note: false });
  return outcome;
}

/** After the write: the made merge requests' open hooks, the updated ones' update hooks. */
export function announceMergeRequestOptions(c: Ctx, before: PlatformState, outcome: OptionsOutcome): void {
  for (const id of outcome.created) emitEvent(c, { kind: 'merge_request', id, before: null });
  for (const id of outcome.updated) {
    const prev = tget(before.issuables.mergeRequests, id);
    if (prev) emitEvent(c, { kind: 'merge_request', id, before: prev.state, prev });
  }
}
