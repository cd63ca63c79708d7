/**
 * Merge request pipelines: made when a merge request opens and when its source branch moves, as the CI
 * file's rules select jobs for `merge_request_event`; the merge request's pipelines and head pipeline;
 * merging when the pipeline succeeds, on the instance clock.
 */
import { describe, expect, it } from 'vitest';
import { APP, call, commitFiles, world, type World } from '../repository/world.js';

const CI = `
build:
  script: make
test:
  script: make test
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
review:
  script: review
  only: [merge_requests]
target:
  script: echo
  rules:
    - if: $CI_MERGE_REQUEST_TARGET_BRANCH_NAME == "master" && $CI_MERGE_REQUEST_IID == "1"
branchonly:
  script: echo
  rules:
    - if: $CI_COMMIT_BRANCH
`;

const MR = `${APP}/merge_requests/1`;

async function jobsOf(fx: World, id: number): Promise<string[]> {
  const list = (await call(fx, 'GET', `${APP}/pipelines/${id}/jobs`, 'owner')).body as { name: string }[];
  return list.map((j) => j.name).sort();
}

/** master with the CI file, a branch `feature` one commit ahead, and a merge request from it. */
async function opened(fx: World, ci = CI) {
  await commitFiles(fx, { '.gitlab-ci.yml': ci });
  const head = await commitFiles(fx, { 'f.txt': 'f' }, { branch: 'feature', start_branch: 'master' });
  const mr = await call(fx, 'POST', `${APP}/merge_requests`, 'dev', {
    source_branch: 'feature',
    target_branch: 'master',
    title: 'Feature',
  });
  expect(mr.status).toBe(201);
  return { head, mr: mr.body };
}

describe('merge request pipelines', () => {
  it('POST /projects/:id/merge_requests: a pipeline for merge_request_event with only the jobs the rules give it', async () => {
    const fx = world();
    const { head, mr } = await opened(fx);
    const list = (await call(fx, 'GET', `${APP}/pipelines`, 'owner')).body;
    expect(list.map((p: any) => [p.ref, p.sha === head.id])).toEqual([
      ['refs/merge-requests/1/head', true],
      ['feature', true],
      ['master', false],
    ]);
    expect(await jobsOf(fx, list[0].id)).toEqual(['review', 'target', 'test']);
    // The branch pipelines have none of the merge request's jobs.
    expect(await jobsOf(fx, list[1].id)).toEqual(['branchonly', 'build']);
    expect(mr.head_pipeline).toMatchObject({
      id: list[0].id,
      ref: 'refs/merge-requests/1/head',
      sha: head.id,
    });
    expect(mr.pipeline).toMatchObject({ id: list[0].id, status: 'pending' });
  });

  it('GET /projects/:id/merge_requests/:iid/pipelines: its own and its source branch’s, newest first; a push adds both', async () => {
    const fx = world();
    await opened(fx);
    const before = (await call(fx, 'GET', `${MR}/pipelines`, 'rep')).body;
    expect(before.map((p: any) => p.ref)).toEqual(['refs/merge-requests/1/head', 'feature']);
    const next = await commitFiles(fx, { 'g.txt': 'g' }, { branch: 'feature' });
    const after = (await call(fx, 'GET', `${MR}/pipelines`, 'rep')).body;
    expect(after.map((p: any) => [p.ref, p.sha === next.id])).toEqual([
      ['refs/merge-requests/1/head', true],
      ['feature', true],
      ['refs/merge-requests/1/head', false],
      ['feature', false],
    ]);
    const shown = (await call(fx, 'GET', MR, 'rep')).body;
    expect(shown.head_pipeline).toMatchObject({ id: after[0].id, sha: next.id });
    // An outsider of the private project sees nothing of it.
    expect((await call(fx, 'GET', `${MR}/pipelines`, 'outsider')).status).toBe(404);
  });

  it('POST /projects/:id/merge_requests/:iid/pipelines: 200 with the Pipeline entity; 400 when the file has no jobs for it', async () => {
    const fx = world();
    await opened(fx);
    const res = await call(fx, 'POST', `${MR}/pipelines`, 'dev');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ref: 'refs/merge-requests/1/head',
      status: 'pending',
      user: { username: 'dev' },
    });
    expect(Object.keys(res.body)).toContain('detailed_status');
    const plain = world();
    await opened(plain, 'build:\n  script: make\n');
    expect((await call(plain, 'GET', `${MR}/pipelines`, 'dev')).body.map((p: any) => p.ref)).toEqual([
      'feature',
    ]);
    const refused = await call(plain, 'POST', `${MR}/pipelines`, 'dev');
    expect([refused.status, refused.body]).toEqual([
      400,
      { message: { base: ['No stages / jobs for this pipeline.'] } },
    ]);
    expect((await call(plain, 'POST', `${MR}/pipelines`, 'rep')).status).toBe(405);
  });

  it('PUT .../merge?merge_when_pipeline_succeeds=true: sets the flag while the pipeline runs, merges when it succeeds', async () => {
    const fx = world();
    await opened(fx);
    const res = await call(fx, 'PUT', `${MR}/merge`, 'maint', { merge_when_pipeline_succeeds: true });
    expect([res.status, res.body.state, res.body.merge_when_pipeline_succeeds]).toEqual([
      200,
      'opened',
      true,
    ]);
    // The pipeline waits 3 s for a runner and runs its stage of 20 s jobs.
    fx.clock.advance(10_000);
    expect((await call(fx, 'GET', MR, 'maint')).body.state).toBe('opened');
    fx.clock.advance(60_000);
    const merged = (await call(fx, 'GET', MR, 'maint')).body;
    expect([merged.state, merged.merged_by?.username, merged.merge_when_pipeline_succeeds]).toEqual([
      'merged',
      'maint',
      false,
    ]);
    expect(merged.head_pipeline.status).toBe('success');
    const notes = (await call(fx, 'GET', `${MR}/notes?sort=asc`, 'maint')).body.map((n: any) => n.body);
    expect(notes[0]).toMatch(/^enabled an automatic merge when the pipeline for [0-9a-f]{40} succeeds$/);
  });

  it('PUT .../merge?merge_when_pipeline_succeeds=true without a running pipeline: 405; with a green one it merges now', async () => {
    const fx = world();
    await opened(fx, 'build:\n  script: make\n');
    fx.clock.advance(120_000);
    // The head pipeline (the branch's) has succeeded: merged at once.
    const res = await call(fx, 'PUT', `${MR}/merge`, 'maint', { merge_when_pipeline_succeeds: true });
    expect([res.status, res.body.state]).toEqual([200, 'merged']);
    const none = world();
    await commitFiles(none, { 'a.txt': 'a' }, { branch: 'feature', start_branch: 'master' });
    await call(none, 'POST', `${APP}/merge_requests`, 'dev', {
      source_branch: 'feature',
      target_branch: 'master',
      title: 'x',
    });
    const refused = await call(none, 'PUT', `${MR}/merge`, 'maint', { merge_when_pipeline_succeeds: true });
    expect([refused.status, refused.body]).toEqual([405, { message: '405 Method Not Allowed' }]);
  });

  it('POST .../cancel_merge_when_pipeline_succeeds: 201 with the service’s result; the merge no longer happens', async () => {
    const fx = world();
    await opened(fx);
    const idle = await call(fx, 'POST', `${MR}/cancel_merge_when_pipeline_succeeds`, 'maint');
    expect([idle.status, idle.body]).toEqual([
      201,
      { message: "Can't cancel the automatic merge", status: 'error', http_status: 406 },
    ]);
    await call(fx, 'PUT', `${MR}/merge`, 'maint', { merge_when_pipeline_succeeds: true });
    expect((await call(fx, 'POST', `${MR}/cancel_merge_when_pipeline_succeeds`, 'rep')).status).toBe(401);
    const res = await call(fx, 'POST', `${MR}/cancel_merge_when_pipeline_succeeds`, 'dev');
    expect([res.status, res.body]).toEqual([201, { status: 'success' }]);
    fx.clock.advance(120_000);
    const shown = (await call(fx, 'GET', MR, 'maint')).body;
    expect([shown.state, shown.merge_when_pipeline_succeeds]).toEqual(['opened', false]);
  });
});
