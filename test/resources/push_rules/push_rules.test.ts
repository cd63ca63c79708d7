import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, loadScenario } from '../../../src/index.js';
import { APP, body, call, ciWorld } from '../ci/world.js';

const R = `${APP}/push_rule`;
const premium = () => createFauxlab({ scenario: ciWorld, tier: 'premium' });

describe('push rules', () => {
  it('POST /projects/:id/push_rule: 201 with every field of the entity, defaults for the rest', async () => {
    const fx = premium();
    const res = await call(fx, 'POST', R, 'maint', {
      commit_message_regex: '^(feat|fix):',
      max_file_size: 2,
    });
    expect(res.status).toBe(201);
    const rule = await body(res);
    expect(Object.keys(rule)).toEqual([
      'id',
      'project_id',
      'created_at',
      'commit_message_regex',
      'commit_message_negative_regex',
      'branch_name_regex',
      'deny_delete_tag',
      'member_check',
      'prevent_secrets',
      'author_email_regex',
      'file_name_regex',
      'max_file_size',
      'commit_committer_check',
      'reject_unsigned_commits',
    ]);
    expect(rule).toMatchObject({
      commit_message_regex: '^(feat|fix):',
      commit_message_negative_regex: null,
      deny_delete_tag: false,
      member_check: false,
      max_file_size: 2,
      created_at: '2021-03-01T12:00:00.000Z',
    });
    expect(await body(await call(fx, 'GET', R, 'maint'))).toEqual(rule);
  });

  it('POST /projects/:id/push_rule: 422 Project push rule exists when the project has one', async () => {
    const fx = premium();
    expect((await call(fx, 'POST', R, 'maint', { deny_delete_tag: true })).status).toBe(201);
    const again = await call(fx, 'POST', R, 'maint', { member_check: true });
    expect([again.status, await body(again)]).toEqual([422, { error: 'Project push rule exists' }]);
    expect((await body(await call(fx, 'GET', R, 'maint'))).member_check).toBe(false);
  });

  it('POST /projects/:id/push_rule: 400 when no field is given, with Grape’s at_least_one_of message', async () => {
    const fx = premium();
    const res = await call(fx, 'POST', R, 'maint', {});
    expect(res.status).toBe(400);
    expect((await body(res)).error).toBe(
      'deny_delete_tag, member_check, prevent_secrets, commit_message_regex, commit_message_negative_regex, ' +
        'branch_name_regex, author_email_regex, file_name_regex, max_file_size, commit_committer_check, ' +
        'reject_unsigned_commits are missing, at least one parameter must be provided',
    );
  });

  it('POST /projects/:id/push_rule: 400 for an invalid regex or a negative size, and nothing is saved', async () => {
    const fx = premium();
    const res = await call(fx, 'POST', R, 'maint', { branch_name_regex: '(', max_file_size: -1 });
    expect(res.status).toBe(400);
    const msg = (await body(res)).message;
    expect(Object.keys(msg)).toEqual(['branch_name_regex', 'max_file_size']);
    expect(msg.branch_name_regex[0]).toMatch(/^not valid RE2 syntax: /);
    expect(msg.max_file_size).toEqual(['must be greater than or equal to 0']);
    // A back-reference is no RE2 (a nested quantifier is, and runs in linear time: test/security/regexp.test.ts).
    const unsafe = await call(fx, 'POST', R, 'maint', { commit_message_regex: '(a)\\1' });
    expect(unsafe.status).toBe(400);
    expect((await body(unsafe)).message).toEqual({
      commit_message_regex: ['not valid RE2 syntax: invalid escape sequence: \\1'],
    });
    expect(await body(await call(fx, 'GET', R, 'maint'))).toBeNull();
  });

  it('GET /projects/:id/push_rule: null with 200 when the project has no rule', async () => {
    const fx = premium();
    const res = await call(fx, 'GET', R, 'maint');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('null');
  });

  it('PUT /projects/:id/push_rule: changes only the given fields; 404 Push Rule Not Found without a rule', async () => {
    const fx = premium();
    const none = await call(fx, 'PUT', R, 'maint', { deny_delete_tag: true });
    expect([none.status, await body(none)]).toEqual([404, { message: '404 Push Rule Not Found' }]);
    await call(fx, 'POST', R, 'maint', { branch_name_regex: '^feat/', max_file_size: 5 });
    const res = await call(fx, 'PUT', R, 'maint', { deny_delete_tag: true, branch_name_regex: '' });
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ deny_delete_tag: true, branch_name_regex: '', max_file_size: 5 });
  });

  it('DELETE /projects/:id/push_rule: 204, then 404 Push Rule Not Found', async () => {
    const fx = premium();
    await call(fx, 'POST', R, 'maint', { prevent_secrets: true });
    expect((await call(fx, 'DELETE', R, 'maint')).status).toBe(204);
    const again = await call(fx, 'DELETE', R, 'maint');
    expect([again.status, await body(again)]).toEqual([404, { message: '404 Push Rule Not Found' }]);
  });

  it('GET /projects/:id/push_rule: 403 for a developer, 404 for a non-member, 401 anonymous', async () => {
    const fx = premium();
    expect((await call(fx, 'GET', R, 'dev')).status).toBe(403);
    expect(await body(await call(fx, 'GET', R, 'outsider'))).toEqual({ message: '404 Project Not Found' });
    expect((await call(fx, 'GET', R)).status).toBe(401);
    expect((await call(fx, 'POST', R, 'dev', { deny_delete_tag: true })).status).toBe(403);
  });

  it('GET /projects/:id/push_rule: 404 on the free tier, where the route does not exist', async () => {
    const fx = createFauxlab({ scenario: ciWorld });
    const res = await call(fx, 'GET', R, 'maint');
    expect([res.status, await body(res)]).toEqual([404, { error: '404 Not Found' }]);
  });

  it('POST /projects/:id/repository/commits: 400 with the push rule’s message; the branch does not move', async () => {
    const fx = premium();
    await call(fx, 'POST', R, 'maint', { commit_message_regex: '^JIRA-\\d+' });
    const head = (await body(await call(fx, 'GET', `${APP}/repository/branches/master`, 'dev'))).commit.id;
    const commit = (message: string, branch = 'master') =>
      call(fx, 'POST', `${APP}/repository/commits`, 'dev', {
        branch,
        commit_message: message,
        actions: [{ action: 'create', file_path: `f-${message.length}.txt`, content: 'x' }],
        ...(branch === 'master' ? {} : { start_branch: 'master' }),
      });
    const bad = await commit('Fix things');
    expect([bad.status, await body(bad)]).toEqual([
      400,
      { message: "Commit message does not follow the pattern '^JIRA-\\d+'" },
    ]);
    expect((await body(await call(fx, 'GET', `${APP}/repository/branches/master`, 'dev'))).commit.id).toBe(
      head,
    );
    expect((await commit('JIRA-12 fix things')).status).toBe(201);
    await call(fx, 'PUT', R, 'maint', { branch_name_regex: '^(master|feat/.*)$', commit_message_regex: '' });
    const branch = await commit('whatever', 'wip');
    expect(await body(branch)).toEqual({
      message: "Branch name does not follow the pattern '^(master|feat/.*)$'",
    });
    expect((await commit('whatever', 'feat/x')).status).toBe(201);
  });

  it('POST /projects/:id/repository/files/:file_path: 400 for a denied file name, a secret and a large file', async () => {
    const fx = premium();
    await call(fx, 'POST', R, 'maint', {
      file_name_regex: '\\.exe$',
      prevent_secrets: true,
      max_file_size: 1,
    });
    const put = (path: string, content: string) =>
      call(fx, 'POST', `${APP}/repository/files/${encodeURIComponent(path)}`, 'dev', {
        branch: 'master',
        commit_message: 'add',
        content,
      });
    expect(await body(await put('bin/tool.exe', 'x'))).toEqual({
      message: 'File name bin/tool.exe was blacklisted by the pattern \\.exe$.',
    });
    expect((await body(await put('keys/id_rsa', 'x'))).message).toMatch(
      /^File name keys\/id_rsa was blacklisted by the pattern .*id_rsa\$\.$/,
    );
    expect(await body(await put('big.bin', 'y'.repeat(1024 * 1024 + 1)))).toEqual({
      message: 'File "big.bin" is larger than the allowed size of 1 MB',
    });
    expect((await put('ok.txt', 'fine')).status).toBe(201);
  });

  it('POST /projects/:id/repository/commits: author email and member checks on the commit’s author', async () => {
    const fx = premium();
    await call(fx, 'POST', R, 'maint', { author_email_regex: '@example\\.com$' });
    const res = await call(fx, 'POST', `${APP}/repository/commits`, 'dev', {
      branch: 'master',
      commit_message: 'x',
      author_email: 'someone@elsewhere.org',
      author_name: 'Some One',
      actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }],
    });
    expect([res.status, await body(res)]).toEqual([
      400,
      { message: "Author's email 'someone@elsewhere.org' does not follow the pattern '@example\\.com$'" },
    ]);
    await call(fx, 'PUT', R, 'maint', { author_email_regex: '', member_check: true });
    const stranger = await call(fx, 'POST', `${APP}/repository/commits`, 'dev', {
      branch: 'master',
      commit_message: 'x',
      author_email: 'someone@elsewhere.org',
      author_name: 'Some One',
      actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }],
    });
    expect(await body(stranger)).toEqual({
      message: "Author 'someone@elsewhere.org' is not a member of team",
    });
  });

  it('POST /projects/:id/repository/branches: 400 for a name off branch_name_regex; nothing created', async () => {
    const fx = premium();
    await call(fx, 'POST', R, 'maint', { branch_name_regex: '^feat/' });
    const res = await call(fx, 'POST', `${APP}/repository/branches`, 'dev', { branch: 'wip', ref: 'master' });
    expect([res.status, await body(res)]).toEqual([
      400,
      { message: "Branch name does not follow the pattern '^feat/'" },
    ]);
    expect((await call(fx, 'GET', `${APP}/repository/branches/wip`, 'dev')).status).toBe(404);
    expect(
      (await call(fx, 'POST', `${APP}/repository/branches`, 'dev', { branch: 'feat/a', ref: 'master' }))
        .status,
    ).toBe(201);
  });

  it('DELETE /projects/:id/repository/tags/:tag_name: 400 You cannot delete a tag with deny_delete_tag', async () => {
    const fx = premium();
    await call(fx, 'POST', R, 'maint', { deny_delete_tag: true });
    const res = await call(fx, 'DELETE', `${APP}/repository/tags/v1.0`, 'maint');
    expect([res.status, await body(res)]).toEqual([400, { message: 'You cannot delete a tag' }]);
    expect((await call(fx, 'GET', `${APP}/repository/tags/v1.0`, 'maint')).status).toBe(200);
    await call(fx, 'PUT', R, 'maint', { deny_delete_tag: false });
    expect((await call(fx, 'DELETE', `${APP}/repository/tags/v1.0`, 'maint')).status).toBe(204);
  });

  it('push_rule scenario field: loads, is enforced and exports back unchanged', async () => {
    const fx = createFauxlab({
      tier: 'premium',
      scenario: {
        ...ciWorld,
        projects: [
          {
            ...ciWorld.projects![0]!,
            push_rule: { deny_delete_tag: true, commit_message_negative_regex: 'WIP' },
          },
          ...ciWorld.projects!.slice(1),
        ],
      },
    });
    const rule = await body(await call(fx, 'GET', R, 'maint'));
    expect(rule).toMatchObject({ deny_delete_tag: true, commit_message_negative_regex: 'WIP' });
    const bad = await call(fx, 'POST', `${APP}/repository/commits`, 'dev', {
      branch: 'master',
      commit_message: 'WIP: later',
      actions: [{ action: 'create', file_path: 'w.txt', content: 'w' }],
    });
    expect(await body(bad)).toEqual({ message: "Commit message contains the forbidden pattern 'WIP'" });
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    const app = out.projects!.find((p) => p.path === 'acme/app')!;
    expect(app.push_rule).toEqual({
      deny_delete_tag: true,
      commit_message_negative_regex: 'WIP',
      created_at: rule.created_at,
    });
    const again = createFauxlab({ tier: 'premium', scenario: out });
    expect(await body(await call(again, 'GET', R, 'maint'))).toEqual(rule);
  });

  it('push_rule scenario field: an invalid pattern is a scenario error', () => {
    expect(() =>
      loadScenario({
        ...ciWorld,
        projects: [{ ...ciWorld.projects![0]!, push_rule: { branch_name_regex: '(' } }],
      }),
    ).toThrow(/push_rule\.branch_name_regex/);
  });
});
