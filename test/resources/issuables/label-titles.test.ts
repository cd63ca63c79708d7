/**
 * A label's title is unique in its owner, and a project label may not take the title of a label of a
 * group above it, however the labels came and went: created, renamed, deleted, promoted, taken with
 * their project, or loaded from a state file saved before titles were indexed.
 */
import { describe, expect, it } from 'vitest';
import { parseStateFile, stateFileText } from '../../../src/admin/state-file.js';
import { createFauxlab } from '../../../src/index.js';
import { ientries, mget, tvalues } from '../../../src/core/table.js';
import type { PlatformState } from '../../../src/core/state.js';
import { issuablesWorld, send, WEB } from './world.js';

const fx = () => createFauxlab({ scenario: issuablesWorld });

/** The title index as entries, and as the labels table says it must be. */
function titleIndex(st: PlatformState): { kept: string[]; derived: string[] } {
  const ix = st.issuables.idx.labelTitles!;
  const kept: string[] = [];
  for (const [key] of ientries(ix)) for (const id of mget(ix, key)) kept.push(`${key}=${id}`);
  const derived = tvalues(st.issuables.labels).map(
    (l) => `${l.project_id !== null ? `lp${l.project_id}` : `lg${l.group_id}`}\u0000${l.title}=${l.id}`,
  );
  return { kept: kept.sort(), derived: derived.sort() };
}

/** As erin (a reporter of acme/website: labels are a reporter's to manage), or alice (acme's owner). */
const create = (f: ReturnType<typeof fx>, name: string, at = WEB, token = 'erin-api') =>
  send(f, 'POST', `${at}/labels`, token, { name, color: '#428bca' });

describe('label titles', () => {
  it('POST /projects/:id/labels: 409 for a title the project has; a rename frees the old title and takes the new', async () => {
    const f = fx();
    expect((await create(f, 'alpha')).status).toBe(201);
    expect(await create(f, 'alpha')).toMatchObject({
      status: 409,
      body: { message: 'Label already exists' },
    });
    const renamed = await send(f, 'PUT', `${WEB}/labels/alpha`, 'erin-api', { new_name: 'beta' });
    expect(renamed.status).toBe(200);
    expect((await create(f, 'alpha')).status).toBe(201);
    expect((await create(f, 'beta')).status).toBe(409);
    const clash = await send(f, 'PUT', `${WEB}/labels/alpha`, 'erin-api', { new_name: 'beta' });
    expect(clash).toMatchObject({ status: 400, body: { message: { title: ['has already been taken'] } } });
    const { kept, derived } = titleIndex(f.state);
    expect(kept).toEqual(derived);
  });

  it('POST /projects/:id/labels: a deleted label frees its title; a group label above takes it', async () => {
    const f = fx();
    expect((await create(f, 'gamma')).status).toBe(201);
    expect((await send(f, 'DELETE', `${WEB}/labels/gamma`, 'erin-api')).status).toBe(204);
    expect((await create(f, 'gamma')).status).toBe(201);
    expect((await create(f, 'delta', '/groups/acme', 'alice-api')).status).toBe(201);
    expect((await create(f, 'delta')).status).toBe(409);
    expect((await create(f, 'delta', '/groups/acme', 'alice-api')).status).toBe(409);
    const { kept, derived } = titleIndex(f.state);
    expect(kept).toEqual(derived);
  });

  it('PUT /projects/:id/labels/:label_id/promote: the index follows the labels that go and the one that comes', async () => {
    const f = fx();
    expect((await create(f, 'epsilon')).status).toBe(201);
    expect((await send(f, 'PUT', `${WEB}/labels/epsilon/promote`, 'erin-api')).status).toBe(200);
    expect((await create(f, 'epsilon')).status).toBe(409);
    const { kept, derived } = titleIndex(f.state);
    expect(kept).toEqual(derived);
    expect(kept.some((k) => k.startsWith('lg') && k.includes('\u0000epsilon='))).toBe(true);
  });

  it('DELETE /projects/:id: the project labels leave the title index with it', async () => {
    const f = fx();
    expect((await create(f, 'zeta')).status).toBe(201);
    const pid = (await send(f, 'GET', WEB, 'erin-api')).body.id as number;
    const deleted = await send(f, 'DELETE', WEB, 'alice-api');
    expect(deleted.status).toBe(202);
    const { kept, derived } = titleIndex(f.state);
    expect(kept).toEqual(derived);
    expect(kept.some((k) => k.startsWith(`lp${pid}\u0000`))).toBe(false);
  });

  it('POST /projects/:id/issues: labels found by title in the project, then its groups; a new title made once', async () => {
    const f = fx();
    expect((await create(f, 'shared', '/groups/acme', 'alice-api')).status).toBe(201);
    expect((await create(f, 'shared')).status).toBe(409);
    const before = f.state.issuables.labels.size;
    const first = await send(f, 'POST', `${WEB}/issues`, 'erin-api', {
      title: 'One',
      labels: 'bug,shared,fresh',
    });
    expect(first.status).toBe(201);
    expect(first.body.labels).toEqual(['bug', 'fresh', 'shared']);
    const second = await send(f, 'POST', `${WEB}/issues`, 'erin-api', {
      title: 'Two',
      labels: 'fresh, shared,fresh',
    });
    expect(second.body.labels).toEqual(['fresh', 'shared']);
    expect(f.state.issuables.labels.size).toBe(before + 1);
    const labels = (await send(f, 'GET', `${WEB}/labels`, 'erin-api')).body as {
      name: string;
      is_project_label: boolean;
    }[];
    expect(labels.filter((l) => l.name === 'shared')).toEqual([
      expect.objectContaining({ is_project_label: false }),
    ]);
    const { kept, derived } = titleIndex(f.state);
    expect(kept).toEqual(derived);
  });

  it('a state file saved before titles were indexed: titles are still checked, by reading the labels', async () => {
    const f = fx();
    expect((await create(f, 'eta')).status).toBe(201);
    const file = JSON.parse(stateFileText(f.snapshot())) as {
      state: { issuables: { idx: Record<string, unknown> } };
    };
    delete file.state.issuables.idx.labelTitles;
    const again = createFauxlab({ scenario: issuablesWorld });
    again.restore(parseStateFile(JSON.stringify(file)));
    expect(again.state.issuables.idx.labelTitles).toBeUndefined();
    expect((await create(again, 'eta')).status).toBe(409);
    expect((await create(again, 'bug')).status).toBe(409);
    expect((await send(again, 'PUT', `${WEB}/labels/eta`, 'erin-api', { new_name: 'theta' })).status).toBe(
      200,
    );
    expect((await create(again, 'eta')).status).toBe(201);
    expect((await create(again, 'theta')).status).toBe(409);
    const size = again.state.issuables.labels.size;
    const one = await send(again, 'POST', `${WEB}/issues`, 'erin-api', {
      title: 'One',
      labels: 'theta,iota',
    });
    const two = await send(again, 'POST', `${WEB}/issues`, 'erin-api', { title: 'Two', labels: 'iota' });
    expect([one.body.labels, two.body.labels]).toEqual([['iota', 'theta'], ['iota']]);
    expect(again.state.issuables.labels.size).toBe(size + 1);
  });
});
