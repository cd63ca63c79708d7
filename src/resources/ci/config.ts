/**
 * `.gitlab-ci.yml`, as far as fauxlab reads it (docs/behaviour.md lists the subset): loading with the
 * platform's bounds, `include:` (local files, vendored templates; remote and project includes refused),
 * `extends:`, the checks of `Gitlab::Ci::Config::Entry` with their messages for the keys it knows,
 * `YamlProcessor`'s stage and needs checks, and the jobs a pipeline gets from it.
 *
 * Messages are the platform's: an entry's error is its location and the humanised attribute, all
 * lower-cased (`jobs:build config contains unknown keys: scriptt`); the jobs entry's own errors name the
 * job humanised (`jobs build config should implement a script: or a trigger: keyword`).
 */
import {
  matchesRubySyntax,
  RegexpBudget,
  REQUEST_PROGRAM,
  tryFabricate,
} from '../../core/untrusted-regexp.js';
import {
  ExpressionError,
  existsMatches,
  parseExpression,
  policyMatches,
  type PipelineFacts,
  type Policy,
  MERGE_REQUEST_EVENT,
} from './config-expr.js';
import {
  isHash,
  load,
  LoadError,
  plain,
  RESERVED,
  resolveExtends,
  show,
  withEdgeStages,
  withIncludes,
  yaml,
  YAML_LIMITS,
  type IncludeSource,
  type Json,
} from './config-load.js';

export { YAML_LIMITS, type IncludeSource } from './config-load.js';

/** `Entry::Job::ALLOWED_KEYS` with `PROCESSABLE_ALLOWED_KEYS`, as of 13.12. */
const JOB_KEYS = new Set([
  'tags',
  'script',
  'type',
  'image',
  'services',
  'start_in',
  'artifacts',
  'cache',
  'dependencies',
  'before_script',
  'after_script',
  'environment',
  'coverage',
  'retry',
  'parallel',
  'interruptible',
  'timeout',
  'resource_group',
  'release',
  'secrets',
  'extends',
  'stage',
  'only',
  'except',
  'rules',
  'variables',
  'inherit',
  'allow_failure',
  'when',
  'needs',
]);
const BRIDGE_KEYS = new Set([
  'trigger',
  'extends',
  'stage',
  'only',
  'except',
  'rules',
  'variables',
  'inherit',
  'allow_failure',
  'when',
  'needs',
  'resource_group',
]);
const ALLOWED_WHEN = ['on_success', 'on_failure', 'always', 'manual', 'delayed'];
const RULE_KEYS = new Set(['if', 'changes', 'exists', 'when', 'start_in', 'allow_failure']);
const RULE_WHEN = ['on_success', 'on_failure', 'always', 'never', 'manual', 'delayed'];
const ENVIRONMENT_KEYS = new Set([
  'name',
  'url',
  'action',
  'on_stop',
  'auto_stop_in',
  'kubernetes',
  'deployment_tier',
]);
const ENVIRONMENT_ACTIONS = ['start', 'stop', 'prepare'];
const DEFAULT_STAGES = ['build', 'test', 'deploy'];
const MULTIPLE_PIPELINES_WARNING =
  'may allow multiple pipelines to run for a single action due to `rules:when` clause with no `workflow:rules` - read more: https://docs.gitlab.com/ee/ci/troubleshooting.html#pipeline-warnings';

export type JobWhen = 'on_success' | 'on_failure' | 'always' | 'manual' | 'delayed';

export interface CiRule {
  if?: (vars: ReadonlyMap<string, string>) => boolean;
  /** `exists:` globs, matched against the commit's files. */
  exists?: string[];
  when?: string;
  allow_failure?: boolean;
}

export interface CiEnvironment {
  name: string;
  url: string | null;
  action: string;
}

/** One visible job of a valid configuration. */
export interface CiJob {
  name: string;
  stage: string;
  when: JobWhen;
  /** `allow_failure` as written (a hash of exit codes counts as not allowed), or undefined. */
  allow_failure?: boolean;
  only?: Policy;
  except?: Policy;
  rules?: CiRule[];
  needs: string[];
  /** The needs marked `optional: true`: a job left out of the pipeline does not refuse it. */
  optionalNeeds: string[];
  environment: CiEnvironment | null;
  variables: Record<string, string>;
  script: string[];
  before_script: string[];
  after_script: string[];
  tags: string[];
}

export interface CiConfig {
  /** Every stage, `.pre` first and `.post` last. */
  stages: string[];
  variables: Record<string, string>;
  jobs: CiJob[];
  hasWorkflowRules: boolean;
  /** `workflow: rules:`: the first that holds lets the pipeline be made (`when: never` refuses it). */
  workflowRules?: CiRule[];
}

export interface CiConfigResult {
  errors: string[];
  warnings: string[];
  config?: CiConfig;
  /** The configuration after includes, as the lint API shows it. */
  merged?: Json;
}

/** ActiveSupport's `humanize` as the validator's full messages use it on a job name. */
const humanize = (name: string) => name.replace(/_id$/, '').replace(/_/g, ' ');

// ---------------------------------------------------------------------------------------------------
// Validation

const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === 'string');

/** A script: a string or a nested array of strings up to 10 levels, flattened. */
function commands(v: unknown, depth = 0): string[] | null {
  if (typeof v === 'string') return [v];
  if (!Array.isArray(v) || depth > 10) return null;
  const out: string[] = [];
  for (const x of v) {
    const c = commands(x, depth + 1);
    if (!c) return null;
    out.push(...c);
  }
  return out;
}

function variablesOf(v: unknown): Record<string, string> | null {
  if (v === undefined || v === null) return {};
  if (!isHash(v)) return null;
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, x] of Object.entries(v)) {
    if (typeof x === 'string' || typeof x === 'number') out[k] = String(x);
    else if (isHash(x) && (typeof x.value === 'string' || typeof x.value === 'number'))
      out[k] = String(x.value);
    else return null;
  }
  return out;
}

/**
 * `ArrayOfStringsOrRegexpsWithFallbackValidator`: strings, and those that look like `/pattern/flags`
 * are patterns RE2 takes (the Ruby fallback is off by default, `allow_unsafe_ruby_regexp`).
 */
const refsValid = (v: unknown, budget: RegexpBudget): v is string[] =>
  isStringArray(v) && v.every((r) => !matchesRubySyntax(r) || tryFabricate(r, budget) !== null);

function policyOf(v: unknown, budget: RegexpBudget): Policy | null {
  if (typeof v === 'string') return refsValid([v], budget) ? { refs: [v] } : null;
  if (isStringArray(v)) return refsValid(v, budget) ? { refs: v } : null;
  if (isHash(v)) {
    const p: Policy = {};
    if (v.refs !== undefined) {
      if (!refsValid(v.refs, budget)) return null;
      p.refs = v.refs;
    }
    if (v.variables !== undefined) {
      if (!isStringArray(v.variables)) return null;
      p.variables = v.variables;
    }
    return p;
  }
  return null;
}

/** `exists:`: a string or a list of them (undefined when absent, null when malformed). */
function existsOf(v: unknown): string[] | undefined | null {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return [v];
  return isStringArray(v) ? v : null;
}

/** Whether a rule holds: its `if` and its `exists` (`changes` holds for every pipeline fauxlab makes). */
function ruleHolds(r: CiRule, vars: ReadonlyMap<string, string>, paths: () => readonly string[]): boolean {
  if (r.if && !r.if(vars)) return false;
  return !r.exists || existsMatches(r.exists, paths());
}

interface Problems {
  errors: string[];
  warnings: string[];
  /** What the configuration's patterns may compile in all. */
  budget: RegexpBudget;
}

function validateJob(
  name: string,
  job: Json,
  bridge: boolean,
  p: Problems,
  workflowRules: boolean,
): CiJob | null {
  const at = `jobs:${name}`;
  const err = (msg: string) => p.errors.push(`${at} ${msg}`.toLowerCase());
  const before = p.errors.length;
  const unknown = Object.keys(job).filter((k) => !(bridge ? BRIDGE_KEYS : JOB_KEYS).has(k));
  if (unknown.length) err(`config contains unknown keys: ${unknown.join(', ')}`);
  const hasRules = job.rules !== undefined && job.rules !== null;
  if (hasRules) {
    const clash = ['only', 'except', 'start_in'].filter((k) => job[k] !== undefined && job[k] !== null);
    if (clash.length) err(`config key may not be used with \`rules\`: ${clash.join(', ')}`);
  }
  if (name.length > 255) err('name is too long (maximum is 255 characters)');

  let script: string[] = [];
  if (!bridge) {
    const s = commands(job.script);
    if (s === null) err('script config should be a string or a nested array of strings up to 10 levels deep');
    else if (s.length === 0 || (s.length === 1 && s[0] === '')) err("script can't be blank");
    else script = s;
  }
  const stage = job.stage ?? job.type ?? 'test';
  if (typeof stage !== 'string') err('stage config should be a string');
  const when = job.when ?? 'on_success';
  if (typeof when !== 'string' || !ALLOWED_WHEN.includes(when))
    err(`when should be one of: ${ALLOWED_WHEN.join(', ')}`);
  const af = job.allow_failure;
  if (af !== undefined && af !== null && typeof af !== 'boolean' && !isHash(af))
    err('allow_failure should be a hash or a boolean value');
  const variables = variablesOf(job.variables);
  if (variables === null) err('variables config should be a hash of key value pairs');

  let only: Policy | undefined;
  let except: Policy | undefined;
  for (const key of ['only', 'except'] as const) {
    if (job[key] === undefined || job[key] === null) continue;
    const pol = policyOf(job[key], p.budget);
    // The policy is an entry of its own (`Entry::Policy`): its errors carry its location.
    if (!pol)
      p.errors.push(`${at}:${key} config should be an array of strings or regular expressions`.toLowerCase());
    else if (key === 'only') only = pol;
    else except = pol;
  }

  let rules: CiRule[] | undefined;
  if (hasRules) {
    if (!Array.isArray(job.rules)) err('rules config should be an array of hashes');
    else {
      rules = [];
      for (const r of job.rules) {
        if (!isHash(r)) {
          p.errors.push(`${at}:rules:rule config should be a hash`.toLowerCase());
          continue;
        }
        const bad = Object.keys(r).filter((k) => !RULE_KEYS.has(k));
        if (bad.length)
          p.errors.push(`${at}:rules:rule config contains unknown keys: ${bad.join(', ')}`.toLowerCase());
        const rule: CiRule = {};
        if (r.if !== undefined) {
          if (typeof r.if !== 'string') p.errors.push(`${at}:rules:rule if should be a string`.toLowerCase());
          else
            try {
              rule.if = parseExpression(r.if, p.budget);
            } catch (e) {
              if (!(e instanceof ExpressionError)) throw e;
              p.errors.push(`${at}:rules:rule if invalid expression syntax`.toLowerCase());
            }
        }
        if (r.when !== undefined) {
          if (typeof r.when !== 'string' || !RULE_WHEN.includes(r.when))
            p.errors.push(`${at}:rules:rule when unknown value: ${show(r.when)}`.toLowerCase());
          else rule.when = r.when;
        }
        if (typeof r.allow_failure === 'boolean') rule.allow_failure = r.allow_failure;
        const exists = existsOf(r.exists);
        if (exists === null)
          p.errors.push(`${at}:rules:rule:exists config should be an array of strings`.toLowerCase());
        else if (exists) rule.exists = exists;
        rules.push(rule);
      }
      const last = job.rules.at(-1);
      if (
        !workflowRules &&
        isHash(last) &&
        Object.keys(last).length === 1 &&
        'when' in last &&
        last.when !== 'never'
      )
        p.warnings.push(`${at} ${MULTIPLE_PIPELINES_WARNING}`);
    }
  }

  let needs: string[] = [];
  let optionalNeeds: string[] = [];
  if (job.needs !== undefined && job.needs !== null) {
    const list = Array.isArray(job.needs) ? job.needs : [job.needs];
    const names = list.map((n) =>
      typeof n === 'string' ? n : isHash(n) && typeof n.job === 'string' ? n.job : null,
    );
    if (names.some((n) => n === null)) err('needs config can only be a string or a hash');
    else {
      needs = names as string[];
      optionalNeeds = list.flatMap((n) => (isHash(n) && n.optional === true ? [n.job as string] : []));
    }
    // `REQUIRED_BY_NEEDS`: a job with needs names its stage.
    if (!bridge && !Object.hasOwn(job, 'stage')) err('config missing required keys: stage');
  }

  let environment: CiEnvironment | null = null;
  const env = job.environment;
  if (env !== undefined && env !== null) {
    const eat = `${at}:environment`;
    if (typeof env === 'string') environment = { name: env, url: null, action: 'start' };
    else if (isHash(env)) {
      const bad = Object.keys(env).filter((k) => !ENVIRONMENT_KEYS.has(k));
      if (bad.length) p.errors.push(`${eat} config contains unknown keys: ${bad.join(', ')}`.toLowerCase());
      if (typeof env.name !== 'string' || env.name === '')
        p.errors.push(`${eat} name can't be blank`.toLowerCase());
      const action = env.action ?? 'start';
      if (typeof action !== 'string' || !ENVIRONMENT_ACTIONS.includes(action))
        p.errors.push(`${eat} action should be start, stop or prepare`.toLowerCase());
      if (env.url !== undefined && env.url !== null && typeof env.url !== 'string')
        p.errors.push(`${eat} url should be a string`.toLowerCase());
      environment = {
        name: typeof env.name === 'string' ? env.name : '',
        url: typeof env.url === 'string' ? env.url : null,
        action: typeof action === 'string' ? action : 'start',
      };
    } else p.errors.push(`${eat} config should be a hash or a string`.toLowerCase());
  }

  if (p.errors.length > before) return null;
  const list = (v: unknown) => commands(v) ?? [];
  return {
    name,
    stage: stage as string,
    when: when as JobWhen,
    ...(typeof af === 'boolean' ? { allow_failure: af } : isHash(af) ? { allow_failure: false } : {}),
    ...(only && { only }),
    ...(except && { except }),
    ...(rules && { rules }),
    needs,
    optionalNeeds,
    environment,
    variables: variables ?? {},
    script,
    before_script: list(job.before_script),
    after_script: list(job.after_script),
    tags: isStringArray(job.tags) ? job.tags : [],
  };
}

/** `workflow:` (only `rules:`), its rules parsed; problems go to `p` with the entry's locations. */
function workflowRulesOf(workflow: unknown, p: Problems): CiRule[] | undefined {
  if (workflow === undefined || workflow === null) return undefined;
  if (!isHash(workflow)) {
    p.errors.push('workflow config should be a hash');
    return undefined;
  }
  const bad = Object.keys(workflow).filter((k) => k !== 'rules');
  if (bad.length) p.errors.push(`workflow config contains unknown keys: ${bad.join(', ')}`.toLowerCase());
  if (workflow.rules === undefined || workflow.rules === null) return undefined;
  if (!Array.isArray(workflow.rules)) {
    p.errors.push('workflow:rules config should be an array of hashes');
    return undefined;
  }
  const rules: CiRule[] = [];
  for (const r of workflow.rules) {
    const at = 'workflow:rules:rule';
    if (!isHash(r)) {
      p.errors.push(`${at} config should be a hash`);
      continue;
    }
    const unknown = Object.keys(r).filter((k) => !['if', 'changes', 'exists', 'when'].includes(k));
    if (unknown.length)
      p.errors.push(`${at} config contains unknown keys: ${unknown.join(', ')}`.toLowerCase());
    const rule: CiRule = {};
    if (typeof r.if === 'string')
      try {
        rule.if = parseExpression(r.if, p.budget);
      } catch (e) {
        if (!(e instanceof ExpressionError)) throw e;
        p.errors.push(`${at} if invalid expression syntax`);
      }
    else if (r.if !== undefined) p.errors.push(`${at} if should be a string`);
    const exists = existsOf(r.exists);
    if (exists === null) p.errors.push(`${at}:exists config should be an array of strings`);
    else if (exists) rule.exists = exists;
    if (r.when !== undefined) {
      if (r.when !== 'always' && r.when !== 'never')
        p.errors.push(`${at} when unknown value: ${show(r.when)}`.toLowerCase());
      else rule.when = r.when;
    }
    rules.push(rule);
  }
  return rules;
}

/**
 * Whether `workflow: rules:` let a pipeline be made (`Chain::EvaluateWorkflowRules`): no rules, or a
 * first rule that holds and is not `when: never`.
 */
export function workflowAllows(
  config: CiConfig,
  facts: Omit<PipelineFacts, 'variables'>,
  extra: Readonly<Record<string, string>>,
  paths: () => readonly string[] = () => [],
): boolean {
  if (!config.workflowRules) return true;
  const vars = expressionVariables(config, undefined, facts, extra);
  const hit = config.workflowRules.find((r) => ruleHolds(r, vars, paths));
  return hit !== undefined && hit.when !== 'never';
}

/**
 * Loads, merges and checks a configuration (`Gitlab::Ci::YamlProcessor#execute`): entry errors all
 * together, then the processor's first stage or needs problem.
 */
export function processCiConfig(text: string | undefined, source: IncludeSource): CiConfigResult {
  if (text === undefined || text.trim() === '')
    return { errors: ['Please provide content of .gitlab-ci.yml'], warnings: [] };
  let merged: Json;
  try {
    merged = withIncludes(load(text), { count: 0, bytes: Buffer.byteLength(text), source });
    merged = resolveExtends(merged);
  } catch (e) {
    if (e instanceof LoadError) return { errors: [e.message], warnings: [] };
    throw e;
  }
  const p: Problems = { errors: [], warnings: [], budget: new RegexpBudget(REQUEST_PROGRAM) };
  merged = withEdgeStages(merged);
  const out = plain(merged) as Json;

  const rawStages = merged.stages ?? merged.types;
  let stages = DEFAULT_STAGES;
  if (rawStages !== undefined && rawStages !== null) {
    if (!isStringArray(rawStages)) p.errors.push('stages config should be an array of strings');
    else stages = rawStages;
  }
  const variables = variablesOf(merged.variables);
  if (variables === null) p.errors.push('variables config should be a hash of key value pairs');
  const workflow = merged.workflow;
  const hasWorkflowRules = isHash(workflow) && Array.isArray(workflow.rules);
  const workflowRules = workflowRulesOf(workflow, p);

  const jobKeys = Object.keys(merged).filter((k) => !RESERVED.has(k));
  if (jobKeys.length > YAML_LIMITS.jobs) return { errors: ['The parsed YAML is too big'], warnings: [] };
  const jobs: CiJob[] = [];
  const unmatched: string[] = [];
  let visible = 0;
  for (const name of jobKeys) {
    const v = merged[name];
    if (name.startsWith('.')) continue;
    const bridge = isHash(v) && !Object.hasOwn(v, 'script') && Object.hasOwn(v, 'trigger');
    if (!isHash(v) || (!Object.hasOwn(v, 'script') && !bridge)) {
      unmatched.push(name);
      continue;
    }
    visible++;
    const job = validateJob(name, v, bridge, p, hasWorkflowRules);
    if (job) jobs.push(job);
  }
  const jobErrors = unmatched.map((n) =>
    `jobs ${humanize(n)} config should implement a script: or a trigger: keyword`.toLowerCase(),
  );
  if (visible === 0) jobErrors.push('jobs config should contain at least one visible job');
  p.errors.unshift(...jobErrors);
  if (p.errors.length) return { errors: p.errors, warnings: p.warnings, merged: out };

  const allStages = ['.pre', ...stages.filter((s) => s !== '.pre' && s !== '.post'), '.post'];
  // `YamlProcessor#validate_job!`: the first problem only.
  const index = new Map(jobs.map((j) => [j.name, allStages.indexOf(j.stage)]));
  for (const j of jobs) {
    if (!allStages.includes(j.stage))
      return fail(`${j.name} job: chosen stage does not exist; available stages are ${allStages.join(', ')}`);
    for (const n of j.needs) {
      if (!index.has(n)) return fail(`${j.name} job: undefined need: ${n}`);
      if (index.get(n)! >= index.get(j.name)!)
        return fail(`${j.name} job: need ${n} is not defined in prior stages`);
    }
  }
  return {
    errors: [],
    warnings: p.warnings,
    merged: out,
    config: {
      stages: allStages,
      variables: variables ?? {},
      jobs,
      hasWorkflowRules,
      ...(workflowRules && { workflowRules }),
    },
  };

  function fail(message: string): CiConfigResult {
    return { errors: [message], warnings: p.warnings, merged: out };
  }
}

/** The configuration as the lint API shows `merged_yaml` (Psych's `to_yaml`: a document marker, block style). */
export function mergedYaml(merged: Json): string {
  return `---\n${yaml().stringify(merged, { indentSeq: false, lineWidth: 0 })}`;
}

// ---------------------------------------------------------------------------------------------------
// Jobs of a pipeline

/** A job as it joins a pipeline: its `when` and `allow_failure` after the rules. */
export interface SelectedJob {
  job: CiJob;
  when: JobWhen;
  allow_failure: boolean;
}

/**
 * `'a' job needs 'b' job, but it was not added to the pipeline` for the first selected job whose
 * (non-optional) need was left out, or null.
 */
export function missingNeed(selected: readonly SelectedJob[]): string | null {
  const names = new Set(selected.map((x) => x.job.name));
  for (const { job } of selected)
    for (const n of job.needs)
      if (!names.has(n) && !job.optionalNeeds.includes(n))
        return `'${job.name}' job needs '${n}' job, but it was not added to the pipeline`;
  return null;
}

/**
 * The variables `rules: if:` and `only: variables:` see (predefined, file, job, pipeline's own); without
 * a job, those `workflow: rules:` see.
 */
export function expressionVariables(
  config: CiConfig,
  job: CiJob | undefined,
  facts: Omit<PipelineFacts, 'variables'>,
  extra: Readonly<Record<string, string>>,
): Map<string, string> {
  const vars = new Map<string, string>();
  for (const [k, v] of Object.entries(config.variables)) vars.set(k, v);
  if (job) for (const [k, v] of Object.entries(job.variables)) vars.set(k, v);
  for (const [k, v] of Object.entries(extra)) vars.set(k, v);
  vars.set('CI_COMMIT_REF_NAME', facts.ref);
  vars.set('CI_PIPELINE_SOURCE', facts.source);
  if (job) {
    vars.set('CI_JOB_NAME', job.name);
    vars.set('CI_JOB_STAGE', job.stage);
  }
  if (facts.tag) vars.set('CI_COMMIT_TAG', facts.ref);
  // `Ci::Pipeline#predefined_variables`: `CI_COMMIT_BRANCH` only `if branch?`, not for a merge request's.
  else if (facts.source !== MERGE_REQUEST_EVENT) vars.set('CI_COMMIT_BRANCH', facts.ref);
  return vars;
}

/**
 * The jobs a pipeline for this ref and source gets (`Gitlab::Ci::Build::Rules`, `Build::Policy`): with
 * `rules`, the first rule that holds decides (`when: never`, or none holding, leaves the job out);
 * without, `only` (default branches and tags) and `except`.
 */
export function selectJobs(
  config: CiConfig,
  facts: Omit<PipelineFacts, 'variables'>,
  extra: Readonly<Record<string, string>>,
  paths: () => readonly string[] = () => [],
): SelectedJob[] {
  const out: SelectedJob[] = [];
  // `only`/`except` patterns are compiled as the jobs are selected, from one budget.
  const budget = new RegexpBudget(REQUEST_PROGRAM);
  for (const job of config.jobs) {
    const vars = expressionVariables(config, job, facts, extra);
    const f: PipelineFacts = { ...facts, variables: vars };
    const baseFailure = job.allow_failure ?? job.when === 'manual';
    if (job.rules) {
      const hit = job.rules.find((r) => ruleHolds(r, vars, paths));
      if (!hit || hit.when === 'never') continue;
      const when = (hit.when ?? job.when) as JobWhen;
      out.push({ job, when, allow_failure: hit.allow_failure ?? job.allow_failure ?? when === 'manual' });
      continue;
    }
    const only = job.only ?? (config.hasWorkflowRules ? undefined : { refs: ['branches', 'tags'] });
    if (only && !policyMatches(only, f, budget)) continue;
    if (job.except && policyMatches(job.except, f, budget)) continue;
    out.push({ job, when: job.when, allow_failure: baseFailure });
  }
  return out;
}
