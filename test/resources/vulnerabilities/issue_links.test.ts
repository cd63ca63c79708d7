/** A vulnerability's issue links (EE `vulnerability_issue_links.rb`, ultimate). */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import { call, json, world } from './world.js';

const L = '/vulnerabilities/1/issue_links';

describe('vulnerability issue links', () => {
  it('POST links an issue of the project (201, related by default); GET lists it as an IssueBasic with the link', async () => {
    const fx = world();
    const res = await call(fx, 'POST', L, 'dev', { target_issue_iid: 1 });
    expect(res.status).toBe(201);
    const link = await json(res);
    expect(Object.keys(link)).toEqual(['id', 'vulnerability', 'issue', 'link_type']);
    expect(link).toMatchObject({
      id: 1,
      link_type: 'related',
      vulnerability: { id: 1 },
      issue: { iid: 1, project_id: 1 },
    });
    const list = await json(await call(fx, 'GET', L, 'dev'));
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      iid: 1,
      title: 'Fix the RNG',
      vulnerability_link_id: 1,
      vulnerability_link_type: 'related',
    });
    expect(Object.keys(list[0]).slice(-2)).toEqual(['vulnerability_link_id', 'vulnerability_link_type']);
  });

  it("the validations' 422s: an issue linked twice, a second created link", async () => {
    const fx = world();
    await call(fx, 'POST', L, 'dev', { target_issue_iid: 1, link_type: 'created' });
    const twice = await call(fx, 'POST', L, 'dev', { target_issue_iid: 1 });
    expect(twice.status).toBe(422);
    expect(await json(twice)).toEqual({ message: 'Issue has already been linked to another vulnerability' });
    const created = await call(fx, 'POST', L, 'dev', { target_issue_iid: 2, link_type: 'created' });
    expect(await json(created)).toEqual({ message: 'Vulnerability already has a "created" issue link' });
  });

  it('cross-project: an issue of a project the caller cannot read is 404; a readable one links', async () => {
    const fx = world();
    const hidden = await call(fx, 'POST', L, 'dev', {
      target_issue_iid: 1,
      target_project_id: 'secret/other',
    });
    expect(hidden.status).toBe(404);
    expect(await json(hidden)).toEqual({ message: '404 Project Not Found' });
    const other = await call(fx, 'POST', L, 'dev', { target_issue_iid: 1, target_project_id: 'acme/site' });
    expect(other.status).toBe(201);
    // maint reads secret/other: the link shows to maint, and the list hides it from dev.
    expect(
      (await call(fx, 'POST', L, 'maint', { target_issue_iid: 1, target_project_id: 'secret/other' })).status,
    ).toBe(201);
    expect((await json(await call(fx, 'GET', L, 'maint'))).map((i: { title: string }) => i.title)).toEqual([
      'Public issue',
      'Elsewhere',
    ]);
    expect((await json(await call(fx, 'GET', L, 'dev'))).map((i: { title: string }) => i.title)).toEqual([
      'Public issue',
    ]);
    const missing = await call(fx, 'POST', L, 'dev', { target_issue_iid: 99 });
    expect(await json(missing)).toEqual({ message: '404 Not found' });
  });

  it('DELETE removes the link and answers it (200); an unknown link is 404; a reporter is refused', async () => {
    const fx = world();
    await call(fx, 'POST', L, 'dev', { target_issue_iid: 1 });
    expect((await call(fx, 'DELETE', `${L}/1`, 'rep')).status).toBe(403);
    const del = await call(fx, 'DELETE', `${L}/1`, 'dev');
    expect(del.status).toBe(200);
    expect(await json(del)).toMatchObject({ id: 1, issue: { iid: 1 } });
    expect(await json(await call(fx, 'GET', L, 'dev'))).toEqual([]);
    const again = await call(fx, 'DELETE', `${L}/1`, 'dev');
    expect(again.status).toBe(404);
    expect(await json(again)).toEqual({ message: '404 Not found' });
  });

  it("params: an id that is not an integer is 400; an unknown link type is the platform's 500; nothing is written", async () => {
    const fx = world();
    const before = fx.state;
    const bad = await call(fx, 'GET', '/vulnerabilities/abc/issue_links', 'dev');
    expect(bad.status).toBe(400);
    expect(await json(bad)).toEqual({ error: 'id is invalid' });
    const type = await call(fx, 'POST', L, 'dev', { target_issue_iid: 1, link_type: '__proto__' });
    expect(type.status).toBe(500);
    expect(
      (await call(fx, 'POST', L, 'dev', { target_issue_iid: 1, target_project_id: 'constructor' })).status,
    ).toBe(404);
    expect(fx.state).toBe(before);
  });

  it('export -> load keeps the links, cross-project ones included', async () => {
    const fx = world();
    await call(fx, 'POST', L, 'maint', { target_issue_iid: 1, target_project_id: 'secret/other' });
    await call(fx, 'POST', L, 'dev', { target_issue_iid: 2, link_type: 'created' });
    const again = createFauxlab({ scenario: exportScenario(fx.state, { now: fx.clock.iso() }) });
    expect(again.state.vulnerabilities.links).toEqual(fx.state.vulnerabilities.links);
  });
});
