import { describe, expect, it } from 'vitest';
import {
  createFauxlab,
  exportScenario,
  loadScenario,
  ScenarioError,
  type Fauxlab,
  type ScenarioFile,
} from '../../src/index.js';
import { gpgKey, sshKey } from '../resources/metadata/world.js';
import { tvalues, type Table } from '../../src/core/table.js';

/** The line of bin/run that the world's commit thread is on. */
const COMMIT_LINE = {
  base_sha: 'a'.repeat(40),
  start_sha: 'a'.repeat(40),
  head_sha: 'b'.repeat(40),
  old_path: null,
  new_path: 'bin/run',
  position_type: 'text',
  old_line: null,
  new_line: 1,
  line_range: null,
} as const;

/** A world with records in every area that keeps any, explicit and generated. */
const world: ScenarioFile = {
  now: '2021-03-01T09:00:00Z',
  seed: 7,
  tier: 'ultimate',
  settings: { signup_enabled: false },
  features: [{ name: 'junit_pipeline_view', state: 'on' }],
  ci: { queue_time: '7s' },
  topics: [{ name: 'infra', description: 'Infrastructure code' }, { name: 'bare' }],
  broadcast_messages: [
    { message: 'Maintenance', ends_at: '2021-03-02T00:00:00Z', target_path: '/acme/*', dismissable: true },
    { message: 'Heads up', broadcast_type: 'notification', color: '#000' },
  ],
  variables: [{ key: 'INSTANCE_KEY', value: 'instance-value', masked: false, protected: true }],
  runners_registration_token: 'roundtrip-registration',
  runners: [
    {
      description: 'shared',
      token: 'shared-runner-token-1',
      tag_list: ['docker'],
      version: '13.12.0',
      ip_address: '10.0.0.1',
      contacted_at: '2021-03-01T08:30:00Z',
      created_at: '2021-02-01T00:00:00Z',
    },
    { type: 'group_type', group: 'acme/sub', description: null, active: false, maximum_timeout: 3600 },
    {
      type: 'project_type',
      projects: ['acme/app', 'alice/dotfiles'],
      description: 'specific',
      locked: true,
      run_untagged: false,
      tag_list: ['a', 'b'],
      access_level: 'ref_protected',
    },
  ],
  users: [
    { username: 'root', admin: true, tokens: [{ token: 'root-token', scopes: ['api', 'sudo'] }] },
    {
      username: 'alice',
      name: 'Alice',
      tokens: [{ token: 'alice-token' }],
      emails: [{ email: 'alice@work.example.com', confirmed: true }, { email: 'alice@home.example.com' }],
      ssh_keys: [{ title: 'laptop', key: sshKey(1), expires_at: '2022-01-01T00:00:00Z' }],
      gpg_keys: [gpgKey('mQENBF...')],
      status: { emoji: 'coffee', message: 'Back soon', availability: 'busy' },
    },
    { username: 'bob', state: 'blocked' },
  ],
  groups: [
    {
      path: 'acme',
      visibility: 'public',
      members: [{ username: 'alice', access_level: 'owner' }],
      access_requests: [{ username: 'bob', requested_at: '2021-02-20T10:00:00Z' }],
      invitations: [
        { email: 'new@example.org', access_level: 'reporter', expires_at: '2021-12-31', created_by: 'alice' },
      ],
      saml: { enabled: true, sso_url: 'https://idp.example.com/acme', default_membership_role: 20 },
      scim_token: 'scim-secret',
      scim_identities: [{ username: 'bob', extern_uid: 'bob-uid', active: false }],
      variables: [{ key: 'GROUP_KEY', value: 'group-value', environment_scope: 'production' }],
      deploy_tokens: [{ name: 'group-deploy', token: 'gdt-secret', scopes: ['read_registry'] }],
      hooks: [
        {
          url: 'https://hooks.example.com/group',
          token: 'g-token',
          issues_events: true,
          member_events: true,
          subgroup_events: true,
        },
      ],
      labels: [{ name: 'team', color: '#123', description: 'The team', subscribers: ['alice'] }],
      badges: [
        {
          name: 'CI',
          link_url: 'https://ci.example.com/%{project_path}',
          image_url: 'https://ci.example.com/b.svg',
        },
      ],
    },
    {
      path: 'acme/sub',
      description: 'A subgroup',
      shared_with: [{ group: 'acme', group_access: 30, expires_at: '2022-01-01' }],
      wiki: [{ title: 'Team', content: 'Who we are' }],
      boards: [{ name: 'Group board', lists: ['triage'] }],
    },
  ],
  projects: [
    {
      path: 'acme/app',
      visibility: 'internal',
      tag_list: ['infra', 'web'],
      members: [{ username: 'bob', access_level: 'developer' }],
      access_requests: [{ username: 'alice' }],
      invitations: [
        { email: 'ops@example.org', access_level: 40, created_by: null, created_at: '2021-02-01T00:00:00Z' },
      ],
      starred_by: ['alice'],
      branches: ['feature', { name: 'release', sha: 'a'.repeat(40) }],
      tags: ['v1.0'],
      protected_tags: [{ name: 'v*' }, { name: 'rc-*', create_access_level: 30 }],
      freeze_periods: [
        { freeze_start: '0 23 * * 5', freeze_end: '0 7 * * 1', cron_timezone: 'Europe/Berlin' },
      ],
      feature_flags_instance_id: 'unleash-instance',
      feature_flags_user_lists: [{ name: 'Beta', user_xids: 'alice,bob' }],
      feature_flags: [
        {
          name: 'new_ui',
          description: 'The new UI',
          strategies: [
            { name: 'gitlabUserList', scopes: ['production'], user_list: 'Beta' },
            {
              name: 'gradualRolloutUserId',
              parameters: { groupId: 'default', percentage: '40' },
              scopes: ['*'],
            },
          ],
        },
        {
          name: 'old_ui',
          version: 'legacy_flag',
          active: false,
          scopes: [
            { environment_scope: '*', active: true, strategies: [{ name: 'default', parameters: {} }] },
          ],
        },
      ],
      variables: [{ key: 'PROJECT_KEY', value: 'project-value', variable_type: 'file' }],
      pipelines: [
        { status: 'success', duration: '5m', created_at: '2021-02-01T10:00:00Z', coverage: 81.5 },
        {
          ref: 'feature',
          status: 'failed',
          user: 'alice',
          variables: [{ key: 'RUN', value: '1' }],
          test_report: {
            test_suites: [{ name: 'unit', test_cases: [{ name: 'adds', status: 'failed' }] }],
          },
        },
        { ref: 'v1.0', tag: true, status: 'running', duration: 3600 },
        {
          status: 'success',
          created_at: '2021-02-02T10:00:00Z',
          stages: ['lint', 'build', 'ship'],
          jobs: [
            {
              name: 'compile',
              stage: 'build',
              duration: 30,
              artifacts: [{ path: 'out/a.txt', content: 'a' }],
            },
            {
              name: 'style',
              stage: 'lint',
              duration: 5,
              outcome: 'failed',
              allow_failure: true,
              log: 'bad\n',
            },
            {
              name: 'ship',
              stage: 'ship',
              when: 'manual',
              artifacts_expire_at: '2021-03-01T00:00:00Z',
              environment: 'production',
            },
          ],
        },
        { status: 'canceled' },
      ],
      integrations: [
        { slug: 'mattermost', webhook: 'https://chat.example.com/hook', push_events: false },
        { slug: 'asana', active: false },
      ],
      deploy_tokens: [{ name: 'project-deploy', token: 'pdt-secret', scopes: ['read_repository'] }],
      hooks: [
        {
          url: 'https://hooks.example.com/app',
          token: 'p-token',
          push_events: false,
          confidential_note_events: true,
          push_events_branch_filter: 'release/*',
          enable_ssl_verification: false,
          created_at: '2021-02-01T00:00:00Z',
        },
        { url: 'https://hooks.example.com/all' },
      ],
      triggers: [
        { description: 'deploy', owner: 'alice', token: 'trigger-secret', last_used: '2021-02-28T10:00:00Z' },
        { description: 'made by the loader' },
      ],
      environments: [
        { name: 'production', external_url: 'https://app.example.com' },
        { name: 'review/fix', state: 'stopped', created_at: '2021-02-01T00:00:00Z' },
      ],
      pages_domains: [
        { domain: 'www.example.org', auto_ssl_enabled: true },
        {
          domain: 'docs.example.org',
          verification_code: '00112233445566778899aabbccddeeff',
          verified_at: '2021-02-01T00:00:00Z',
          enabled_until: '2021-02-08T00:00:00Z',
          created_at: '2021-01-01T00:00:00Z',
        },
      ],
      packages: [
        {
          name: 'app',
          version: '1.0.0',
          status: 'hidden',
          files: [
            { file_name: 'app.txt', content: 'hello' },
            { file_name: 'app.bin', content_base64: 'AP8B', created_at: '2021-03-01T10:00:00Z' },
          ],
        },
      ],
      deploy_keys: [{ title: 'deployer', key: sshKey(9), can_push: true }],
      push_rule: {
        commit_message_regex: '^(feat|fix):',
        max_file_size: 5,
        created_at: '2021-03-01T09:00:00Z',
      },
      merge_request_approvals: [{ iid: 1, approved_by: ['bob'] }],
      approval_rules: [
        { name: 'Security', approvals_required: 2, users: ['bob'], groups: ['acme'] },
        { name: 'Anyone', approvals_required: 1, rule_type: 'any_approver' },
      ],
      approval_settings: {
        approvals_before_merge: 2,
        reset_approvals_on_push: false,
        require_password_to_approve: true,
      },
      pipeline_schedules: [
        {
          description: 'nightly',
          cron: '0 4 * * *',
          cron_timezone: 'Europe/Berlin',
          owner: 'alice',
          variables: [{ key: 'MODE', value: 'full', variable_type: 'file' }],
        },
        { description: 'paused', cron: '*/5 * * * 1-5', active: false },
      ],
      deployments: [
        { environment: 'production', user: 'alice', created_at: '2021-02-20T00:00:00Z' },
        { environment: 'review/fix', status: 'running', sha: 'b'.repeat(40), ref: 'v1.0', tag: true },
      ],
      releases: [
        {
          tag_name: 'v1.0',
          ref: 'main',
          description: 'First release',
          author: 'alice',
          milestones: ['v1'],
          links: [
            { name: 'bin', url: 'https://dl.example.com/app', filepath: '/bin/app', link_type: 'package' },
          ],
        },
      ],
      boards: [{ name: 'Development', lists: ['bug', 'doing'] }, { name: 'Empty' }],
      remote_mirrors: [{ url: 'https://bot:token@mirror.example.com/app.git', enabled: true }],
      wiki: [
        { title: 'Home', content: '# Welcome' },
        {
          title: 'docs/Setup Guide',
          content: '= Setup',
          format: 'asciidoc',
          updated_at: '2021-02-27T00:00:00Z',
        },
      ],
      labels: [{ name: 'bug', color: '#ff0000', description: 'Broken', priority: 1, subscribers: ['bob'] }],
      group_labels: [{ name: 'team', priority: 2, subscribers: ['bob'] }],
      milestones: [{ title: 'v1', due_date: '2021-04-01', description: 'First' }],
      issues: [
        {
          title: 'Crash on start',
          description: 'It crashes.',
          author: 'alice',
          assignees: ['bob'],
          labels: ['bug', 'triage'],
          milestone: 'v1',
          confidential: true,
          due_date: '2021-03-15',
          weight: 3,
          award_emoji: [{ name: 'thumbsup', user: 'bob' }],
          notes: [{ body: 'Seen it too', author: 'bob' }],
        },
        { title: 'Old', state: 'closed', closed_by: 'alice', closed_at: '2021-02-20T00:00:00Z' },
        { title: 'Placed first', relative_position: -500 },
        { title: 'Moved away', iid: 9, state: 'closed', moved_to: 'acme/app#10' },
        { title: 'Moved here', iid: 10 },
      ],
      merge_requests: [
        {
          title: 'Fix crash',
          source_branch: 'fix',
          author: 'bob',
          reviewers: ['alice'],
          labels: ['bug', 'team'],
          changes: 3,
          notes: [
            { body: 'LGTM', author: 'alice' },
            {
              body: 'Off by one',
              author: 'alice',
              type: 'DiffNote',
              discussion_id: 'd'.repeat(40),
              position: {
                base_sha: 'b'.repeat(40),
                start_sha: 'c'.repeat(40),
                head_sha: 'e'.repeat(40),
                old_path: 'a.rb',
                new_path: 'a.rb',
                position_type: 'text',
                new_line: 4,
              },
              resolved_by: 'alice',
              resolved_at: '2021-02-27T00:00:00Z',
            },
            { body: 'Fixed', author: 'bob', type: 'DiscussionNote', discussion_id: 'd'.repeat(40) },
          ],
        },
        { title: 'Shipped', source_branch: 'done', state: 'merged', merged_by: 'alice' },
      ],
      snippets: [
        { title: 'Repro', content: 'crash()', notes: [{ body: 'Thanks', author: 'alice' }] },
        {
          title: 'Pair',
          files: [
            { path: 'src/b.rb', content: 'b' },
            { path: 'a.rb', content: 'a' },
          ],
        },
      ],
      badges: [
        { link_url: 'https://example.com/%{project_id}', image_url: 'https://example.com/%{commit_sha}' },
      ],
    },
    {
      path: 'alice/dotfiles',
      visibility: 'public',
      description: 'Mine',
      repository: {
        commits: [
          {
            id: 'root',
            branch: 'master',
            message: 'Start',
            files: { 'README.md': '# dotfiles\n', '.bashrc': 'ls\n' },
          },
          {
            branch: 'master',
            message: 'Tools',
            author: 'alice',
            date: '2021-02-01T10:00:00Z',
            files: {
              'bin/run': { text: '#!/bin/sh\n', mode: '100755' },
              'logo.png': { base64: 'AAEC/w==' },
              '.bashrc': null,
            },
          },
          { branch: 'side', parents: ['root'], message: 'Side', files: { 'side.txt': 'side' } },
        ],
        branches: [{ name: 'copy', commit: 'root', files: { 'extra.md': 'more' } }],
        tags: [
          { name: 'v0', commit: 'root' },
          {
            name: 'v1',
            commit: 'master',
            message: 'First release',
            tagger: 'alice',
            date: '2021-02-02T00:00:00Z',
          },
        ],
      },
      commit_notes: [
        { commit: 'master', body: 'Nice', author: 'alice', created_at: '2021-02-03T00:00:00Z' },
        {
          commit: 'v0',
          body: 'On the readme',
          type: 'LegacyDiffNote',
          discussion_id: 'c'.repeat(40),
          line: { path: 'README.md', line: 1, line_type: 'new' },
        },
        {
          commit: 'master',
          body: 'On the script',
          type: 'DiffNote',
          discussion_id: 'd'.repeat(40),
          position: COMMIT_LINE,
        },
        {
          commit: 'master',
          body: 'Reply',
          type: 'DiffNote',
          discussion_id: 'd'.repeat(40),
          position: COMMIT_LINE,
        },
      ],
    },
  ],
  oauth_applications: [
    {
      name: 'CI',
      uid: 'ci-app',
      secret: 'ci-secret',
      redirect_uri: ['https://ci.example.com/cb', 'https://ci.example.com/cb2'],
      scopes: ['api', 'read_user'],
      trusted: true,
      owner: 'alice',
    },
  ],
  epics: [
    { group: 'acme', title: 'Roadmap', author: 'alice', notes: [{ body: 'Plan', author: 'alice' }] },
    {
      group: 'acme',
      title: 'Shipped',
      author: 'alice',
      created_at: '2021-01-01T00:00:00Z',
      updated_at: '2021-01-05T00:00:00Z',
      state: 'closed',
      closed_at: '2021-01-04T00:00:00Z',
      labels: ['ux', 'web'],
      start_date_is_fixed: true,
      start_date_fixed: '2021-01-01',
      due_date_fixed: '2021-02-01',
      issues: ['acme/app#10', 'acme/app#9'],
    },
  ],
  snippets: [
    { author: 'alice', title: 'Note to self', content: 'echo hi', visibility: 'public' },
    {
      author: 'alice',
      title: 'Two files',
      files: [
        { path: 'x.sh', content: 'x' },
        { path: 'w.sh', content: 'w' },
      ],
    },
  ],
  notification_settings: [
    { user: 'alice', level: 'custom', events: { new_note: true, failed_pipeline: false } },
    { user: 'alice', group: 'acme', level: 'watch' },
    { user: 'bob', project: 'acme/app', level: 'disabled' },
  ],
  clusters: [
    {
      type: 'instance_type',
      name: 'everywhere',
      user: 'alice',
      platform_kubernetes: { api_url: 'https://k8s.example.com', token: 'instance-k8s-token' },
    },
    {
      project: 'acme/app',
      name: 'production',
      domain: 'apps.example.com',
      environment_scope: 'production',
      management_project: 'acme/app',
      platform_kubernetes: {
        api_url: 'https://10.0.0.5:6443',
        token: 'project-k8s-token',
        namespace: 'app-prod',
        authorization_type: 'abac',
      },
      created_at: '2021-02-01T00:00:00Z',
      updated_at: '2021-02-02T00:00:00Z',
    },
    {
      type: 'group_type',
      group: 'acme/sub',
      name: 'sub',
      enabled: false,
      managed: false,
      namespace_per_environment: false,
      platform_kubernetes: { api_url: 'https://sub.example.com', token: 'group-k8s-token', namespace: 'sub' },
    },
  ],
  metrics_dashboard_annotations: [
    {
      project: 'acme/app',
      environment: 'production',
      dashboard_path: 'config/prometheus/common_metrics.yml',
      starting_at: '2021-02-28T10:00:00Z',
      description: 'deploy',
    },
    {
      cluster: 1,
      dashboard_path: 'config/prometheus/cluster_metrics.yml',
      starting_at: '2021-02-28T10:00:00Z',
      ending_at: '2021-02-28T11:00:00Z',
      description: 'upgrade',
    },
  ],
  system_hooks: [
    { url: 'https://hooks.example.com/system', tag_push_events: true, repository_update_events: false },
  ],
  generate: {
    users: 3,
    groups: 2,
    projects: 3,
    issues_per_project: 2,
    merge_requests_per_project: 1,
    repository_files_per_project: 5,
    repository_commits_per_project: 2,
  },
};

const exported = (fx: Fauxlab) => JSON.stringify(exportScenario(fx.state, { now: fx.clock.iso() }));

describe('scenario export round trip', () => {
  it('export, load, export: byte-identical for a world with every area populated', () => {
    const fx = createFauxlab({ scenario: world });
    const first = exported(fx);
    const again = createFauxlab({ scenario: JSON.parse(first) as ScenarioFile });
    expect(exported(again)).toBe(first);
  });
});

/** Every table of a state by its path (`issuables.issues`), as its records. */
function tables(node: unknown, path = '', out = new Map<string, Record<string, unknown>[]>()) {
  if (typeof node !== 'object' || node === null) return out;
  const o = node as Record<string, unknown>;
  if (typeof o.size === 'number' && typeof o.buckets === 'object') {
    out.set(path, tvalues(o as unknown as Table<Record<string, unknown>>));
    return out;
  }
  for (const [k, v] of Object.entries(o)) if (k !== 'idx') tables(v, path ? `${path}.${k}` : k, out);
  return out;
}

describe('scenario: user profile records', () => {
  it('users[].ssh_keys: a key fauxlab cannot read and a key given twice are refused', () => {
    let problems: string[] = [];
    try {
      loadScenario({
        users: [
          { username: 'a', ssh_keys: [{ title: 'bad', key: 'ssh-rsa nope' }] },
          {
            username: 'b',
            ssh_keys: [
              { title: 'k', key: sshKey(2) },
              { title: 'k2', key: sshKey(2) },
            ],
          },
        ],
      });
    } catch (e) {
      problems = e instanceof ScenarioError ? e.problems : [];
    }
    expect(problems).toEqual([
      'users[0].ssh_keys[0].key: is not a public key fauxlab can read',
      'users[1].ssh_keys[1].key: is listed twice',
    ]);
  });

  it('users[] profile fields: served by the profile endpoints', async () => {
    const fx = createFauxlab({ scenario: world });
    const get = async (path: string) =>
      (await fx.app.request(`/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': 'alice-token' } })).json();
    expect(((await get('/user/emails')) as { email: string }[]).map((e) => e.email)).toEqual([
      'alice@work.example.com',
      'alice@home.example.com',
    ]);
    expect(await get('/user/keys')).toMatchObject([{ title: 'laptop', key: sshKey(1) }]);
    expect(await get('/user/gpg_keys')).toMatchObject([{ key: gpgKey('mQENBF...') }]);
    expect(await get('/user/status')).toMatchObject({
      emoji: 'coffee',
      message: 'Back soon',
      availability: 'busy',
    });
  });
});

describe('scenario export: loaded state', () => {
  it('load(export(state)): every table holds as many records as before', () => {
    const fx = createFauxlab({ scenario: world });
    const again = createFauxlab({ scenario: exportScenario(fx.state, { now: fx.clock.iso() }) });
    const sizes = (f: Fauxlab) => Object.fromEntries([...tables(f.state)].map(([k, v]) => [k, v.length]));
    expect(sizes(again)).toEqual(sizes(fx));
  });

  it('load(export(state)): every record is as before, field by field, but for what a scenario renumbers', () => {
    const fx = createFauxlab({ scenario: world });
    const again = createFauxlab({ scenario: exportScenario(fx.state, { now: fx.clock.iso() }) });
    const records = (f: Fauxlab) =>
      Object.fromEntries(
        [...tables(f.state)].map(([k, recs]) => [k, recs.map((r) => comparable(k, r)).sort()]),
      );
    expect(records(again)).toEqual(records(fx));
  });
});

/**
 * What of a record survives a load: ids and references by id are numbered again in file order (the
 * byte-identical export above checks the references, which the file holds as names); the creation
 * times of groups, projects, memberships and labels take the file's `now` (no scenario field); a deploy
 * token's default username is written out (the default follows the id).
 */
function comparable(table: string, r: Record<string, unknown>): string {
  const dropTimes = ['groups', 'projects', 'members', 'issuables.labels'].includes(table);
  const kept = Object.entries(r).filter(
    ([k]) =>
      k !== 'id' &&
      !k.endsWith('_id') &&
      !k.endsWith('_ids') &&
      !(dropTimes && ['created_at', 'updated_at', 'last_activity_at'].includes(k)) &&
      !(table === 'deployTokens.records' && k === 'username'),
  );
  return JSON.stringify(Object.fromEntries(kept.sort(([a], [b]) => (a < b ? -1 : 1))));
}

describe('scenario: repositories', () => {
  it('projects[].repository: branches, files and tags served; the same commit ids after export and load', async () => {
    const fx = createFauxlab({ scenario: world });
    const again = createFauxlab({ scenario: exportScenario(fx.state, { now: fx.clock.iso() }) });
    const get = async (f: Fauxlab, path: string) =>
      (
        await f.app.request(`/api/v4/projects/alice%2Fdotfiles${path}`, {
          headers: { 'PRIVATE-TOKEN': 'alice-token' },
        })
      ).json();
    const heads = async (f: Fauxlab) =>
      ((await get(f, '/repository/branches')) as { name: string; commit: { id: string } }[]).map(
        (b) => `${b.name} ${b.commit.id}`,
      );
    expect(await heads(again)).toEqual(await heads(fx));
    // The generated merge request's source branch is made beside the declared ones.
    expect((await heads(fx)).map((h) => h.split(' ')[0])).toEqual(['copy', 'feature-1', 'master', 'side']);
    const tree = (await get(fx, '/repository/tree?recursive=true')) as { path: string; mode: string }[];
    expect(tree.map((e) => `${e.mode} ${e.path}`)).toEqual([
      '100644 README.md',
      '040000 bin',
      '100755 bin/run',
      '100644 logo.png',
    ]);
    const logo = await get(fx, '/repository/files/logo.png?ref=master');
    expect(logo.content).toBe('AAEC/w==');
    const tags = (await get(again, '/repository/tags')) as {
      name: string;
      message: string;
      target: string;
    }[];
    // Newest commit first: `v0` is at the root, committed at the file's `now`, after `v1`'s commit.
    expect(tags.map((t) => [t.name, t.message])).toEqual([
      ['v0', ''],
      ['v1', 'First release'],
    ]);
    expect(tags).toEqual(await get(fx, '/repository/tags'));
    const commits = (await get(fx, '/repository/commits?ref_name=master')) as { author_name: string }[];
    expect(commits.map((c) => c.author_name)).toEqual(['Alice', 'Alice']);
  });
});

describe('scenario: triggers and environments', () => {
  it('projects[].triggers and environments: served by their endpoints; bad entries are named', async () => {
    const fx = createFauxlab({ scenario: world });
    const get = async (path: string) =>
      (
        await fx.app.request(`/api/v4/projects/acme%2Fapp${path}`, {
          headers: { 'PRIVATE-TOKEN': 'alice-token' },
        })
      ).json();
    expect(await get('/triggers')).toMatchObject([
      {
        description: 'deploy',
        token: 'trigger-secret',
        last_used: '2021-02-28T10:00:00.000Z',
        owner: { username: 'alice' },
      },
      { description: 'made by the loader', token: expect.stringMatching(/^.{4}$/), owner: null },
    ]);
    expect(await get('/environments')).toMatchObject([
      { name: 'production', slug: 'production', state: 'available', tier: 'production' },
      { name: 'review/fix', state: 'stopped', tier: 'development' },
    ]);
    let problems: string[] = [];
    try {
      loadScenario({
        users: [{ username: 'a' }],
        projects: [
          {
            path: 'a/p',
            triggers: [{ description: 'x', owner: 'ghost', token: 'same' }],
            environments: [{ name: '/bad', external_url: 'ftp://x' }, { name: 'ok' }, { name: 'ok' }],
          },
          { path: 'a/q', triggers: [{ description: 'y', token: 'same' }] },
        ],
      });
    } catch (e) {
      problems = e instanceof ScenarioError ? e.problems : [];
    }
    expect(problems).toEqual(
      expect.arrayContaining([
        'projects[0].triggers[0].owner: no user "ghost"',
        'projects[1].triggers[0].token: is listed twice',
        "projects[0].environments[0].name: can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'",
        'projects[0].environments[0].external_url: is blocked: Only allowed schemes are http, https',
        'projects[0].environments[2].name: has already been taken',
      ]),
    );
  });
});

describe('scenario: runners', () => {
  it('runners[]: served by the runners API, with their tokens registering and unregistering as given', async () => {
    const fx = createFauxlab({ scenario: world });
    const get = async (path: string) =>
      (await fx.app.request(`/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': 'root-token' } })).json();
    expect(await get('/runners/all')).toMatchObject([
      { id: 1, description: 'shared', is_shared: true, ip_address: '10.0.0.1', online: true },
      { id: 2, description: null, is_shared: false, active: false, status: 'not_connected' },
      { id: 3, description: 'specific', is_shared: false },
    ]);
    expect(await get('/runners/3')).toMatchObject({
      locked: true,
      run_untagged: false,
      tag_list: ['a', 'b'],
      access_level: 'ref_protected',
      projects: [{ path_with_namespace: 'acme/app' }, { path_with_namespace: 'alice/dotfiles' }],
    });
    expect(await get('/runners/2')).toMatchObject({ maximum_timeout: 3600, groups: [{ name: 'sub' }] });
    const registered = await fx.app.request('/api/v4/runners', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: 'roundtrip-registration' }),
    });
    expect(registered.status).toBe(201);
    const gone = await fx.app.request('/api/v4/runners?token=shared-runner-token-1', { method: 'DELETE' });
    expect(gone.status).toBe(204);
  });

  it('runners[]: a group or project that is not listed, a type without its owner, twice the same token', () => {
    let problems: string[] = [];
    try {
      loadScenario({
        groups: [{ path: 'g' }],
        projects: [{ path: 'g/p' }],
        runners: [
          { type: 'group_type', group: 'nope', token: 'same-token' },
          { type: 'project_type', projects: ['g/p', 'g/q'], token: 'same-token' },
          { type: 'project_type' },
          { group: 'g', run_untagged: false, maximum_timeout: 60 },
        ],
      });
    } catch (e) {
      problems = e instanceof ScenarioError ? e.problems : [];
    }
    expect(problems).toEqual([
      'runners[0].group: no group "nope"',
      'runners[1].projects[1]: no project "g/q"',
      'runners[1].token: is listed twice',
      'runners[2].projects: a project_type runner needs a project',
      'runners[3].group: only a group_type runner has a group',
      'runners[3].tags_list: can not be empty when runner is not allowed to pick untagged jobs',
      'runners[3].maximum_timeout: needs to be at least 10 minutes',
    ]);
  });
});
