/**
 * Resource events of a new issue or merge request (`Issuable::CommonSystemNotesService` with `is_update:
 * false`): a label event per label and a milestone event, as the author, at creation.
 */
import { describe, expect, it } from 'vitest';
import { get, issuablesFx, send, WEB } from './world.js';

describe('events recorded at creation', () => {
  it('POST /projects/:id/issues with labels and a milestone: label and milestone events', async () => {
    const fx = issuablesFx();
    const made = await send(fx, 'POST', `${WEB}/issues`, 'erin-api', {
      title: 'New one',
      labels: 'bug,docs',
      milestone_id: (await get(fx, `${WEB}/milestones?title=v1.0`, 'erin-api')).body[0].id,
    });
    expect(made.status).toBe(201);
    const iid = made.body.iid;
    const labels = await get(fx, `${WEB}/issues/${iid}/resource_label_events`, 'bob-api');
    expect(labels.body).toMatchObject([
      {
        resource_type: 'Issue',
        resource_id: made.body.id,
        label: { name: 'bug' },
        action: 'add',
        user: { username: 'erin' },
      },
      { label: { name: 'docs' }, action: 'add' },
    ]);
    expect(labels.body[0].created_at).toBe(made.body.created_at);
    const milestones = await get(fx, `${WEB}/issues/${iid}/resource_milestone_events`, 'bob-api');
    expect(milestones.body).toMatchObject([
      { resource_type: 'Issue', milestone: { title: 'v1.0' }, action: 'add', state: 'opened' },
    ]);
  });

  it('a new label made by the issue is recorded too; no labels, no milestone: no events', async () => {
    const fx = issuablesFx();
    const made = await send(fx, 'POST', `${WEB}/issues`, 'erin-api', {
      title: 'Labelled',
      labels: 'brand-new',
    });
    const r = await get(fx, `${WEB}/issues/${made.body.iid}/resource_label_events`, 'bob-api');
    expect(r.body).toMatchObject([{ label: { name: 'brand-new' }, action: 'add' }]);
    const bare = await send(fx, 'POST', `${WEB}/issues`, 'erin-api', { title: 'Bare' });
    expect((await get(fx, `${WEB}/issues/${bare.body.iid}/resource_label_events`, 'bob-api')).body).toEqual(
      [],
    );
    expect(
      (await get(fx, `${WEB}/issues/${bare.body.iid}/resource_milestone_events`, 'bob-api')).body,
    ).toEqual([]);
  });

  it('POST /projects/:id/merge_requests with labels: label events on the merge request', async () => {
    const fx = issuablesFx();
    const made = await send(fx, 'POST', `${WEB}/merge_requests`, 'dave-api', {
      title: 'Feature',
      source_branch: 'feature',
      target_branch: 'master',
      labels: 'docs',
    });
    expect(made.status).toBe(201);
    const r = await get(fx, `${WEB}/merge_requests/${made.body.iid}/resource_label_events`, 'bob-api');
    expect(r.body).toMatchObject([{ resource_type: 'MergeRequest', label: { name: 'docs' }, action: 'add' }]);
  });
});
