/** `GET /projects/:id/vulnerability_findings` (EE `vulnerability_findings.rb`, ultimate). */
import { describe, expect, it } from 'vitest';
import { APP, call, json, world } from './world.js';

const F = `${APP}/vulnerability_findings`;
const ids = (list: { id: number }[]) => list.map((f) => f.id);

describe('GET /projects/:id/vulnerability_findings', () => {
  it("the latest pipeline's findings, most severe first, dismissed ones left out by default", async () => {
    const fx = world();
    const res = await call(fx, 'GET', F, 'dev');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('2');
    const list = await json(res);
    expect(ids(list)).toEqual([1, 3]);
    expect(Object.keys(list[0])).toEqual([
      'id',
      'report_type',
      'name',
      'severity',
      'confidence',
      'scanner',
      'identifiers',
      'project_fingerprint',
      'create_vulnerability_feedback_issue_path',
      'create_vulnerability_feedback_merge_request_path',
      'create_vulnerability_feedback_dismissal_path',
      'project',
      'dismissal_feedback',
      'issue_feedback',
      'merge_request_feedback',
      'description',
      'links',
      'location',
      'remediations',
      'solution',
      'evidence',
      'request',
      'response',
      'evidence_source',
      'supporting_messages',
      'assets',
      'state',
      'scan',
      'blob_path',
    ]);
    expect(list[0]).toMatchObject({
      name: 'Predictable pseudorandom number generator',
      scanner: { external_id: 'brakeman', name: 'Brakeman' },
      project: { id: 1, name: 'app', full_path: '/acme/app', full_name: 'acme / app' },
      create_vulnerability_feedback_issue_path: '/acme/app/-/vulnerability_feedback',
      state: 'detected',
    });
    expect(list[0].blob_path).toMatch(/^\/acme\/app\/-\/blob\/[0-9a-f]{40}\/app\/rng\.rb#L10-12$/);
  });

  it('scope=all shows the dismissed too; the filters narrow by report type, severity, confidence and scanner', async () => {
    const fx = world();
    expect(ids(await json(await call(fx, 'GET', `${F}?scope=all`, 'dev')))).toEqual([2, 1, 3]);
    expect(ids(await json(await call(fx, 'GET', `${F}?report_type=dependency_scanning`, 'dev')))).toEqual([
      3,
    ]);
    expect(ids(await json(await call(fx, 'GET', `${F}?severity=low,medium`, 'dev')))).toEqual([1, 3]);
    expect(ids(await json(await call(fx, 'GET', `${F}?confidence=medium`, 'dev')))).toEqual([1]);
    expect(ids(await json(await call(fx, 'GET', `${F}?scanner=brakeman`, 'dev')))).toEqual([1]);
    expect(ids(await json(await call(fx, 'GET', `${F}?pipeline_id=1`, 'dev')))).toEqual([1, 3]);
    for (const pid of ['99', 'abc', '__proto__'])
      expect(await json(await call(fx, 'GET', `${F}?pipeline_id=${pid}`, 'dev'))).toEqual([]);
  });

  it("400 for a value outside the platform's lists, 401 anonymous, 403 below developer, 404 hidden", async () => {
    const fx = world();
    const bad = await call(fx, 'GET', `${F}?severity=high,__proto__`, 'dev');
    expect(bad.status).toBe(400);
    expect(await json(bad)).toEqual({ error: 'severity does not have a valid value' });
    const scope = await call(fx, 'GET', `${F}?scope=none`, 'dev');
    expect(await json(scope)).toEqual({ error: 'scope does not have a valid value' });
    expect((await call(fx, 'GET', F)).status).toBe(401);
    expect((await call(fx, 'GET', F, 'rep')).status).toBe(403);
    expect((await call(fx, 'GET', F, 'outsider')).status).toBe(404);
  });
});
