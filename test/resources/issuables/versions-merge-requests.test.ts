/**
 * The merge request fields that later releases add (src/resources/issuables/versions.ts): each at the
 * release before it and at its own.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { Minor } from '../../../src/core/versions.js';
import { APP, call, commitFiles, repoWorld } from '../repository/world.js';

const MR = `${APP}/merge_requests/1`;
const at = (version: Minor) => createFauxlab({ scenario: repoWorld, version });
type Fx = ReturnType<typeof at>;

/** A branch `feature` one commit ahead of master (with `ci` as its CI file) and a merge request from it. */
async function opened(fx: Fx, title = 'Feature', ci?: string) {
  if (ci !== undefined) await commitFiles(fx, { '.gitlab-ci.yml': ci });
  await commitFiles(fx, { 'f.txt': 'f' }, { branch: 'feature', start_branch: 'master' });
  const res = await call(fx, 'POST', `${APP}/merge_requests`, 'dev', {
    source_branch: 'feature',
    target_branch: 'master',
    title,
  });
  expect(res.status).toBe(201);
  return res.body;
}

const keys = (body: Record<string, unknown>) => Object.keys(body);

describe('merge request fields by release', () => {
  it('draft: absent at 13.12; from 14.0 before work_in_progress, in lists and single answers', async () => {
    const old = at('13.12');
    await opened(old, 'Draft: feature');
    const before = (await call(old, 'GET', MR, 'dev')).body;
    expect(before.work_in_progress).toBe(true);
    expect(keys(before)).not.toContain('draft');

    const fx = at('14.0');
    await opened(fx, 'Draft: feature');
    const one = (await call(fx, 'GET', MR, 'dev')).body;
    const list = (await call(fx, 'GET', `${APP}/merge_requests`, 'dev')).body[0];
    for (const body of [one, list]) {
      expect([body.draft, body.work_in_progress]).toEqual([true, true]);
      expect(keys(body).slice(keys(body).indexOf('labels'), keys(body).indexOf('labels') + 4)).toEqual([
        'labels',
        'draft',
        'work_in_progress',
        'milestone',
      ]);
    }
    await call(fx, 'PUT', MR, 'dev', { title: 'Feature' });
    expect((await call(fx, 'GET', MR, 'dev')).body.draft).toBe(false);
  });

  it('merge_user: absent at 14.6; from 14.7 after merged_by, who set the merge to wait for the pipeline, then who merged', async () => {
    const CI = 'build:\n  script: make\n';
    const old = at('14.6');
    await opened(old, 'Feature', CI);
    await call(old, 'PUT', `${MR}/merge`, 'maint', { merge_when_pipeline_succeeds: true });
    expect(keys((await call(old, 'GET', MR, 'dev')).body)).not.toContain('merge_user');

    const fx = at('14.7');
    await opened(fx, 'Feature', CI);
    const idle = (await call(fx, 'GET', MR, 'dev')).body;
    expect(idle.merge_user).toBeNull();
    expect(keys(idle)[keys(idle).indexOf('merged_by') + 1]).toBe('merge_user');
    const waiting = await call(fx, 'PUT', `${MR}/merge`, 'maint', { merge_when_pipeline_succeeds: true });
    expect([waiting.body.state, waiting.body.merged_by, waiting.body.merge_user?.username]).toEqual([
      'opened',
      null,
      'maint',
    ]);
    await call(fx, 'POST', `${MR}/cancel_merge_when_pipeline_succeeds`, 'maint');
    expect((await call(fx, 'GET', MR, 'dev')).body.merge_user).toBeNull();
    fx.clock.advance(120_000);
    const merged = await call(fx, 'PUT', `${MR}/merge`, 'owner');
    expect([merged.body.state, merged.body.merged_by?.username, merged.body.merge_user?.username]).toEqual([
      'merged',
      'owner',
      'owner',
    ]);
  });

  it('detailed_merge_status: absent at 15.5; from 15.6 after merge_status, unchecked, checking, then mergeable', async () => {
    const old = at('15.5');
    await opened(old);
    expect(keys((await call(old, 'GET', MR, 'dev')).body)).not.toContain('detailed_merge_status');

    const fx = at('15.6');
    await opened(fx);
    // Lists do not ask for a check: unchecked; showing one asks for it, which runs a moment later.
    const listed = (await call(fx, 'GET', `${APP}/merge_requests`, 'dev')).body[0];
    expect([listed.merge_status, listed.detailed_merge_status]).toEqual(['unchecked', 'unchecked']);
    expect(keys(listed)[keys(listed).indexOf('merge_status') + 1]).toBe('detailed_merge_status');
    const shown = (await call(fx, 'GET', MR, 'dev')).body;
    expect([shown.merge_status, shown.detailed_merge_status]).toEqual(['unchecked', 'checking']);
    fx.clock.advance(10_000);
    const checked = (await call(fx, 'GET', MR, 'dev')).body;
    expect([checked.merge_status, checked.detailed_merge_status]).toEqual(['can_be_merged', 'mergeable']);
  });

  it('detailed_merge_status 15.6: draft_status, discussions_not_resolved, ci_still_running, ci_must_pass, not_open in the checks’ order', async () => {
    const fx = at('15.6');
    await opened(fx, 'Draft: feature', 'build:\n  script: make\n');
    await call(fx, 'GET', MR, 'dev');
    fx.clock.advance(1_000);
    const status = async () => (await call(fx, 'GET', MR, 'dev')).body.detailed_merge_status;
    expect(await status()).toBe('draft_status');
    await call(fx, 'PUT', MR, 'dev', { title: 'Feature' });
    await call(fx, 'GET', MR, 'dev');
    fx.clock.advance(1_000);
    expect(await status()).toBe('mergeable');

    const discussion = await call(fx, 'POST', `${MR}/discussions`, 'dev', { body: 'Why?' });
    expect(discussion.status).toBe(201);
    // Unresolved discussions block only a project that asks for them resolved.
    expect(await status()).toBe('mergeable');
    await call(fx, 'PUT', APP, 'owner', { only_allow_merge_if_all_discussions_are_resolved: true });
    const blocked = (await call(fx, 'GET', MR, 'dev')).body;
    expect([blocked.detailed_merge_status, blocked.blocking_discussions_resolved]).toEqual([
      'discussions_not_resolved',
      false,
    ]);
    await call(fx, 'PUT', `${MR}/discussions/${discussion.body.id}`, 'dev', { resolved: true });
    expect(await status()).toBe('mergeable');

    // The head pipeline still runs: ci_still_running once the project asks for a green one.
    await call(fx, 'PUT', APP, 'owner', { only_allow_merge_if_pipeline_succeeds: true });
    expect(await status()).toBe('ci_still_running');
    fx.clock.advance(120_000);
    expect(await status()).toBe('mergeable');

    expect((await call(fx, 'PUT', `${MR}/merge`, 'owner')).body.state).toBe('merged');
    expect(await status()).toBe('not_open');
  });

  it('detailed_merge_status 15.6: a merge request closed while its check was pending stays unchecked', async () => {
    const fx = at('15.6');
    await opened(fx);
    expect((await call(fx, 'GET', MR, 'dev')).body.detailed_merge_status).toBe('checking');
    await call(fx, 'PUT', MR, 'dev', { state_event: 'close' });
    fx.clock.advance(10_000);
    const closed = (await call(fx, 'GET', MR, 'dev')).body;
    expect([closed.state, closed.merge_status, closed.detailed_merge_status]).toEqual([
      'closed',
      'unchecked',
      'unchecked',
    ]);
  });

  it('detailed_merge_status 15.6: ci_must_pass without a pipeline; broken_status once the source branch is gone', async () => {
    const fx = at('15.6');
    await opened(fx);
    await call(fx, 'PUT', APP, 'owner', { only_allow_merge_if_pipeline_succeeds: true });
    await call(fx, 'GET', MR, 'dev');
    fx.clock.advance(1_000);
    const status = async () => (await call(fx, 'GET', MR, 'dev')).body.detailed_merge_status;
    expect(await status()).toBe('ci_must_pass');
    expect((await call(fx, 'DELETE', `${APP}/repository/branches/feature`, 'owner')).status).toBe(204);
    await call(fx, 'GET', MR, 'dev');
    fx.clock.advance(1_000);
    expect(await status()).toBe('broken_status');
  });
});
