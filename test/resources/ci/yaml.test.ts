import { describe, expect, it } from 'vitest';
import { body, call } from './world.js';
import { createFauxlab } from '../../../src/index.js';
import { MAIN_CI, YAML_PROJECT, yamlFx, yamlWorld } from './yaml-world.js';

type Fx = ReturnType<typeof yamlFx>;
type Job = { name: string; stage: string; status: string; allow_failure: boolean };

const create = (fx: Fx, ref: string, variables?: { key: string; value: string }[]) =>
  call(fx, 'POST', `${YAML_PROJECT}/pipeline`, 'dev', { ref, ...(variables && { variables }) });

async function jobsOf(fx: Fx, id: number): Promise<Job[]> {
  return (await body(
    await call(fx, 'GET', `${YAML_PROJECT}/pipelines/${id}/jobs?per_page=100`, 'dev'),
  )) as Job[];
}
const names = (jobs: Job[]) => jobs.map((j) => j.name).sort();

describe('.gitlab-ci.yml: the jobs of a new pipeline', () => {
  it('POST /projects/:id/pipeline: jobs from the file at the ref (includes, extends, rules, except)', async () => {
    const fx = yamlFx();
    const res = await create(fx, 'master');
    expect(res.status).toBe(201);
    const pl = await body(res);
    const jobs = await jobsOf(fx, pl.id);
    expect(names(jobs)).toEqual(['compile', 'deploy', 'docs', 'lint', 'unit']);
    const byName = Object.fromEntries(jobs.map((j) => [j.name, j]));
    expect(byName.compile).toMatchObject({ stage: 'build', status: 'pending' });
    expect(byName.unit).toMatchObject({ stage: 'test', status: 'created', allow_failure: true });
    // `rules: when: manual` makes the job manual, allowed to fail.
    expect(byName.deploy).toMatchObject({ stage: 'deploy', allow_failure: true });
  });

  it('POST /projects/:id/pipeline: only/except and rules follow the ref: a feature branch and a tag', async () => {
    const fx = yamlFx();
    const feature = await body(await create(fx, 'feature/x'));
    expect(names(await jobsOf(fx, feature.id))).toEqual(['compile', 'docs', 'unit']);
    const tag = await body(await create(fx, 'v2.0'));
    expect(names(await jobsOf(fx, tag.id))).toEqual(['compile', 'docs', 'lint', 'release', 'unit']);
  });

  it('POST /projects/:id/pipeline: pipeline variables reach `rules: if:`', async () => {
    const fx = yamlFx();
    const pl = await body(await create(fx, 'feature/x', [{ key: 'FORCE_DEPLOY', value: 'yes' }]));
    const deploy = (await jobsOf(fx, pl.id)).find((j) => j.name === 'deploy');
    expect(deploy).toMatchObject({ stage: 'deploy', allow_failure: false });
  });

  it('POST /projects/:id/pipeline: a job the project ran before keeps its outcome, length and log', async () => {
    const fx = yamlFx();
    const pl = await body(await create(fx, 'master'));
    fx.clock.advance(60_000);
    const unit = (await jobsOf(fx, pl.id)).find((j) => j.name === 'unit')!;
    expect(unit.status).toBe('failed');
    const id = (unit as unknown as { id: number }).id;
    const trace = await (await call(fx, 'GET', `${YAML_PROJECT}/jobs/${id}/trace`, 'dev')).text();
    expect(trace).toContain('1 failure');
    const compile = (await jobsOf(fx, pl.id)).find((j) => j.name === 'compile')!;
    expect(compile.status).toBe('success');
  });

  it('POST /projects/:id/pipeline: a job that starts an environment deploys there', async () => {
    const fx = yamlFx();
    const pl = await body(await create(fx, 'master'));
    fx.clock.advance(3_600_000);
    const deployments = await body(await call(fx, 'GET', `${YAML_PROJECT}/deployments`, 'dev'));
    const mine = deployments.filter(
      (d: { deployable: { pipeline: { id: number } } }) => d.deployable.pipeline.id === pl.id,
    );
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ environment: { name: 'production' }, deployable: { name: 'deploy' } });
  });

  it('POST /projects/:id/pipeline: 400 with the first configuration error, and nothing is created', async () => {
    const fx = yamlFx();
    const before = (await body(await call(fx, 'GET', `${YAML_PROJECT}/pipelines`, 'dev'))).length;
    const broken = await create(fx, 'broken');
    expect(broken.status).toBe(400);
    expect(await body(broken)).toEqual({
      message: { base: ['jobs build config should implement a script: or a trigger: keyword'] },
    });
    expect(await body(await create(fx, 'badstage'))).toEqual({
      message: {
        base: ['unit job: chosen stage does not exist; available stages are .pre, build, .post'],
      },
    });
    expect((await body(await call(fx, 'GET', `${YAML_PROJECT}/pipelines`, 'dev'))).length).toBe(before);
  });

  it('POST /projects/:id/pipeline: 400 No stages / jobs for this pipeline when no job is selected', async () => {
    const fx = yamlFx();
    const res = await create(fx, 'nothing');
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({ message: { base: ['No stages / jobs for this pipeline.'] } });
  });

  it('POST /projects/:id/pipeline: a project without the file keeps the default build, test and deploy jobs', async () => {
    const fx = yamlFx();
    const pl = await body(
      await call(fx, 'POST', '/api/v4/projects/acme%2Fapp/pipeline', 'dev', { ref: 'master' }),
    );
    const jobs = await body(
      await call(fx, 'GET', `/api/v4/projects/acme%2Fapp/pipelines/${pl.id}/jobs`, 'dev'),
    );
    expect(jobs.map((j: Job) => j.name).sort()).toEqual(['build', 'deploy', 'test']);
  });
});

describe('POST /ci/lint', () => {
  const lint = (fx: Fx, content: string, extra: Record<string, unknown> = {}, token?: string) =>
    call(fx, 'POST', '/api/v4/ci/lint', token, { content, ...extra });

  it('POST /ci/lint: valid content, with the merged YAML when asked', async () => {
    const fx = yamlFx();
    const res = await lint(fx, 'build:\n  script: make\n', { include_merged_yaml: true });
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual({
      status: 'valid',
      errors: [],
      warnings: [],
      merged_yaml: '---\nbuild:\n  script: make\n',
    });
  });

  it('POST /ci/lint: the merged YAML resolves extends (keeping the key) and wraps stages in .pre and .post', async () => {
    const fx = yamlFx();
    const content = 'stages: [build]\n.b:\n  image: x\nj:\n  extends: .b\n  stage: build\n  script: y\n';
    const out = await body(await lint(fx, content, { include_merged_yaml: true }));
    expect(out.status).toBe('valid');
    expect(out.merged_yaml).toBe(
      '---\nstages:\n- .pre\n- build\n- .post\n.b:\n  image: x\nj:\n  image: x\n  extends: .b\n  stage: build\n  script: y\n',
    );
  });

  it('POST /ci/lint: the platform messages of common mistakes', async () => {
    const fx = yamlFx();
    const errors = async (content: string) => (await body(await lint(fx, content))).errors;
    expect(await errors('rubocop:\n  scriptt: [x]\n')).toEqual([
      'jobs rubocop config should implement a script: or a trigger: keyword',
      'jobs config should contain at least one visible job',
    ]);
    expect(await errors('build_job:\n  script: x\n  foo: 1\n')).toEqual([
      'jobs:build_job config contains unknown keys: foo',
    ]);
    expect(await errors('build:\n  script: ""\n')).toEqual(["jobs:build script can't be blank"]);
    expect(await errors('stages: build\nbuild:\n  script: x\n')).toEqual([
      'stages config should be an array of strings',
    ]);
    expect(await errors('- a\n- b\n')).toEqual(['Invalid configuration format']);
    expect(await errors('build:\n  script: x\n  when: later\n')).toEqual([
      'jobs:build when should be one of: on_success, on_failure, always, manual, delayed',
    ]);
    expect(await errors('build:\n  script: x\n  stage: verify\n')).toEqual([
      'build job: chosen stage does not exist; available stages are .pre, build, test, deploy, .post',
    ]);
    expect(
      await errors('a:\n  stage: build\n  script: x\n  needs: [b]\nb:\n  stage: test\n  script: x\n'),
    ).toEqual(['a job: need b is not defined in prior stages']);
    expect(await errors('a:\n  script: x\n  rules: [{if: "$X"}]\n  only: [master]\n')).toEqual([
      'jobs:a config key may not be used with `rules`: only',
    ]);
    expect((await errors('build:\n  script: [x\n'))[0]).toMatch(/^\(<unknown>\): /);
  });

  it('POST /ci/lint: a trailing `rules: when` warns; includes: remote refused, local needs a project, templates vendored', async () => {
    const fx = yamlFx();
    const warned = await body(await lint(fx, 'rspec:\n  script: rspec\n  rules:\n    - when: always\n'));
    expect(warned).toMatchObject({ status: 'valid', errors: [] });
    expect(warned.warnings[0]).toMatch(/^jobs:rspec may allow multiple pipelines to run for a single action/);
    expect((await body(await lint(fx, 'include: https://example.com/ci.yml\n'))).errors).toEqual([
      'Remote file `https://example.com/ci.yml` could not be fetched because of a socket error!',
    ]);
    expect((await body(await lint(fx, 'include: ci/extra.yml\n'))).errors).toEqual([
      'Local file `ci/extra.yml` does not have project!',
    ]);
    const project = call(fx, 'POST', `${YAML_PROJECT}/ci/lint`, 'dev', { content: 'include: ci/none.yml\n' });
    expect((await body(await project)).errors).toEqual(['Local file `ci/none.yml` does not exist!']);
    expect((await body(await lint(fx, 'include: ci/extra\n'))).errors).toEqual([
      'Included file `ci/extra` does not have YAML extension!',
    ]);
    expect((await body(await lint(fx, 'include:\n  template: Nope.gitlab-ci.yml\n'))).errors).toEqual([
      'Included file `Nope.gitlab-ci.yml` is empty or does not exist!',
    ]);
    const tpl = await body(await lint(fx, 'include:\n  - template: Bash.gitlab-ci.yml\n'));
    expect(tpl).toMatchObject({ status: 'valid', errors: [] });
  });

  it('POST /ci/lint: bounded input: aliases, depth and size', async () => {
    const fx = yamlFx();
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 12; i++)
      bomb.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(',')}]`,
      );
    expect((await body(await lint(fx, bomb.join('\n')))).status).toBe('invalid');
    // A megabyte of brackets or of compact sequences is refused before parsing, at once.
    expect((await body(await lint(fx, `x: ${'['.repeat(1_000_000)}`))).errors).toEqual([
      'The parsed YAML is too deep',
    ]);
    expect((await body(await lint(fx, `${'- '.repeat(300_000)}x`))).errors).toEqual([
      'The parsed YAML is too deep',
    ]);
    const deep = `${'['.repeat(150)}${']'.repeat(150)}`;
    expect((await body(await lint(fx, `x: ${deep}`))).errors).toEqual(['The parsed YAML is too deep']);
    expect((await body(await lint(fx, `x: "${'a'.repeat(1024 * 1024)}"`))).errors).toEqual([
      'The parsed YAML is too big',
    ]);
  });

  it('POST /ci/lint: a pattern that could backtrack matches nothing, and answers at once', async () => {
    const fx = yamlFx();
    const res = await lint(fx, `a:\n  script: x\n  rules:\n    - if: '$CI_COMMIT_REF_NAME =~ /(a+)+$/'\n`);
    expect((await body(res)).status).toBe('valid');
  });

  it('POST /ci/lint: anonymous callers lint while sign-up is open, and get a 401 when it is closed', async () => {
    expect((await lint(yamlFx(), 'a:\n  script: x\n')).status).toBe(200);
    const closed = createFauxlab({ scenario: { ...yamlWorld, settings: { signup_enabled: false } } });
    const res = await call(closed, 'POST', '/api/v4/ci/lint', undefined, { content: 'a:\n  script: x\n' });
    expect(res.status).toBe(401);
    expect(
      (await call(closed, 'POST', '/api/v4/ci/lint', 'dev', { content: 'a:\n  script: x\n' })).status,
    ).toBe(200);
  });

  it('POST /ci/lint: 400 without content', async () => {
    const fx = yamlFx();
    const res = await call(fx, 'POST', '/api/v4/ci/lint', 'dev', {});
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({ error: 'content is missing' });
  });
});

describe('project CI lint', () => {
  it('GET /projects/:id/ci/lint: the file of the default branch, its merged YAML and, when asked, its jobs', async () => {
    const fx = yamlFx();
    const res = await call(fx, 'GET', `${YAML_PROJECT}/ci/lint?include_jobs=true`, 'rep');
    expect(res.status).toBe(200);
    const out = await body(res);
    expect(out).toMatchObject({ valid: true, errors: [], warnings: [] });
    expect(out.merged_yaml).toContain('docs:');
    expect(out.merged_yaml).not.toContain('include:');
    // Stage by stage; within one, included jobs first (the file is merged over its includes).
    expect(out.jobs.map((j: { name: string }) => j.name)).toEqual([
      'compile',
      'docs',
      'unit',
      'lint',
      'deploy',
      'release',
    ]);
    expect(out.jobs[0]).toEqual({
      name: 'compile',
      stage: 'build',
      before_script: ['echo base'],
      script: ['make'],
      after_script: [],
      tag_list: [],
      only: { refs: ['branches', 'tags'] },
      except: null,
      environment: null,
      when: 'on_success',
      allow_failure: false,
      needs: null,
    });
  });

  it('GET /projects/:id/ci/lint?dry_run=true: the jobs a push to the default branch would run', async () => {
    const fx = yamlFx();
    const out = await body(
      await call(fx, 'GET', `${YAML_PROJECT}/ci/lint?dry_run=true&include_jobs=true`, 'rep'),
    );
    expect(out.valid).toBe(true);
    // The deploy rule wants an API pipeline: a push does not get it.
    expect(out.jobs.map((j: { name: string }) => j.name)).toEqual(['compile', 'docs', 'unit', 'lint']);
  });

  it('POST /projects/:id/ci/lint: content as the project reads it (local includes from its repository)', async () => {
    const fx = yamlFx();
    const out = await body(
      await call(fx, 'POST', `${YAML_PROJECT}/ci/lint`, 'dev', { content: 'include: ci/extra.yml\n' }),
    );
    expect(out).toEqual({
      valid: true,
      errors: [],
      warnings: [],
      merged_yaml: expect.stringContaining('make docs'),
    });
    const empty = await body(await call(fx, 'POST', `${YAML_PROJECT}/ci/lint`, 'dev', { content: '' }));
    expect(empty).toEqual({
      valid: false,
      errors: ['Please provide content of .gitlab-ci.yml'],
      warnings: [],
      merged_yaml: null,
    });
    expect(
      (await body(await call(fx, 'POST', `${YAML_PROJECT}/ci/lint`, 'dev', { content: MAIN_CI }))).valid,
    ).toBe(true);
  });

  it('project CI lint: 401 anonymous, 404 non-members of a private project, 403 below the ability', async () => {
    const fx = yamlFx();
    expect((await call(fx, 'GET', `${YAML_PROJECT}/ci/lint`)).status).toBe(401);
    expect((await call(fx, 'GET', `${YAML_PROJECT}/ci/lint`, 'outsider')).status).toBe(404);
    expect((await call(fx, 'GET', `${YAML_PROJECT}/ci/lint`, 'guest')).status).toBe(403);
    expect((await call(fx, 'POST', `${YAML_PROJECT}/ci/lint`, 'rep', { content: 'a: 1' })).status).toBe(403);
    expect((await call(fx, 'POST', `${YAML_PROJECT}/ci/lint`, 'dev', {})).status).toBe(400);
  });
});

describe('.gitlab-ci.yml: pipeline sources and project deletion', () => {
  it('POST /projects/:id/trigger/pipeline: $CI_PIPELINE_SOURCE is trigger, so the API-only rule does not hold', async () => {
    const fx = yamlFx();
    const t = await body(await call(fx, 'POST', `${YAML_PROJECT}/triggers`, 'maint', { description: 'ci' }));
    const res = await fx.app.request(`${YAML_PROJECT}/trigger/pipeline`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `token=${t.token}&ref=master`,
    });
    expect(res.status).toBe(201);
    const jobs = await jobsOf(fx, (await body(res)).id);
    expect(names(jobs)).toEqual(['compile', 'docs', 'lint', 'unit']);
  });
});

describe('.gitlab-ci.yml: workflow rules', () => {
  const WORKFLOW = `workflow:
  rules:
    - if: '$CI_COMMIT_TAG'
      when: never
    - if: '$CI_PIPELINE_SOURCE == "api"'
build:
  script: make
`;

  it('POST /projects/:id/ci/lint?dry_run=true: a push is filtered out by workflow rules', async () => {
    const fx = yamlFx();
    const out = await body(
      await call(fx, 'POST', `${YAML_PROJECT}/ci/lint`, 'dev', { content: WORKFLOW, dry_run: true }),
    );
    expect(out).toMatchObject({ valid: false, errors: ['Pipeline filtered out by workflow rules.'] });
    const stat = await body(await call(fx, 'POST', `${YAML_PROJECT}/ci/lint`, 'dev', { content: WORKFLOW }));
    expect(stat).toMatchObject({ valid: true, errors: [] });
    const bad = await body(
      await call(fx, 'POST', '/api/v4/ci/lint', 'dev', {
        content: 'workflow:\n  rules: []\n  when: x\nb:\n  script: x\n',
      }),
    );
    expect(bad.errors).toEqual(['workflow config contains unknown keys: when']);
  });
});

describe('.gitlab-ci.yml: needs', () => {
  it('POST /projects/:id/ci/lint?dry_run=true: a need left out of the pipeline refuses it, unless optional', async () => {
    const fx = yamlFx();
    const lint = async (content: string) =>
      body(await call(fx, 'POST', `${YAML_PROJECT}/ci/lint`, 'dev', { content, dry_run: true }));
    const base = `build:
  stage: build
  script: x
  rules:
    - if: '$CI_COMMIT_TAG'
test:
  stage: test
  script: x
`;
    expect((await lint(`${base}  needs: [build]\n`)).errors).toEqual([
      "'test' job needs 'build' job, but it was not added to the pipeline",
    ]);
    expect(await lint(`${base}  needs: [{job: build, optional: true}]\n`)).toMatchObject({ valid: true });
    const noStage = await body(
      await call(fx, 'POST', '/api/v4/ci/lint', 'dev', {
        content: 'a:\n  script: x\nb:\n  script: x\n  needs: [a]\n',
      }),
    );
    expect(noStage.errors).toEqual(['jobs:b config missing required keys: stage']);
  });
});

describe('.gitlab-ci.yml: rules exists', () => {
  it('POST /projects/:id/ci/lint?dry_run=true: `exists` globs match the default branch files', async () => {
    const fx = yamlFx();
    const content = `a:
  script: x
  rules:
    - exists: ['ci/*.yml']
b:
  script: x
  rules:
    - exists: ['**/*.{md,txt}']
c:
  script: x
  rules:
    - exists: '.gitlab-ci.yml'
d:
  script: x
  rules:
    - exists: ['ci/[a-e]xtra.yml']
`;
    const out = await body(
      await call(fx, 'POST', `${YAML_PROJECT}/ci/lint`, 'dev', {
        content,
        dry_run: true,
        include_jobs: true,
      }),
    );
    expect(out.jobs.map((j: { name: string }) => j.name)).toEqual(['a', 'c', 'd']);
  });
});

describe('.gitlab-ci.yml: expressions', () => {
  it('POST /projects/:id/ci/lint?dry_run=true: operators, parentheses, patterns and a pattern on the wrong side', async () => {
    const fx = yamlFx();
    const job = (name: string, expr: string) => `${name}:\n  script: x\n  rules:\n    - if: '${expr}'\n`;
    const content = [
      job('eq', '$CI_COMMIT_BRANCH == "master"'),
      job('ne', '$CI_COMMIT_BRANCH != "master"'),
      job('re', '$CI_COMMIT_REF_NAME =~ /^MAS/i'),
      job('nre', '$CI_COMMIT_REF_NAME !~ /^mas/'),
      job('and_or', '($CI_COMMIT_TAG || $CI_PIPELINE_SOURCE == "push") && $CI_COMMIT_BRANCH'),
      job('nul', '$CI_COMMIT_TAG == null'),
      job('wrong_side', '/master/ =~ $CI_COMMIT_BRANCH'),
      job('four_stars', '$CI_COMMIT_BRANCH =~ /.*.*.*.*r/'),
    ].join('');
    const out = await body(
      await call(fx, 'POST', `${YAML_PROJECT}/ci/lint`, 'dev', {
        content,
        dry_run: true,
        include_jobs: true,
      }),
    );
    // `.*.*.*.*r` is RE2 and matches `master` (linear time whatever the pattern).
    expect(out.jobs.map((j: { name: string }) => j.name)).toEqual([
      'eq',
      're',
      'and_or',
      'nul',
      'four_stars',
    ]);
  });
});
