/**
 * Client patterns on RE2 (`Gitlab::UntrustedRegexp`): a pattern that makes a backtracking engine run
 * for seconds is answered, with RE2's answer, while other requests are served; patterns RE2 refuses
 * are refused with the platform's messages; RE2's semantics where they differ from JavaScript's.
 */
import { describe, expect, test } from 'vitest';
import type { Fauxlab } from '../../src/index.js';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const P = '/api/v4/projects/g-public%2Fp';
/** 2.4-3.9 s per match on JavaScript's engine against 200 `a`s (the trailing `!` never matches). */
const EXPLODING = '/.{0,33}.{0,33}.{0,33}.{0,33}!/';

function call(fx: Fauxlab, method: string, path: string, token: string, body?: unknown) {
  return fx.app.request(path, {
    method,
    headers: {
      'PRIVATE-TOKEN': token,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

/** `POST /ci/lint?dry_run=true`'s errors and jobs for a configuration. */
async function lint(fx: Fauxlab, content: string): Promise<{ errors: string[]; jobs: string[] }> {
  const res = await call(fx, 'POST', `${P}/ci/lint`, 'maint-api', {
    content,
    dry_run: true,
    include_jobs: true,
  });
  expect(res.status).toBe(200);
  const out = (await res.json()) as { errors: string[]; jobs?: { name: string }[] };
  return { errors: out.errors, jobs: (out.jobs ?? []).map((j) => j.name) };
}

/** A job that runs when `expr` holds, with `X` set to `x`. */
const job = (name: string, expr: string, x = '') =>
  `${name}:\n  script: x\n  variables:\n    X: ${JSON.stringify(x)}\n  rules:\n    - if: ${JSON.stringify(expr)}\n`;

async function commit(
  fx: Fauxlab,
  token: string,
  branch: string,
  message: string,
  files: Record<string, string>,
) {
  return call(fx, 'POST', `${P}/repository/commits`, token, {
    branch,
    commit_message: message,
    actions: Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content })),
  });
}

describe('security: CI patterns on RE2', () => {
  test('POST /ci/lint: the rules-if vector is answered, true past 256 characters, false on 200 `a`s', async () => {
    const fx = reliabilityFx();
    const out = await lint(
      fx,
      job('slow', `$X =~ ${EXPLODING}`, 'a'.repeat(200)) +
        job('long', `$X =~ ${EXPLODING}`, `${'a'.repeat(300)}!`) +
        job('negated', `$X !~ ${EXPLODING}`, 'a'.repeat(200)),
    );
    expect(out).toEqual({ errors: [], jobs: ['long', 'negated'] });
    await expectUnharmed(fx);
  });

  test('POST /projects/:id/pipeline: a maintainer’s exploding pattern on a developer’s pipeline, another user served alongside', async () => {
    const fx = reliabilityFx();
    const ci =
      `hit:\n  script: x\n  rules:\n    - if: '$X =~ ${EXPLODING}'\n` +
      `miss:\n  script: x\n  rules:\n    - if: '$Y =~ ${EXPLODING}'\n`;
    expect((await commit(fx, 'maint-api', 'master', 'CI', { '.gitlab-ci.yml': ci })).status).toBe(201);
    const attack = call(fx, 'POST', `${P}/pipeline`, 'dev-api', {
      ref: 'master',
      variables: [
        { key: 'X', value: `${'a'.repeat(1_000)}!` },
        { key: 'Y', value: 'a'.repeat(200) },
      ],
    });
    const other = call(fx, 'GET', '/api/v4/user', 'rep-api');
    const [created, me] = await Promise.all([attack, other]);
    expect(me.status).toBe(200);
    expect(created.status).toBe(201);
    const id = (await json(created)).id as number;
    const jobs = (await (await call(fx, 'GET', `${P}/pipelines/${id}/jobs`, 'dev-api')).json()) as {
      name: string;
    }[];
    expect(jobs.map((j) => j.name)).toEqual(['hit']);
    await expectUnharmed(fx);
  });

  test('POST /ci/lint: patterns RE2 refuses make the expression or the refs invalid, as the platform says', async () => {
    const fx = reliabilityFx();
    // The platform reports a configuration's first problem only: one configuration each.
    const first = async (content: string) => (await lint(fx, content)).errors;
    expect(await first(job('backref', '$X =~ /(a)\\1/'))).toEqual([
      'jobs:backref:rules:rule if invalid expression syntax',
    ]);
    expect(await first(job('lookahead', '$X =~ /a(?=b)/'))).toEqual([
      'jobs:lookahead:rules:rule if invalid expression syntax',
    ]);
    expect(await first(job('named', '$X =~ /(?<n>a)/'))).toEqual([
      'jobs:named:rules:rule if invalid expression syntax',
    ]);
    // `x` is no flag of `RubySyntax` (`ismU`): the literal ends before it, and `x` is no lexeme.
    expect(await first(job('extended', '$X =~ /a b/x'))).toEqual([
      'jobs:extended:rules:rule if invalid expression syntax',
    ]);
    expect(await first(`refs:\n  script: x\n  only: ['/(?<=a)b/']\n`)).toEqual([
      'jobs:refs:only config should be an array of strings or regular expressions',
    ]);
    expect(await first(`refs:\n  script: x\n  except:\n    refs: ['/a**/']\n`)).toEqual([
      'jobs:refs:except config should be an array of strings or regular expressions',
    ]);
    expect(await lint(fx, `fine:\n  script: x\n  only: ['/^MAS/i', '/^(?P<n>x)/', 'other']\n`)).toEqual({
      errors: [],
      jobs: ['fine'],
    });
    await expectUnharmed(fx);
  });

  test('POST /ci/lint: RE2’s semantics (\\z, \\p{Greek}, \\Q..\\E, (?P<n>), Unicode case folding, an undefined variable as "")', async () => {
    const fx = reliabilityFx();
    const out = await lint(
      fx,
      job('end_of_text', '$X =~ /a\\z/', 'a') +
        job('greek', '$X =~ /^\\p{Greek}+$/', 'αβγ') +
        job('quoted', '$X =~ /^\\Q.*\\E$/', '.*') +
        job('python_named', '$X =~ /^(?P<n>ab)+$/', 'abab') +
        job('kelvin', '$X =~ /k/i', '\u212a') +
        job('dotall', '$X =~ /a.b/s', 'a\nb') +
        job('multiline', '$X =~ /^b$/m', 'a\nb\nc') +
        job('no_multiline', '$X =~ /^b$/', 'a\nb\nc') +
        job('undefined', '$NOPE =~ /^$/'),
    );
    expect(out).toEqual({
      errors: [],
      jobs: ['end_of_text', 'greek', 'quoted', 'python_named', 'kelvin', 'dotall', 'multiline', 'undefined'],
    });
    await expectUnharmed(fx);
  });

  test('POST /ci/lint: a pattern past the program bound is refused before it is compiled', async () => {
    const fx = reliabilityFx();
    // 6,000 instructions as RE2 counts them (`.{0,1000}` is 2,000): past the 5,000 bound.
    const out = await lint(fx, job('big', '$X =~ /.{0,1000}.{0,1000}.{0,1000}/', 'a'));
    expect(out.errors).toEqual(['jobs:big:rules:rule if invalid expression syntax']);
    // 4,000 each: the fifth is past the configuration's 20,000.
    const many = await lint(
      fx,
      [1, 2, 3, 4, 5, 6].map((i) => job(`j${i}`, `$X =~ /${i}.{0,1000}.{0,999}/`, String(i))).join(''),
    );
    expect(many.errors).toEqual(['jobs:j6:rules:rule if invalid expression syntax']);
    await expectUnharmed(fx);
  });
});

describe('security: push rules on RE2', () => {
  const R = `${P}/push_rule`;

  test('a maintainer’s nested-quantifier patterns are saved and run on a developer’s commits, another user served alongside', async () => {
    const fx = reliabilityFx({ tier: 'premium' });
    const saved = await call(fx, 'POST', R, 'maint-api', {
      commit_message_negative_regex: '(x+x+)+y',
      branch_name_regex: '^(a|aa)+$',
    });
    expect(saved.status).toBe(201);
    const commitTo = (branch: string, message: string, file: string, start = 'master') =>
      call(fx, 'POST', `${P}/repository/commits`, 'dev-api', {
        branch,
        ...(start ? { start_branch: start } : {}),
        commit_message: message,
        actions: [{ action: 'create', file_path: file, content: file }],
      });
    // A backtracking engine takes 2^40 steps on the branch name and as many on the message.
    const attack = commitTo(`${'a'.repeat(40)}b`, 'x'.repeat(5_000), 'a.txt');
    const other = call(fx, 'GET', '/api/v4/user', 'rep-api');
    const [refusedBranch, me] = await Promise.all([attack, other]);
    expect(me.status).toBe(200);
    expect(refusedBranch.status).toBe(400);
    expect(await json(refusedBranch)).toEqual({
      message: "Branch name does not follow the pattern '^(a|aa)+$'",
    });
    expect((await commitTo('a'.repeat(40), 'x'.repeat(5_000), 'b.txt')).status).toBe(201);
    const refused = await commitTo('a'.repeat(40), 'xxy', 'c.txt', '');
    expect(refused.status).toBe(400);
    expect(await json(refused)).toEqual({
      message: "Commit message contains the forbidden pattern '(x+x+)+y'",
    });
    await expectUnharmed(fx);
  });

  test('POST /projects/:id/push_rule: patterns RE2 refuses, with RE2’s messages; nothing saved', async () => {
    const fx = reliabilityFx({ tier: 'premium' });
    const res = await call(fx, 'POST', R, 'maint-api', {
      commit_message_regex: 'a(?=b)',
      commit_message_negative_regex: '(?<n>x)',
      branch_name_regex: 'master\\Z',
      author_email_regex: '(a)\\1',
      file_name_regex: '(?<!a)b',
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      message: {
        commit_message_regex: ['not valid RE2 syntax: invalid perl operator: (?='],
        commit_message_negative_regex: ['not valid RE2 syntax: invalid perl operator: (?<'],
        branch_name_regex: ['not valid RE2 syntax: invalid escape sequence: \\Z'],
        author_email_regex: ['not valid RE2 syntax: invalid escape sequence: \\1'],
        file_name_regex: ['not valid RE2 syntax: invalid perl operator: (?<'],
      },
    });
    expect(await json(await call(fx, 'GET', R, 'maint-api'))).toBeNull();
    const py = await call(fx, 'POST', R, 'maint-api', { commit_message_regex: '^(?P<key>[A-Z]+)-\\d+' });
    expect(py.status).toBe(201);
    await expectUnharmed(fx);
  });

  test('commit_message_regex: `^`/`$` at line ends (`multiline: true`), branch_name_regex: at the text’s ends', async () => {
    const fx = reliabilityFx({ tier: 'premium' });
    expect(
      (
        await call(fx, 'POST', R, 'maint-api', {
          commit_message_regex: '^JIRA-\\d+$',
          branch_name_regex: '^f\\z',
        })
      ).status,
    ).toBe(201);
    const ok = await call(fx, 'POST', `${P}/repository/commits`, 'dev-api', {
      branch: 'f',
      start_branch: 'master',
      commit_message: 'Fix the thing\n\nJIRA-12\nmore',
      actions: [{ action: 'create', file_path: 'c.txt', content: 'c' }],
    });
    expect(ok.status).toBe(201);
    await expectUnharmed(fx);
  });
});

describe('security: wildcards on RE2', () => {
  test('a protected branch of many `*`s against a long branch name: answered (the name is not protected)', async () => {
    const fx = reliabilityFx();
    const name = `${'*a'.repeat(30)}*b`;
    expect((await call(fx, 'POST', `${P}/protected_branches`, 'maint-api', { name })).status).toBe(201);
    const branch = 'a'.repeat(200);
    const created = await call(fx, 'POST', `${P}/repository/branches`, 'dev-api', { branch, ref: 'master' });
    expect(created.status).toBe(201);
    const protectedOne = await call(fx, 'POST', `${P}/repository/branches`, 'dev-api', {
      branch: `${'a'.repeat(30)}b`,
      ref: 'master',
    });
    expect(protectedOne.status).toBe(201);
    const pb = (await (
      await call(fx, 'GET', `${P}/repository/branches/${'a'.repeat(30)}b`, 'dev-api')
    ).json()) as {
      protected: boolean;
    };
    expect(pb.protected).toBe(true);
    await expectUnharmed(fx);
  });
});
