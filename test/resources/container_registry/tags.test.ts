/**
 * A container repository's tags (`lib/api/project_container_repositories.rb`): the list
 * (`ContainerRegistry::Tag`), one tag's details (`TagDetails`), deleting one (`DeleteTagsService`,
 * developers) and deleting in bulk (`CleanupContainerRepositoryWorker` and `CleanupTagsService`,
 * maintainers, once an hour, the patterns on RE2).
 */
import { describe, expect, it } from 'vitest';
import { APP, call, world, type World } from './world.js';

const TAGS = `${APP}/registry/repositories/1/tags`;
const names = async (fx: World) =>
  (await call(fx, 'GET', TAGS, 'rep')).body.map((t: { name: string }) => t.name);

describe('GET /projects/:id/registry/repositories/:repository_id/tags', () => {
  it('the tags in name order, paginated; 404 for a repository of another project', async () => {
    const fx = world();
    const r = await call(fx, 'GET', `${TAGS}?per_page=2`, 'rep');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-total')).toBe('4');
    expect(r.body).toEqual([
      { name: 'latest', path: 'acme/app:latest', location: 'registry.example.com:5000/acme/app:latest' },
      {
        name: 'stable-1',
        path: 'acme/app:stable-1',
        location: 'registry.example.com:5000/acme/app:stable-1',
      },
    ]);
    expect((await call(fx, 'GET', `${APP}/registry/repositories/3/tags`, 'rep')).body).toEqual({
      message: '404 Not found',
    });
    expect((await call(fx, 'GET', TAGS, 'guest')).status).toBe(403);
    expect((await call(fx, 'GET', TAGS, 'outsider')).status).toBe(404);
  });
});

describe('GET /projects/:id/registry/repositories/:repository_id/tags/:tag_name', () => {
  it("TagDetails: the manifest's revision, digest, created time and size; 404 Tag Not Found", async () => {
    const fx = world();
    const r = await call(fx, 'GET', `${TAGS}/v1.0`, 'rep');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      name: 'v1.0',
      path: 'acme/app:v1.0',
      location: 'registry.example.com:5000/acme/app:v1.0',
      revision: 'c'.repeat(64),
      short_revision: 'ccccccccc',
      digest: `sha256:${'b'.repeat(64)}`,
      created_at: '2021-01-06T16:49:51.272+00:00',
      total_size: 350224384,
    });
    expect((await call(fx, 'GET', `${TAGS}/nope`, 'rep')).body).toEqual({ message: '404 Tag Not Found' });
    // A name like a prototype key is just a name the registry does not have.
    expect((await call(fx, 'GET', `${TAGS}/__proto__`, 'rep')).status).toBe(404);
    expect((await call(fx, 'GET', `${TAGS}/constructor`, 'rep')).status).toBe(404);
    expect((await call(fx, 'GET', `${TAGS}/v1.0`, 'guest')).status).toBe(403);
  });
});

describe('DELETE /projects/:id/registry/repositories/:repository_id/tags/:tag_name', () => {
  it('developers delete one tag (200, the status as body); the list no longer has it', async () => {
    const fx = world();
    expect((await call(fx, 'DELETE', `${TAGS}/v1.1`, 'rep')).body).toEqual({ message: '403 Forbidden' });
    expect((await call(fx, 'DELETE', `${TAGS}/v1.1`)).status).toBe(401);
    expect(await call(fx, 'DELETE', `${TAGS}/v1.1`, 'dev')).toMatchObject({ status: 200, body: 200 });
    expect(await names(fx)).toEqual(['latest', 'stable-1', 'v1.0']);
    expect((await call(fx, 'DELETE', `${TAGS}/v1.1`, 'dev')).body).toEqual({ message: '404 Tag Not Found' });
  });
});

describe('DELETE /projects/:id/registry/repositories/:repository_id/tags', () => {
  it('deletes what matches name_regex_delete, never latest; 202, then once an hour', async () => {
    const fx = world();
    const r = await call(fx, 'DELETE', TAGS, 'maint', {
      name_regex_delete: '.*',
      name_regex_keep: 'stable.*',
    });
    expect(r).toMatchObject({ status: 202, body: 202 });
    expect(await names(fx)).toEqual(['latest', 'stable-1']);
    expect(await call(fx, 'DELETE', TAGS, 'maint', { name_regex_delete: '.*' })).toMatchObject({
      status: 400,
      body: {
        message:
          'This request has already been made. You can run this at most once an hour for a given container repository',
      },
    });
    await call(fx, 'POST', '/__fauxlab/clock', undefined, { advance: '61m' });
    expect((await call(fx, 'DELETE', TAGS, 'maint', { name_regex: '.*' })).status).toBe(202);
    expect(await names(fx)).toEqual(['latest']);
  });

  it('keep_n keeps the newest matching tags; older_than only deletes older ones; the patterns match whole names', async () => {
    let fx = world();
    await call(fx, 'DELETE', TAGS, 'maint', { name_regex_delete: 'v.*|stable-1', keep_n: 1 });
    // Newest first: v1.1 (Feb 20) is kept; v1.0 and stable-1 go.
    expect(await names(fx)).toEqual(['latest', 'v1.1']);
    fx = world();
    await call(fx, 'DELETE', TAGS, 'maint', { name_regex_delete: '.*', older_than: '30d' });
    // Now is 2021-03-01: the tags of January go, v1.1 (Feb 20) stays.
    expect(await names(fx)).toEqual(['latest', 'v1.1']);
    fx = world();
    // `\Av\z`: a pattern matching part of a name deletes nothing.
    await call(fx, 'DELETE', TAGS, 'maint', { name_regex_delete: 'v' });
    expect(await names(fx)).toEqual(['latest', 'stable-1', 'v1.0', 'v1.1']);
    fx = world();
    // An older_than ChronicDuration cannot read fails the worker: nothing is deleted.
    await call(fx, 'DELETE', TAGS, 'maint', { name_regex_delete: '.*', older_than: 'soon' });
    expect(await names(fx)).toHaveLength(4);
  });

  it("the params' refusals: at_least_one_of, untrusted_regexp in RE2's words, types; 403 below maintainers", async () => {
    const fx = world();
    expect(await call(fx, 'DELETE', TAGS, 'maint', {})).toMatchObject({
      status: 400,
      body: { error: 'name_regex, name_regex_delete are missing, at least one parameter must be provided' },
    });
    expect(
      await call(fx, 'DELETE', TAGS, 'maint', {
        name_regex_delete: '(?=x)',
        name_regex_keep: '(a',
        keep_n: 'x',
      }),
    ).toMatchObject({
      status: 400,
      body: {
        error:
          'name_regex_delete is an invalid regexp: invalid perl operator: (?=, name_regex_keep is an invalid regexp: missing ): (a, keep_n is invalid',
      },
    });
    // A back-reference, which backtracking engines take: RE2 has none.
    expect((await call(fx, 'DELETE', TAGS, 'maint', { name_regex_delete: '(a)\\1' })).body).toEqual({
      error: 'name_regex_delete is an invalid regexp: invalid escape sequence: \\1',
    });
    // A program too large for the budget.
    expect(
      (await call(fx, 'DELETE', TAGS, 'maint', { name_regex_delete: '((((a{100}){100}){100}))' })).status,
    ).toBe(400);
    expect((await call(fx, 'DELETE', TAGS, 'dev', { name_regex_delete: '.*' })).body).toEqual({
      message: '403 Forbidden',
    });
    expect(
      (await call(fx, 'DELETE', `${APP}/registry/repositories/99/tags`, 'maint', { name_regex: '.*' })).body,
    ).toEqual({
      message: '404 Not found',
    });
    // A pathological pattern runs in linear time on RE2 (a backtracking engine would not return).
    const t0 = Date.now();
    expect((await call(fx, 'DELETE', TAGS, 'maint', { name_regex_delete: '(a+)+$' })).status).toBe(202);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(await names(fx)).toHaveLength(4);
  });
});
