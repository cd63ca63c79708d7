import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFauxlab } from '../../src/app.js';
import { loadScenario, ScenarioError, type ScenarioFile } from '../../src/scenario/index.js';

const dir = mkdtempSync(join(tmpdir(), 'fauxlab-scenario-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The ScenarioError a load throws; fails the test if it loads. */
function problems(input: string | ScenarioFile): ScenarioError {
  try {
    loadScenario(input);
  } catch (e) {
    expect(e).toBeInstanceOf(ScenarioError);
    return e as ScenarioError;
  }
  throw new Error('the scenario loaded');
}

const badScopes = {
  users: [
    { username: 'root', tokens: [{ token: 'a' }] },
    { username: 'alice' },
    { username: 'bob', tokens: [{ token: 'b', scopes: [] }] },
  ],
};

describe('scenario files: errors name the file and the field path', () => {
  it('JSON: users[2].tokens[0].scopes names the field and the file', () => {
    const path = file('bad.json', JSON.stringify(badScopes));
    const e = problems(path);
    expect(e.file).toBe(path);
    expect(e.message.startsWith(`${path}: invalid scenario\n`)).toBe(true);
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0]).toMatch(/^users\[2\]\.tokens\[0\]\.scopes: /);
  });

  it('YAML: the same error carries the same path', () => {
    const path = file(
      'bad.yaml',
      [
        'users:',
        '  - username: root',
        '    tokens: [{ token: a }]',
        '  - username: alice',
        '  - username: bob',
        '    tokens:',
        '      - token: b',
        '        scopes: []',
        '',
      ].join('\n'),
    );
    const e = problems(path);
    expect(e.message).toContain(path);
    expect(e.problems[0]).toMatch(/^users\[2\]\.tokens\[0\]\.scopes: /);
  });

  it('.yml files are read as YAML too', () => {
    const path = file('ok.yml', 'users:\n  - username: root\n');
    expect(loadScenario(path).users[0]!.username).toBe('root');
  });

  it('an unknown scope names the array element', () => {
    const e = problems({
      users: [{ username: 'root', tokens: [{ token: 'a', scopes: ['api', 'write_everything'] }] }],
    } as unknown as ScenarioFile);
    expect(e.problems).toEqual([expect.stringMatching(/^users\[0\]\.tokens\[0\]\.scopes\[1\]: .*read_api/)]);
  });

  it('every problem is listed, each with its own path', () => {
    const e = problems({
      tier: 'gold',
      users: [{ username: 'bad name!' }, { username: 'ok', email: 'not-an-email', state: 'sleeping' }],
    } as unknown as ScenarioFile);
    const paths = e.problems.map((p) => p.slice(0, p.indexOf(':')));
    expect(paths.sort()).toEqual(['tier', 'users[0].username', 'users[1].email', 'users[1].state']);
    expect(e.problems.find((p) => p.startsWith('users[0].username'))).toBe(
      'users[0].username: may contain only letters, digits, _, - and .',
    );
  });

  it('an unknown key is reported at its parent, naming the key', () => {
    const e = problems({ userz: [] } as unknown as ScenarioFile);
    expect(e.problems).toEqual([expect.stringMatching(/^\(root\): .*"userz"/)]);
    const t = problems({
      users: [{ username: 'a', tokens: [{ token: 'x', scope: ['api'] }] }],
    } as unknown as ScenarioFile);
    expect(t.problems).toEqual([expect.stringMatching(/^users\[0\]\.tokens\[0\]: .*"scope"/)]);
  });

  it('a bad access level says which values are allowed', () => {
    const e = problems({
      users: [{ username: 'a' }],
      groups: [{ path: 'g', members: [{ username: 'a', access_level: 'admin' }] }],
    } as unknown as ScenarioFile);
    expect(e.problems).toEqual([
      'groups[0].members[0].access_level: must be 10, 20, 30, 40, 50, guest, reporter, developer, maintainer or owner',
    ]);
  });

  it('access levels may be names or numbers', () => {
    const s = loadScenario({
      users: [{ username: 'a' }, { username: 'b' }],
      groups: [
        {
          path: 'g',
          members: [
            { username: 'a', access_level: 'maintainer' },
            { username: 'b', access_level: 20 },
          ],
        },
      ],
    });
    expect(s.groups[0]!.members.map((m) => m.access_level)).toEqual([40, 20]);
  });

  it('bad times and dates name their fields', () => {
    const e = problems({
      now: 'yesterday',
      users: [{ username: 'a', tokens: [{ token: 't', expires_at: '2021/01/01' }] }],
    });
    expect(e.problems).toEqual([
      'now: must be an ISO 8601 time',
      'users[0].tokens[0].expires_at: must be a YYYY-MM-DD date',
    ]);
  });

  it('a YAML syntax error names the file, says YAML and where', () => {
    const path = file('broken.yaml', 'users:\n  - username: root\n   bad: [\n');
    const e = problems(path);
    expect(e.message).toContain(path);
    expect(e.problems[0]).toMatch(/^not valid YAML: .*line \d+/s);
  });

  it('a JSON syntax error names the file and says JSON', () => {
    const path = file('broken.json', '{"users": [');
    const e = problems(path);
    expect(e.message).toContain(path);
    expect(e.problems[0]).toMatch(/^not valid JSON: /);
  });

  it('a missing file says so, with its name', () => {
    const path = join(dir, 'nope.yaml');
    const e = problems(path);
    expect(e.message).toBe(`${path}: invalid scenario\n  no such file`);
  });

  it('an empty YAML file is an empty world', () => {
    const s = loadScenario(file('empty.yaml', ''));
    expect(s.users).toEqual([]);
    expect(s.tier).toBe('free');
  });

  it('a scenario object is named (scenario) in errors', () => {
    expect(
      problems(badScopes).message.startsWith('(scenario): invalid scenario\n  users[2].tokens[0].scopes: '),
    ).toBe(true);
  });

  it('createFauxlab refuses a bad scenario file with the same error', () => {
    const path = file('bad2.json', JSON.stringify(badScopes));
    expect(() => createFauxlab({ scenario: path })).toThrow(ScenarioError);
    expect(() => createFauxlab({ scenario: path })).toThrow(`${path}: invalid scenario`);
  });
});

describe('scenario cross-references', () => {
  const users = [{ username: 'root', admin: true }, { username: 'alice' }];

  it('a group member that is not a user names the member', () => {
    const e = problems({
      users,
      groups: [
        {
          path: 'g',
          members: [
            { username: 'alice', access_level: 30 },
            { username: 'zed', access_level: 30 },
          ],
        },
      ],
    });
    expect(e.problems).toEqual(['groups[0].members[1].username: no user "zed"']);
  });

  it('usernames match case-insensitively, as on the platform', () => {
    expect(() =>
      loadScenario({ users, groups: [{ path: 'g', members: [{ username: 'ALICE', access_level: 30 }] }] }),
    ).not.toThrow();
  });

  it('a subgroup whose parent is missing (or listed later) names the parent', () => {
    const e = problems({ users, groups: [{ path: 'a/b' }, { path: 'a' }] });
    expect(e.problems).toEqual(['groups[0].path: parent group "a" must be listed before "a/b"']);
  });

  it('a group path taken by a user or another group', () => {
    const e = problems({ users, groups: [{ path: 'g' }, { path: 'G' }, { path: 'alice' }] });
    expect(e.problems).toEqual([
      'groups[1].path: "G" is already taken',
      'groups[2].path: "alice" is already taken',
    ]);
  });

  it('a project in an unknown namespace', () => {
    const e = problems({ users, projects: [{ path: 'nobody/p' }] });
    expect(e.problems).toEqual(['projects[0].path: no group or user "nobody"']);
  });

  it('project members, creators and stars must be users', () => {
    const e = problems({
      users,
      projects: [
        {
          path: 'alice/p',
          creator: 'ghost',
          members: [{ username: 'ghost2', access_level: 30 }],
          starred_by: ['alice', 'ghost3'],
        },
      ],
    });
    expect(e.problems).toEqual([
      'projects[0].creator: no user "ghost"',
      'projects[0].members[0].username: no user "ghost2"',
      'projects[0].starred_by[1]: no user "ghost3"',
    ]);
  });

  it('a member listed twice', () => {
    const e = problems({
      users,
      groups: [
        {
          path: 'g',
          members: [
            { username: 'alice', access_level: 30 },
            { username: 'Alice', access_level: 40 },
          ],
        },
      ],
      projects: [
        {
          path: 'g/p',
          members: [
            { username: 'root', access_level: 30 },
            { username: 'root', access_level: 40 },
          ],
        },
      ],
    });
    expect(e.problems).toEqual([
      'groups[0].members[1].username: "Alice" is listed twice',
      'projects[0].members[1].username: "root" is listed twice',
    ]);
  });

  it('duplicate usernames, e-mails, tokens, projects and feature flags', () => {
    const e = problems({
      users: [
        { username: 'a', email: 'same@example.com', tokens: [{ token: 't' }] },
        { username: 'A' },
        { username: 'b', email: 'SAME@example.com', tokens: [{ token: 't' }] },
      ],
      projects: [{ path: 'a/p' }, { path: 'a/P' }],
      features: [{ name: 'f' }, { name: 'f' }],
    });
    expect(e.problems).toEqual([
      'users[1].username: "A" is used twice',
      'users[2].email: "same@example.com" is used twice',
      'users[2].tokens[0].token: the same token is given twice',
      'features[1].name: "f" is listed twice',
      'projects[1].path: "a/P" is used twice',
    ]);
  });

  it('generated projects need a user or a group to own them', () => {
    const e = problems({ generate: { projects: 3 } });
    expect(e.problems).toEqual([
      'generate.projects: projects need an owner: give users or groups (or generate.users)',
    ]);
    expect(() => loadScenario({ generate: { projects: 3, users: 1 } })).not.toThrow();
    expect(() => loadScenario({ users, generate: { projects: 3 } })).not.toThrow();
  });

  it('generate counts must be whole and not negative', () => {
    const e = problems({ generate: { users: -1, groups: 1.5 } });
    expect(e.problems.map((p) => p.slice(0, p.indexOf(':')))).toEqual(['generate.users', 'generate.groups']);
  });

  it('issues_per_project is accepted (and validated) though issues are not generated yet', () => {
    expect(loadScenario({ generate: { issues_per_project: 5 } }).generate?.issues_per_project).toBe(5);
    expect(
      problems({ generate: { issues_per_project: 'many' } } as unknown as ScenarioFile).problems[0],
    ).toMatch(/^generate\.issues_per_project: /);
  });
});
