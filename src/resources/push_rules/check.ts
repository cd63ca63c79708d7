/**
 * Push rule checks (`EE::Gitlab::Checks::PushRules::*`, `PushRuleCheck`): what a change to a branch or
 * tag must satisfy, as the message refusing it. Git pushes and the API's commits run the same checks,
 * except the ones the platform skips for changes made through the web and API (committer and
 * signature checks).
 */
import { iget } from '../../core/table.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import type { CommitObject, ObjectStore } from '../repository/objects.js';
import { diffTrees } from '../repository/tree.js';
import type { UntrustedRegexp } from '../../core/untrusted-regexp.js';
import { compileRule, pushRuleOf } from './model.js';
import type { PushRuleRecord } from './store.js';

/** The most new commits one change is checked for (a push of more is checked on the newest). */
export const MAX_CHECKED_COMMITS = 2_000;

/** Secret-looking file names refused with `prevent_secrets` (a subset of the platform's deny list). */
export const SECRET_FILE_PATTERNS: readonly string[] = [
  '.*/?id_rsa$',
  '.*/?id_dsa$',
  '.*/?id_ecdsa$',
  '.*/?id_ed25519$',
  '.*/?.*\\.pem$',
  '.*/?.*\\.key$',
  '.*/?.*\\.p12$',
  '.*/?.*\\.pfx$',
  '.*/?\\.?(bash|zsh|sh|mysql|psql|irb|php|node|python)_history$',
  '.*/?\\.?pgpass$',
  '.*/?\\.?s3cfg$',
  '.*/?\\.aws/credentials$',
  '.*/?credentials\\.xml$',
  '.*/?secret_token\\.rb$',
  '.*/?\\.?htpasswd$',
  '.*/?\\.?netrc$',
  '.*/?\\.git-credentials$',
];

export interface RefChange {
  kind: 'branch' | 'tag';
  name: string;
  creating: boolean;
  deleting: boolean;
  /** The commits the change brings, newest first. */
  commits: readonly string[];
  /** Made through the web or API: the committer and signature checks do not apply. */
  fromWeb: boolean;
  user: UserRecord | null;
}

/** The rule's patterns compiled once for one change (a push checks each of up to 2,000 commits). */
type Matchers = (pattern: string, multiline: boolean) => UntrustedRegexp | null;

function matchers(): Matchers {
  const compiled = new Map<string, UntrustedRegexp | null>();
  return (pattern, multiline) => {
    const key = `${multiline ? 'm' : '-'}${pattern}`;
    let re = compiled.get(key);
    if (re === undefined) compiled.set(key, (re = compileRule(pattern, multiline)));
    return re;
  };
}

/** A `present?` pattern matches (`data_match?`, RE2's `===`); an empty one is no rule. */
function matches(
  m: Matchers,
  pattern: string | null,
  subject: string,
  multiline = false,
): boolean | undefined {
  if (pattern === null || pattern === '') return undefined;
  const re = m(pattern, multiline);
  // Validation only stores patterns RE2 takes; one that is not matches nothing.
  return re ? re.test(subject) : false;
}

const knownEmail = (st: PlatformState, email: string) =>
  iget(st.idx.emails, email.toLowerCase()) !== undefined;

function userEmails(u: UserRecord): string[] {
  return [u.email, u.commit_email, u.public_email]
    .filter((e): e is string => !!e)
    .map((e) => e.toLowerCase());
}

function commitRefusal(
  m: Matchers,
  st: PlatformState,
  rule: PushRuleRecord,
  c: CommitObject,
  ch: RefChange,
): string | undefined {
  // `safe_message`: the message as stored, without the trailing newline git adds.
  const message = c.message.replace(/\n+$/, '');
  if (matches(m, rule.commit_message_regex, message, true) === false)
    return `Commit message does not follow the pattern '${rule.commit_message_regex}'`;
  if (matches(m, rule.commit_message_negative_regex, message, true) === true)
    return `Commit message contains the forbidden pattern '${rule.commit_message_negative_regex}'`;
  const committer = c.committer.email;
  const author = c.author.email;
  if (matches(m, rule.author_email_regex, committer) === false)
    return `Committer's email '${committer}' does not follow the pattern '${rule.author_email_regex}'`;
  if (matches(m, rule.author_email_regex, author) === false)
    return `Author's email '${author}' does not follow the pattern '${rule.author_email_regex}'`;
  if (!ch.fromWeb && rule.commit_committer_check && ch.user) {
    if (!knownEmail(st, committer)) return `Committer email '${committer}' is not verified.`;
    if (!userEmails(ch.user).includes(committer.toLowerCase()))
      return `You cannot push commits for '${committer}'. You can only push commits that were committed with one of your own verified emails.`;
  }
  // fauxlab keeps no GPG keys: no pushed commit is a verified signed one.
  if (!ch.fromWeb && rule.reject_unsigned_commits) return 'Commit must be signed with a GPG key';
  if (rule.member_check) {
    if (!knownEmail(st, author)) return `Author '${author}' is not a member of team`;
    if (author.toLowerCase() !== committer.toLowerCase() && !knownEmail(st, committer))
      return `Committer '${committer}' is not a member of team`;
  }
  return undefined;
}

function diffRefusal(
  m: Matchers,
  store: ObjectStore,
  rule: PushRuleRecord,
  c: CommitObject,
): string | undefined {
  const parent = c.parents[0] === undefined ? undefined : store.commit(c.parents[0])?.tree;
  const limit = rule.max_file_size * 1024 * 1024;
  for (const d of diffTrees(store, parent, c.tree)) {
    if (!d.new) continue;
    const added = !d.old || d.from !== undefined;
    if (added) {
      if (matches(m, rule.file_name_regex, d.path) === true)
        return `File name ${d.path} was blacklisted by the pattern ${rule.file_name_regex}.`;
      if (rule.prevent_secrets) {
        const hit = SECRET_FILE_PATTERNS.find((p) => matches(m, p, d.path) === true);
        if (hit) return `File name ${d.path} was blacklisted by the pattern ${hit}.`;
      }
    }
    if (limit > 0 && d.new.mode !== '160000') {
      const size = store.raw(d.new.id, 'blob')?.length ?? 0;
      if (size > limit)
        return `File ${JSON.stringify(d.path)} is larger than the allowed size of ${rule.max_file_size} MB`;
    }
  }
  return undefined;
}

/** The message refusing the change under the project's push rule, or undefined when it passes. */
export function pushRuleRefusal(
  st: PlatformState,
  store: ObjectStore,
  projectId: number,
  ch: RefChange,
): string | undefined {
  // The community edition has no push rules: a rule kept from a paid world is not enforced there.
  const rule = st.tier === 'free' ? undefined : pushRuleOf(st, projectId);
  if (!rule) return undefined;
  const m = matchers();
  if (ch.kind === 'tag') {
    if (ch.deleting && rule.deny_delete_tag) return 'You cannot delete a tag';
  } else if (!ch.deleting && matches(m, rule.branch_name_regex, ch.name) === false)
    return `Branch name does not follow the pattern '${rule.branch_name_regex}'`;
  if (ch.deleting) return undefined;
  for (const id of ch.commits.slice(0, MAX_CHECKED_COMMITS)) {
    const c = store.commit(id);
    if (!c) continue;
    const refusal = commitRefusal(m, st, rule, c, ch) ?? diffRefusal(m, store, rule, c);
    if (refusal) return refusal;
  }
  return undefined;
}
