import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { body, call } from '../jobs/world.js';
import { jobsWorld } from '../jobs/world.js';

type Fx = ReturnType<typeof createFauxlab>;

const fxOf = () =>
  createFauxlab({
    scenario: {
      ...jobsWorld,
      projects: [...(jobsWorld.projects ?? []), { path: 'acme/infra', visibility: 'private' }],
    },
  });

const INFRA = '/api/v4/projects/acme%2Finfra/terraform/state';
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** A request as Terraform's http backend sends it: Basic auth, and a JSON body with its Content-MD5. */
function tf(fx: Fx, method: string, path: string, data?: string, auth = basic('maint', 'maint')) {
  const headers: Record<string, string> = { Authorization: auth };
  if (data !== undefined) {
    headers['Content-Type'] = 'application/json';
    headers['Content-MD5'] = createHash('md5').update(data).digest('base64');
  }
  return fx.app.request(path, { method, headers, ...(data !== undefined && { body: data }) });
}

const lockInfo = (id: string, who = 'maint@laptop') =>
  JSON.stringify({
    ID: id,
    Operation: 'OperationTypeApply',
    Info: '',
    Who: who,
    Version: '1.0.11',
    Created: '2021-03-01T11:59:59.123456789Z',
    Path: '',
  });

const tfstate = (serial: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    version: 4,
    terraform_version: '1.0.11',
    serial,
    lineage: '3c3f2a2e-8c47-3f8a-6b1e-1f4e2c9d0a11',
    outputs: {},
    resources: [],
    ...extra,
  });

describe('Terraform state: the http backend, as Terraform 1.x drives it', () => {
  it('terraform apply twice: lock, GET (204), POST ?ID= with serial 1, unlock; then lock, GET (200), POST serial 2, unlock', async () => {
    const fx = fxOf();
    const lockId = '5e0f3f2a-7c1e-9b43-0d2a-7f1c4e2b9a10';
    const lock = await tf(fx, 'POST', `${INFRA}/prod/lock`, lockInfo(lockId));
    expect(lock.status).toBe(200);
    expect(lock.headers.get('content-type')).toBeNull();
    expect(JSON.parse(await lock.text())).toEqual({
      Operation: 'OperationTypeApply',
      Info: '',
      Version: '1.0.11',
      Path: '',
      ID: lockId,
      Who: 'maint',
      Created: '2021-03-01T12:00:00.000Z',
    });
    const empty = await tf(fx, 'GET', `${INFRA}/prod`);
    expect([empty.status, await empty.text()]).toEqual([204, '']);
    const s1 = tfstate(1);
    const post = await tf(fx, 'POST', `${INFRA}/prod?ID=${encodeURIComponent(lockId)}`, s1);
    expect([post.status, post.headers.get('content-type'), await post.text()]).toEqual([
      200,
      'application/json',
      '""',
    ]);
    const unlock = await tf(fx, 'DELETE', `${INFRA}/prod/lock`, lockInfo(lockId));
    expect([unlock.status, await unlock.text()]).toEqual([200, '200']);

    const id2 = '0b7c9e11-2a3d-4f5e-8a9b-0c1d2e3f4a5b';
    expect((await tf(fx, 'POST', `${INFRA}/prod/lock`, lockInfo(id2))).status).toBe(200);
    const got = await tf(fx, 'GET', `${INFRA}/prod`);
    expect([got.status, got.headers.get('content-type'), await got.text()]).toEqual([200, null, s1]);
    const s2 = tfstate(2, { outputs: { ip: { value: '10.0.0.1', type: 'string' } } });
    expect((await tf(fx, 'POST', `${INFRA}/prod?ID=${id2}`, s2)).status).toBe(200);
    expect((await tf(fx, 'DELETE', `${INFRA}/prod/lock`, lockInfo(id2))).status).toBe(200);
    expect(await (await tf(fx, 'GET', `${INFRA}/prod`)).text()).toBe(s2);
    // Every serial stays a version of its own.
    expect(await (await tf(fx, 'GET', `${INFRA}/prod/versions/1`)).text()).toBe(s1);
    expect(await (await tf(fx, 'GET', `${INFRA}/prod/versions/2`)).text()).toBe(s2);
  });

  it('POST .../lock on a locked state: 409 with the current lock (its ID, holder and time, the request’s Operation)', async () => {
    const fx = fxOf();
    expect((await tf(fx, 'POST', `${INFRA}/prod/lock`, lockInfo('first'))).status).toBe(200);
    fx.clock.advance(5000);
    const again = await tf(
      fx,
      'POST',
      `${INFRA}/prod/lock`,
      JSON.stringify({ ...JSON.parse(lockInfo('second')), Operation: 'OperationTypePlan' }),
      basic('owner', 'owner'),
    );
    expect(again.status).toBe(409);
    expect(JSON.parse(await again.text())).toEqual({
      Operation: 'OperationTypePlan',
      Info: '',
      Version: '1.0.11',
      Path: '',
      ID: 'first',
      Who: 'maint',
      Created: '2021-03-01T12:00:00.000Z',
    });
    // The same ID again is a conflict too (`raise StateLockedError if state.locked?`).
    expect((await tf(fx, 'POST', `${INFRA}/prod/lock`, lockInfo('first'))).status).toBe(409);
  });

  it('DELETE .../lock: a wrong ID is 409 (body 409) and keeps the lock; no ID (force-unlock) lifts any lock', async () => {
    const fx = fxOf();
    await tf(fx, 'POST', `${INFRA}/prod/lock`, lockInfo('abc'));
    const wrong = await tf(fx, 'DELETE', `${INFRA}/prod/lock`, lockInfo('xyz'));
    expect([wrong.status, await wrong.text()]).toEqual([409, '409']);
    expect((await tf(fx, 'POST', `${INFRA}/prod/lock`, lockInfo('other'))).status).toBe(409);
    const force = await tf(fx, 'DELETE', `${INFRA}/prod/lock`);
    expect(force.status).toBe(200);
    expect((await tf(fx, 'POST', `${INFRA}/prod/lock`, lockInfo('other'))).status).toBe(200);
  });

  it('POST state: a lock ID not the state’s, or none while locked, is the API’s 500 and writes nothing', async () => {
    const fx = fxOf();
    await tf(fx, 'POST', `${INFRA}/prod/lock`, lockInfo('abc'));
    for (const q of ['?ID=nope', '']) {
      const res = await tf(fx, 'POST', `${INFRA}/prod${q}`, tfstate(1));
      expect([res.status, await body(res)]).toEqual([500, { message: '500 Internal Server Error' }]);
    }
    expect((await tf(fx, 'GET', `${INFRA}/prod`)).status).toBe(204);
    // An unlocked state with an ID given does not match either (`secure_compare('', id)`).
    const res = await tf(fx, 'POST', `${INFRA}/fresh?ID=abc`, tfstate(1));
    expect(res.status).toBe(500);
    expect((await tf(fx, 'POST', `${INFRA}/fresh`, tfstate(1))).status).toBe(200);
  });

  it('POST state without locking (lock=false): no ID, unlocked: 200; the same serial twice is a 500 (unique version)', async () => {
    const fx = fxOf();
    expect((await tf(fx, 'POST', `${INFRA}/dev`, tfstate(3))).status).toBe(200);
    expect((await tf(fx, 'POST', `${INFRA}/dev`, tfstate(3, { outputs: { a: 1 } }))).status).toBe(500);
    expect(await (await tf(fx, 'GET', `${INFRA}/dev`)).text()).toBe(tfstate(3));
    // A body with no serial has no version to be.
    expect((await tf(fx, 'POST', `${INFRA}/dev`, '{"version":4}')).status).toBe(500);
    // An empty body: 204, before anything is made.
    const none = await fx.app.request(`${INFRA}/other`, {
      method: 'POST',
      headers: { Authorization: basic('maint', 'maint') },
    });
    expect(none.status).toBe(204);
    expect((await tf(fx, 'GET', `${INFRA}/other`)).status).toBe(404);
  });

  it('GET the latest version, by serial not by order of posting', async () => {
    const fx = fxOf();
    await tf(fx, 'POST', `${INFRA}/s`, tfstate(5));
    await tf(fx, 'POST', `${INFRA}/s`, tfstate(2));
    expect(await (await tf(fx, 'GET', `${INFRA}/s`)).text()).toBe(tfstate(5));
  });

  it('a name is the segment up to its first dot (Grape’s `:name` and its format), %2F in it is one name', async () => {
    const fx = fxOf();
    expect((await tf(fx, 'POST', `${INFRA}/prod.tfstate`, tfstate(1))).status).toBe(200);
    expect(await (await tf(fx, 'GET', `${INFRA}/prod`)).text()).toBe(tfstate(1));
    expect((await tf(fx, 'POST', `${INFRA}/a%2Fb`, tfstate(1))).status).toBe(200);
    expect(await (await tf(fx, 'GET', `${INFRA}/a%2Fb`)).text()).toBe(tfstate(1));
    expect((await tf(fx, 'GET', `${INFRA}/a`)).status).toBe(404);
  });

  it('GET of a state never made: 404 Not found (RecordNotFound); a lock makes it (then 204)', async () => {
    const fx = fxOf();
    const res = await tf(fx, 'GET', `${INFRA}/nothing`);
    expect([res.status, await body(res)]).toEqual([404, { message: '404 Not found' }]);
    await tf(fx, 'POST', `${INFRA}/nothing/lock`, lockInfo('x'));
    expect((await tf(fx, 'GET', `${INFRA}/nothing`)).status).toBe(204);
  });

  it('DELETE state: 200 "" and the versions go; a locked state is not destroyed (500)', async () => {
    const fx = fxOf();
    await tf(fx, 'POST', `${INFRA}/prod`, tfstate(1));
    const del = await tf(fx, 'DELETE', `${INFRA}/prod`);
    expect([del.status, await del.text()]).toEqual([200, '""']);
    expect((await tf(fx, 'GET', `${INFRA}/prod`)).status).toBe(404);
    expect((await tf(fx, 'GET', `${INFRA}/prod/versions/1`)).status).toBe(404);
    await tf(fx, 'POST', `${INFRA}/held/lock`, lockInfo('h'));
    expect((await tf(fx, 'DELETE', `${INFRA}/held?ID=h`)).status).toBe(500);
    expect((await tf(fx, 'POST', `${INFRA}/held/lock`, lockInfo('h2'))).status).toBe(409);
  });

  it('versions: GET and DELETE by serial; an unknown serial is 404 Not Found, a non-integer one 400', async () => {
    const fx = fxOf();
    await tf(fx, 'POST', `${INFRA}/prod`, tfstate(1));
    await tf(fx, 'POST', `${INFRA}/prod`, tfstate(2));
    const missing = await tf(fx, 'GET', `${INFRA}/prod/versions/9`);
    expect([missing.status, await body(missing)]).toEqual([404, { message: '404 Not Found' }]);
    const bad = await tf(fx, 'GET', `${INFRA}/prod/versions/x`);
    expect([bad.status, await body(bad)]).toEqual([400, { error: 'serial is invalid' }]);
    const dev = await tf(fx, 'DELETE', `${INFRA}/prod/versions/2`, undefined, basic('dev', 'dev'));
    expect(dev.status).toBe(403);
    const del = await tf(fx, 'DELETE', `${INFRA}/prod/versions/2`);
    expect([del.status, await del.text()]).toEqual([204, '']);
    expect(await (await tf(fx, 'GET', `${INFRA}/prod`)).text()).toBe(tfstate(1));
  });

  it('lock params: Grape’s missing-param message, and the 255-character limit of ID', async () => {
    const fx = fxOf();
    const res = await tf(fx, 'POST', `${INFRA}/prod/lock`, JSON.stringify({ ID: 'x', Operation: 'o' }));
    expect([res.status, await body(res)]).toEqual([
      400,
      { error: 'Info is missing, Who is missing, Version is missing, Created is missing, Path is missing' },
    ]);
    const long = await tf(fx, 'DELETE', `${INFRA}/prod/lock`, JSON.stringify({ ID: '0'.repeat(256) }));
    expect([long.status, await body(long)]).toEqual([
      400,
      { error: 'ID ID must be less than 255 characters' },
    ]);
  });
});

describe('Terraform state: who may', () => {
  it('developers read (GET), only maintainers write, lock and unlock (403); reporters read nothing', async () => {
    const fx = fxOf();
    await tf(fx, 'POST', `${INFRA}/prod`, tfstate(1));
    const dev = basic('dev', 'dev');
    expect((await tf(fx, 'GET', `${INFRA}/prod`, undefined, dev)).status).toBe(200);
    expect((await tf(fx, 'GET', `${INFRA}/prod/versions/1`, undefined, dev)).status).toBe(200);
    for (const [m, path, data] of [
      ['POST', `${INFRA}/prod`, tfstate(2)],
      ['DELETE', `${INFRA}/prod`, undefined],
      ['POST', `${INFRA}/prod/lock`, lockInfo('d')],
      ['DELETE', `${INFRA}/prod/lock`, lockInfo('d')],
    ] as const) {
      const res = await tf(fx, m, path, data, dev);
      expect([m, path, res.status, await body(res)]).toEqual([m, path, 403, { message: '403 Forbidden' }]);
    }
    const rep = await tf(fx, 'GET', `${INFRA}/prod`, undefined, basic('rep', 'rep'));
    expect([rep.status, await body(rep)]).toEqual([403, { message: '403 Forbidden' }]);
    const out = await tf(fx, 'GET', `${INFRA}/prod`, undefined, basic('outsider', 'outsider'));
    expect([out.status, await body(out)]).toEqual([404, { message: '404 Project Not Found' }]);
    expect((await tf(fx, 'GET', `${INFRA}/prod`, undefined, basic('root', 'root'))).status).toBe(200);
  });

  it('credentials: PRIVATE-TOKEN, a PAT as any Basic username; none or a bad one 401; no JOB-TOKEN header, no deploy token', async () => {
    const fx = fxOf();
    await tf(fx, 'POST', `${INFRA}/prod`, tfstate(1));
    const viaHeader = await fx.app.request(`${INFRA}/prod`, { headers: { 'PRIVATE-TOKEN': 'dev' } });
    expect(viaHeader.status).toBe(200);
    expect((await tf(fx, 'GET', `${INFRA}/prod`, undefined, basic('anyone', 'dev'))).status).toBe(200);
    expect((await fx.app.request(`${INFRA}/prod`)).status).toBe(401);
    expect((await tf(fx, 'GET', `${INFRA}/prod`, undefined, basic('dev', 'wrong'))).status).toBe(401);
    expect((await tf(fx, 'GET', `${INFRA}/prod`, undefined, basic('dev', ''))).status).toBe(401);
  });

  it('a running job’s token as the Basic password of gitlab-ci-token: its user’s access; the version records the job', async () => {
    const fx = fxOf();
    const jobs = (await body(
      await call(fx, 'GET', '/api/v4/projects/acme%2Fweb/pipelines/8/jobs', 'dev'),
    )) as {
      id: number;
      name: string;
    }[];
    const id = jobs.find((j) => j.name === 'compile')!.id;
    const token = (await body(await call(fx, 'GET', `/__fauxlab/jobs/${id}/token`))).token as string;
    fx.clock.advance(1000);
    await tf(fx, 'POST', `${INFRA}/prod`, tfstate(1));
    const viaBasic = await tf(fx, 'GET', `${INFRA}/prod`, undefined, basic('gitlab-ci-token', token));
    expect(viaBasic.status).toBe(200);
    // The job's user is a developer: it reads but does not write.
    expect((await tf(fx, 'POST', `${INFRA}/prod`, tfstate(2), basic('gitlab-ci-token', token))).status).toBe(
      403,
    );
    const header = await fx.app.request(`${INFRA}/prod`, { headers: { 'JOB-TOKEN': token } });
    expect(header.status).toBe(401);
    const versions = Object.values(fx.state.terraform.versions);
    expect(versions.length).toBeGreaterThan(0);
  });

  it('operations disabled: the states are gone for everyone (403), administrators too', async () => {
    const fx = fxOf();
    const made = await call(fx, 'POST', '/api/v4/projects', 'maint', {
      name: 'ops',
      operations_access_level: 'disabled',
    });
    expect([made.status, await body(made)]).toMatchObject([201, { operations_access_level: 'disabled' }]);
    const OPS = '/api/v4/projects/maint%2Fops/terraform/state';
    const post = await tf(fx, 'POST', `${OPS}/prod`, tfstate(1));
    expect([post.status, await body(post)]).toEqual([403, { message: '403 Forbidden' }]);
    expect((await tf(fx, 'GET', `${OPS}/prod`, undefined, basic('root', 'root'))).status).toBe(403);
  });

  it('deleting the project takes its states with it', async () => {
    const fx = fxOf();
    await tf(fx, 'POST', `${INFRA}/prod`, tfstate(1));
    expect(fx.state.terraform.bytes).toBe(tfstate(1).length);
    const del = await call(fx, 'DELETE', '/api/v4/projects/acme%2Finfra', 'owner');
    expect(del.status).toBe(202);
    expect(fx.state.terraform.bytes).toBe(0);
  });
});
