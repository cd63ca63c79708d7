/**
 * 13.12's validations of `Operations::FeatureFlag` and what it validates through its nested attributes
 * (`Operations::FeatureFlags::Strategy`, its `Scope`s, legacy `Operations::FeatureFlagScope`s with
 * `FeatureFlagStrategiesValidator`), and of `Operations::FeatureFlags::UserList`, as `full_messages`:
 * grouped by attribute in the order each attribute first failed, each message once (Rails 6.0's
 * autosave association copies a nested record's errors as `strategies.parameters`, humanised
 * "Strategies parameters").
 */
import type {
  FeatureFlagRecord,
  JsonValue,
  LegacyScopeRecord,
  StrategyRecord,
  UserListRecord,
} from './store.js';

/** `Gitlab::Regex.feature_flag_regex` and its message. */
const NAME_FORMAT = /^[a-z]([-_a-z0-9]*[a-z0-9])?$/;
const NAME_MESSAGE =
  "can contain only lowercase letters, digits, '_' and '-'. Must start with a letter, and cannot end with '-' or '_'";
/** `Gitlab::Regex.environment_scope_regex`. */
const SCOPE_FORMAT = /^[a-zA-Z0-9_/${}. \-*]+$/;
const SCOPE_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces";

export const STRATEGY_PARAMETERS: Readonly<Record<string, readonly string[]>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, readonly string[]>, {
    default: [],
    gitlabUserList: [],
    gradualRolloutUserId: ['groupId', 'percentage'],
    flexibleRollout: ['groupId', 'rollout', 'stickiness'],
    userWithId: ['userIds'],
  }),
);
/** `FeatureFlagStrategiesValidator::STRATEGIES` (legacy scopes): no gitlabUserList. */
const LEGACY_STRATEGIES = ['default', 'gradualRolloutUserId', 'flexibleRollout', 'userWithId'];
const STICKINESS = ['DEFAULT', 'USERID', 'SESSIONID', 'RANDOM'];
const PERCENT = /^(?:[1-9]?[0-9]|100)$/;
const GROUP_ID = /^[a-z]{1,32}$/;
export const USERXID_MAX_LENGTH = 256;

/** An ActiveModel::Errors in insertion order of attributes, messages unique per attribute. */
export class Errors {
  private readonly byAttr = new Map<string, string[]>();
  add(attr: string, msg: string): void {
    const list = this.byAttr.get(attr);
    if (!list) this.byAttr.set(attr, [msg]);
    else if (!list.includes(msg)) list.push(msg);
  }
  has(attr: string): boolean {
    return this.byAttr.has(attr);
  }
  get empty(): boolean {
    return this.byAttr.size === 0;
  }
  /** `full_messages`: "Strategies parameters are invalid"; `base` messages as they are. */
  full(): string[] {
    const out: string[] = [];
    for (const [attr, msgs] of this.byAttr) {
      const human = attr === 'base' ? '' : humanize(attr.replace(/\./g, '_')) + ' ';
      for (const m of msgs) out.push(human + m);
    }
    return out;
  }
}

/** `String#humanize`: underscores to spaces, a trailing `_id` dropped, the first letter capitalised. */
const humanize = (s: string): string => {
  const t = s.replace(/_id$/, '').replace(/_/g, ' ');
  return t.charAt(0).toUpperCase() + t.slice(1);
};

const isHash = (v: unknown): v is { [k: string]: JsonValue } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `FeatureFlagUserXidsValidator.validate_user_xids`. */
export function validUserXids(v: unknown): boolean {
  if (typeof v !== 'string' || /[\n\r\t]|,,/.test(v)) return false;
  const xids = rubySplit(v);
  return (
    new Set(xids).size === xids.length &&
    xids.every((x) => x.trim() !== '' && x.trim() === x && x.length <= USERXID_MAX_LENGTH)
  );
}

/** Ruby's `String#split(",")`: trailing empty fields dropped. */
function rubySplit(s: string): string[] {
  const parts = s.split(',');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

const xidsMessage = (attr: string) =>
  `${attr} must be a string of unique comma separated values each ${USERXID_MAX_LENGTH} characters or less`;

/** `HasEnvironmentScope`'s validations on a scope. */
function scopeErrors(scope: string, attr: string, e: Errors): void {
  if (scope.trim() === '') e.add(attr, "can't be blank");
  if (!SCOPE_FORMAT.test(scope)) e.add(attr, SCOPE_MESSAGE);
}

/** A strategy's parameters by its name (`Strategy#parameters_validations`), onto `strategies.parameters`. */
function parameterErrors(name: string, parameters: JsonValue, e: Errors): void {
  const attr = 'strategies.parameters';
  if (!isHash(parameters)) return e.add(attr, 'parameters are invalid');
  const keys = Object.keys(parameters).sort();
  const expected = [...STRATEGY_PARAMETERS[name]!].sort();
  if (keys.length !== expected.length || keys.some((k, i) => k !== expected[i]))
    return e.add(attr, 'parameters are invalid');
  const str = (k: string) => (typeof parameters[k] === 'string' ? (parameters[k] as string) : undefined);
  if (name === 'gradualRolloutUserId') {
    if (!PERCENT.test(str('percentage') ?? 'x'))
      e.add(attr, 'percentage must be a string between 0 and 100 inclusive');
    if (!GROUP_ID.test(str('groupId') ?? '')) e.add(attr, 'groupId parameter is invalid');
  } else if (name === 'flexibleRollout') {
    if (!STICKINESS.includes(str('stickiness') ?? ''))
      e.add(
        attr,
        `stickiness parameter must be ${STICKINESS.slice(0, -1).join(', ')}, or ${STICKINESS.at(-1)}`,
      );
    if (!GROUP_ID.test(str('groupId') ?? '')) e.add(attr, 'groupId parameter is invalid');
    if (!PERCENT.test(str('rollout') ?? 'x'))
      e.add(attr, 'rollout must be a string between 0 and 100 inclusive');
  } else if (name === 'userWithId' && !validUserXids(parameters.userIds)) {
    e.add(attr, xidsMessage('userIds'));
  }
}

/** `FeatureFlagStrategiesValidator` on a legacy scope's `strategies` (`scopes.strategies`). */
function legacyStrategiesErrors(value: JsonValue, e: Errors): void {
  const attr = 'scopes.strategies';
  if (!Array.isArray(value) || !value.every(isHash))
    return e.add(attr, 'must be an array of strategy hashes');
  for (const s of value as { [k: string]: JsonValue }[]) {
    const name = s.name;
    if (typeof name !== 'string' || !LEGACY_STRATEGIES.includes(name)) {
      e.add(attr, 'strategy name is invalid');
      continue;
    }
    const params = s.parameters;
    if (!isHash(params)) {
      e.add(attr, 'parameters are invalid');
      continue;
    }
    const keys = Object.keys(params).sort();
    const expected = [...STRATEGY_PARAMETERS[name]!].sort();
    if (keys.length !== expected.length || keys.some((k, i) => k !== expected[i])) {
      e.add(attr, 'parameters are invalid');
      continue;
    }
    const sub = new Errors();
    parameterErrors(name, params, sub);
    for (const m of sub.full()) e.add(attr, m.replace(/^Strategies parameters /, ''));
  }
}

export interface FlagDraft {
  record: Omit<FeatureFlagRecord, 'strategies' | 'scopes'>;
  /** The strategies that stay (those marked for destruction already removed). */
  strategies: StrategyRecord[];
  scopes: LegacyScopeRecord[];
  creating: boolean;
}

/**
 * The flag's validations in 13.12's order: the nested scopes' and strategies' (has_many validates them
 * first), then name (presence, 2..63, format, uniqueness per project), description (255), the first
 * default scope on create, and the version's associations.
 */
export function flagErrors(
  f: FlagDraft,
  siblings: readonly FeatureFlagRecord[],
  listOf: (id: number) => UserListRecord | undefined,
): Errors {
  const e = new Errors();
  const seen = new Set<string>();
  for (const s of f.scopes) {
    scopeErrors(s.environment_scope, 'scopes.environment_scope', e);
    if (seen.has(s.environment_scope))
      e.add('scopes.environment_scope', `(${s.environment_scope}) has already been taken`);
    seen.add(s.environment_scope);
    legacyStrategiesErrors(s.strategies, e);
  }
  for (const s of f.strategies) {
    for (const sc of s.scopes) scopeErrors(sc.environment_scope, 'strategies.scopes.environment_scope', e);
    if (!Object.hasOwn(STRATEGY_PARAMETERS, s.name)) e.add('strategies.name', 'strategy name is invalid');
    else parameterErrors(s.name, s.parameters, e);
    const list = s.user_list_id === null ? undefined : listOf(s.user_list_id);
    if (s.name === 'gitlabUserList' && !list) e.add('strategies.user_list', "can't be blank");
    if (s.name !== 'gitlabUserList' && list) e.add('strategies.user_list', 'must be blank');
    if (list && list.project_id !== f.record.project_id)
      e.add('strategies.user_list', 'must belong to the same project');
  }
  const name = f.record.name;
  if (name.trim() === '') e.add('name', "can't be blank");
  if (name.length < 2) e.add('name', 'is too short (minimum is 2 characters)');
  if (name.length > 63) e.add('name', 'is too long (maximum is 63 characters)');
  if (!NAME_FORMAT.test(name)) e.add('name', NAME_MESSAGE);
  if (siblings.some((o) => o.id !== f.record.id && o.name === name)) e.add('name', 'has already been taken');
  if ((f.record.description ?? '').length > 255)
    e.add('description', 'is too long (maximum is 255 characters)');
  if (f.creating && f.scopes.length > 0 && f.scopes[0]!.environment_scope !== '*')
    e.add('default_scope', 'has to be the first element');
  if (f.record.version === 'new_version_flag' && f.scopes.length > 0)
    e.add('version_associations', 'version 2 feature flags may not have scopes');
  else if (f.record.version === 'legacy_flag' && f.strategies.length > 0)
    e.add('version_associations', 'version 1 feature flags may not have strategies');
  return e;
}

/** `Operations::FeatureFlags::UserList`: name present, unique per project, 1..255; user_xids. */
export function userListErrors(
  l: Pick<UserListRecord, 'id' | 'name' | 'user_xids'>,
  siblings: readonly UserListRecord[],
): Errors {
  const e = new Errors();
  if (l.name.trim() === '') e.add('name', "can't be blank");
  if (siblings.some((o) => o.id !== l.id && o.name === l.name)) e.add('name', 'has already been taken');
  if (l.name.length < 1) e.add('name', 'is too short (minimum is 1 character)');
  if (l.name.length > 255) e.add('name', 'is too long (maximum is 255 characters)');
  if (!validUserXids(l.user_xids)) e.add('user_xids', xidsMessage('user_xids'));
  return e;
}
