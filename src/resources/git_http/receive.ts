/**
 * `git-receive-pack` over smart HTTP (`git push`): the ref advertisement, the commands and the pack
 * (thin, with deltas, resolved against the project's own repository and kept in quarantine: see
 * quarantine.ts), git's connectivity check, the platform's pre-receive checks
 * (`Gitlab::Checks::BranchCheck` / `TagCheck`: protected branches, force pushes, default branch
 * deletion; any refusal declines the whole push, as a pre-receive hook does), then the refs move in one
 * write, the pack's objects join the store, and each change is handled as a push: a push event,
 * webhooks and integrations, and a pipeline for a new head whose tree has a `.gitlab-ci.yml`.
 */
import { branchMoved } from '../../core/push.js';
import { ACCESS } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { MAX_CHECKED_COMMITS, pushRuleRefusal } from '../push_rules/check.js';
import { pushRuleOf } from '../push_rules/model.js';
import { canPushToBranch, level, protectionsOf } from '../repository/access.js';
import { ancestors } from '../repository/history.js';
import { ObjectStore } from '../repository/objects.js';
import { DEFAULT_PACK_LIMITS, PackError, readPackAsync } from '../repository/pack.js';
import {
  BLANK_SHA,
  names,
  otherTarget,
  peel,
  reachableFrom,
  refTarget,
  setOtherRef,
  setRef,
  type RefKind,
} from '../repository/refs.js';
import { announceReceived, postReceive } from '../repository/post-receive.js';
import { tagPushRefusal } from '../repository/protect.js';
import { objectsFor, objectsOf } from '../repository/store.js';
import { setting } from '../settings/model.js';
import { announceMergeRequestOptions, mergeRequestOptionsInWrite } from './push-mr.js';
import { FLUSH, PktReader, pkt, sideband } from './pktline.js';
import { hiddenBy, listRefs, RECEIVE_HIDDEN } from './refs.js';
import {
  alertLines,
  findOpen,
  parsePushOptions,
  pushOptionsWarning,
  pushVariables,
  type OptionsOutcome,
  type PushOptions,
} from './push-options.js';
import { basesOf, basesView, connectivity, type Bases } from './quarantine.js';
import { AGENT } from './upload.js';
import type { GitActor } from './auth.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The most ref updates one push carries. */
export const MAX_COMMANDS = 10_000;
/**
 * The most push options one push carries, and their bytes together. git sends any number, each a
 * pkt-line; Workhorse and Gitaly pass them to the hooks as environment variables
 * (`GIT_PUSH_OPTION_<n>`), whose space the platform's processes bound: fauxlab refuses beyond these.
 */
export const MAX_PUSH_OPTIONS = 1_000;
export const MAX_PUSH_OPTION_BYTES = 256 * 1024;

/** A push's options: as sent (for the warning that quotes them) and as `Gitlab::PushOptions` reads them. */
interface Push {
  raw: string[];
  options: PushOptions;
}

/** How long reading a pushed pack may take (host wall clock). */
export const PACK_TIME_LIMIT_MS = 20_000;

export function advertiseReceive(st: PlatformState, project: Project): Buffer {
  const caps = `report-status report-status-v2 delete-refs side-band-64k quiet atomic ofs-delta push-options object-format=sha1 agent=${AGENT}`;
  const lines: Buffer[] = [];
  // Every ref but the hidden ones, unpeeled (receive-pack sends no `^{}` lines).
  for (const { name, id } of listRefs(st, project, RECEIVE_HIDDEN).refs)
    lines.push(pkt(lines.length === 0 ? `${id} ${name}\0${caps}\n` : `${id} ${name}\n`));
  if (lines.length === 0) lines.push(pkt(`${BLANK_SHA} capabilities^{}\0${caps}\n`));
  lines.push(FLUSH);
  return Buffer.concat(lines);
}

interface Command {
  old: string;
  next: string;
  ref: string;
  /** A branch or a tag; undefined for any other ref (notes, custom namespaces), kept without their semantics. */
  kind?: RefKind;
  name?: string;
  /** git's own refusal of this ref (`ng <ref> <reason>`). */
  error?: string;
}

/**
 * receive-pack's test of a ref it is asked to update (`funny refname`): under `refs/`, and the rest a
 * name `git check-ref-format` takes with at least two levels (`check_refname_format(name + 5, 0)`).
 */
export function validRefName(ref: string): boolean {
  if (!ref.startsWith('refs/')) return false;
  const rest = ref.slice(5);
  if (rest === '@' || rest.endsWith('/') || rest.endsWith('.')) return false;
  for (let i = 0; i < rest.length; i++) {
    const code = rest.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return false;
  }
  if (/[ ~^:?*[\\]|\.\.|@\{/.test(rest)) return false;
  const parts = rest.split('/');
  return parts.length >= 2 && parts.every((p) => p !== '' && !p.startsWith('.') && !p.endsWith('.lock'));
}

const BRANCH_MESSAGES = {
  deleteDefault: 'The default branch of a project cannot be deleted.',
  forcePush: 'You are not allowed to force push code to a protected branch on this project.',
  nonMaintainerDelete:
    'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
  nonWebDelete: 'You can only delete protected branches using the web interface.',
  push: 'You are not allowed to push code to protected branches on this project.',
  create: 'You are not allowed to create protected branches on this project.',
  invalidCommitCreate:
    'You can only use an existing protected branch ref as the basis of a new protected branch.',
  nonWebCreate: 'You can only create protected branches using the web interface and API.',
  hexName: 'You cannot create a branch with a 40-character hexadecimal branch name.',
  changeTags: 'You are not allowed to change existing tags on this project.',
};

/** `can_merge_to_branch?`: the merge rule of a protected branch. */
function canMergeToBranch(st: PlatformState, user: UserRecord | null, p: Project, branch: string): boolean {
  if (!user) return false;
  if (user.admin) return true;
  const rules = protectionsOf(st, p.id, branch);
  const lvl = level(st, user, p);
  return rules.length === 0
    ? lvl >= ACCESS.DEVELOPER
    : rules.some((r) => r.merge_access_level !== 0 && lvl >= r.merge_access_level);
}

/** The most commits of the repository walked to tell a push's new commits from known ones. */
const KNOWN_WALK_LIMIT = 100_000;

/** The commits a push brings that no branch or tag of the project reaches yet (`new_commits`), from the head. */
function newCommits(st: PlatformState, p: Project, next: string): string[] {
  const store = objectsOf(st);
  const known = new Set<string>();
  const stack: string[] = [];
  for (const kind of ['branch', 'tag'] as const)
    for (const name of names(st, p, kind)) {
      const id = refTarget(st, p, kind, name);
      if (id !== undefined) stack.push(peel(store, id));
    }
  while (stack.length > 0 && known.size < KNOWN_WALK_LIMIT) {
    const id = stack.pop()!;
    if (known.has(id)) continue;
    const c = store.commit(id);
    if (!c) continue;
    known.add(id);
    stack.push(...c.parents);
  }
  // From the new head back to what the project already has: nothing known is walked again.
  const out: string[] = [];
  const seen = new Set<string>();
  const queue = [next];
  for (let i = 0; i < queue.length && out.length < MAX_CHECKED_COMMITS; i++) {
    const id = queue[i]!;
    if (known.has(id) || seen.has(id)) continue;
    seen.add(id);
    const c = store.commit(id);
    if (!c) continue;
    out.push(id);
    queue.push(...c.parents);
  }
  return out;
}

/** The project's push rule on one change (`PushRuleCheck`), or the message refusing it. */
function ruleRefusal(st: PlatformState, actor: GitActor, p: Project, cmd: Command): string | undefined {
  if (!pushRuleOf(st, p.id)) return undefined;
  const deleting = cmd.next === BLANK_SHA;
  const store = objectsOf(st);
  return pushRuleRefusal(st, store, p.id, {
    kind: cmd.kind === 'tag' ? 'tag' : 'branch',
    name: cmd.name!,
    creating: cmd.old === BLANK_SHA,
    deleting,
    commits: deleting ? [] : newCommits(st, p, peel(store, cmd.next)),
    fromWeb: false,
    user: actor.user,
  });
}

/** The platform's checks of one change (`Gitlab::Checks::ChangeAccess`), or the message refusing it. */
function platformRefusal(st: PlatformState, actor: GitActor, p: Project, cmd: Command): string | undefined {
  const user = actor.user;
  const store = objectsOf(st);
  if (cmd.kind === 'tag') return tagPushRefusal(st, user, p, cmd);
  const branch = cmd.name!;
  const creating = cmd.old === BLANK_SHA;
  const deleting = cmd.next === BLANK_SHA;
  if (creating && /^[0-9a-f]{40}$/i.test(branch)) return BRANCH_MESSAGES.hexName;
  if (deleting && branch === p.default_branch) return BRANCH_MESSAGES.deleteDefault;
  const protectedBranch = protectionsOf(st, p.id, branch).length > 0;
  if (!protectedBranch) return undefined;
  if (deleting) {
    const maintainer = !!user && (user.admin || level(st, user, p) >= ACCESS.MAINTAINER);
    return maintainer ? BRANCH_MESSAGES.nonWebDelete : BRANCH_MESSAGES.nonMaintainerDelete;
  }
  if (creating) {
    if (canPushToBranch(st, user, p, branch)) return undefined;
    if (!canMergeToBranch(st, user, p, branch)) return BRANCH_MESSAGES.create;
    if (!reachableFrom(st, p, peel(store, cmd.next))) return BRANCH_MESSAGES.invalidCommitCreate;
    return BRANCH_MESSAGES.nonWebCreate;
  }
  const forced = !ancestors(store, cmd.next).has(cmd.old);
  if (forced && !protectionsOf(st, p.id, branch).some((r) => r.allow_force_push))
    return BRANCH_MESSAGES.forcePush;
  if (!canPushToBranch(st, user, p, branch)) return BRANCH_MESSAGES.push;
  return undefined;
}

/** The report git reads back: `unpack ok` and a line per ref, framed for the client's capabilities. */
function report(
  unpack: string,
  cmds: Command[],
  messages: string[],
  caps: Set<string>,
  after: string[] = [],
): Buffer {
  const status = Buffer.concat([
    pkt(`unpack ${unpack}\n`),
    ...cmds.map((c) => pkt(c.error === undefined ? `ok ${c.ref}\n` : `ng ${c.ref} ${c.error}\n`)),
    FLUSH,
  ]);
  const wantsStatus = caps.has('report-status') || caps.has('report-status-v2');
  if (!caps.has('side-band-64k')) return wantsStatus ? status : Buffer.alloc(0);
  const out: Buffer[] = [];
  for (const m of messages) out.push(...sideband(2, Buffer.from(`${m}\n`)));
  if (wantsStatus) out.push(...sideband(1, status));
  for (const m of after) out.push(...sideband(2, Buffer.from(`${m}\n`)));
  out.push(FLUSH);
  return Buffer.concat(out);
}

/**
 * The bytes a pushed pack may have: `receive_max_input_size` (MiB), which `Gitlab::Workhorse.git_http_ok`
 * hands to git as `receive.maxInputSize` when it is positive; else the reader's own bound.
 */
export function pushSizeLimit(st: PlatformState): number {
  const mb = Number(setting(st, 'receive_max_input_size') ?? 0);
  return mb > 0 ? Math.floor(mb) * 1024 * 1024 : DEFAULT_PACK_LIMITS.maxInputBytes;
}

/** receive-pack's `transfer.unpackLimit` (git's default): a pack of fewer objects goes to unpack-objects. */
const UNPACK_LIMIT = 100;

/** The program receive-pack hands a pack to, by its header's count: the name its failure is reported by. */
const unpackerOf = (pack: Buffer): string =>
  pack.length >= 12 && pack.readUInt32BE(8) < UNPACK_LIMIT ? 'unpack-objects' : 'index-pack';

/** `POST git-receive-pack`. */
export async function receivePack(c: Ctx, project: Project, actor: GitActor, body: Buffer): Promise<Buffer> {
  const r = new PktReader(body);
  const cmds: Command[] = [];
  const caps = new Set<string>();
  for (;;) {
    const p = r.next();
    if (p === 'flush' || p === 'end') break;
    if (p === 'delim') throw new Error('protocol error: unexpected delim');
    if (cmds.length >= MAX_COMMANDS) throw new Error('protocol error: too many commands');
    let line: string;
    try {
      line = strictUtf8.decode(p);
    } catch {
      // A ref name whose bytes are not UTF-8 would be kept as another name than the one pushed: refused
      // as a funny refname (git itself takes any byte above 0x7f).
      line = p.toString('utf8').replace(/\uFFFD/g, '\x01');
    }
    const nul = line.indexOf('\0');
    if (nul >= 0) {
      if (cmds.length === 0)
        for (const cap of line
          .slice(nul + 1)
          .trim()
          .split(' '))
          caps.add(cap);
      line = line.slice(0, nul);
    }
    const m = /^([0-9a-f]{40}) ([0-9a-f]{40}) (.+?)\n?$/.exec(line);
    if (!m) throw new Error(`protocol error: expected old/new/ref, got '${line.trim()}'`);
    cmds.push({ old: m[1]!, next: m[2]!, ref: m[3]! });
  }
  // A push without commands (git's probe of a chunked push) is answered with nothing.
  if (cmds.length === 0) return Buffer.alloc(0);
  const raw: string[] = [];
  let optionBytes = 0;
  if (caps.has('push-options'))
    for (let p = r.next(); p !== 'flush' && p !== 'end'; p = r.next()) {
      if (p === 'delim') throw new Error('protocol error: unexpected delim');
      if (raw.length >= MAX_PUSH_OPTIONS) throw new Error('protocol error: too many push options');
      optionBytes += p.length;
      if (optionBytes > MAX_PUSH_OPTION_BYTES) throw new Error('protocol error: push options too large');
      raw.push(p.toString('utf8').replace(/\n$/, ''));
    }
  const push: Push = { raw, options: parsePushOptions(raw) };

  // The pushed objects, apart until the push is accepted; deltas resolve against what the project's
  // repository already has.
  const pack = new ObjectStore();
  let unpack = 'ok';
  const sent = r.rest();
  if (cmds.some((cmd) => cmd.next !== BLANK_SHA)) {
    const before = state(c);
    try {
      // Read in slices that let other requests in: nothing is written until the pack is whole.
      const objects = await readPackAsync(sent, basesView(objectsOf(before), basesOf(before, project)), {
        ...DEFAULT_PACK_LIMITS,
        maxInputBytes: pushSizeLimit(before),
        deadline: Date.now() + PACK_TIME_LIMIT_MS,
      });
      for (const o of objects) pack.put(o.type, o.data);
    } catch (e) {
      if (!(e instanceof PackError)) throw e;
      unpack = e.message;
    }
  }
  if (unpack !== 'ok') {
    // As receive-pack reports a failed index-pack: its own words on the progress band, then the status.
    for (const cmd of cmds) cmd.error = 'unpacker error';
    return report(`${unpackerOf(sent)} abnormal exit`, cmds, [`fatal: ${unpack}`], caps);
  }
  // Other requests ran while the pack was read: the checks and the write see the state as it is now,
  // and the project's reach as its refs stand now.
  const st = state(c);
  const current = tget(st.projects, project.id) as Project | undefined;
  if (!current) {
    for (const cmd of cmds) cmd.error = 'failed to update ref';
    return report('ok', cmds, [], caps);
  }
  const store = objectsOf(st);
  const bases: Bases = cmds.some((cmd) => cmd.next !== BLANK_SHA) ? basesOf(st, current) : new Set<string>();
  // Staged for the checks below to read, whichever way they return; admitted with the ref updates.
  store.stage(pack);
  try {
    return execute(c, current, actor, cmds, caps, push, connectivity(pack, bases));
  } finally {
    store.unstage();
  }
}

/** The commands of a push whose pack is staged: git's checks, the platform's, then the one write. */
function execute(
  c: Ctx,
  project: Project,
  actor: GitActor,
  cmds: Command[],
  caps: Set<string>,
  push: Push,
  connected: (tip: string) => boolean,
): Buffer {
  // `git push -o ci.skip`: no pipeline for this push.
  const skipCi = push.options.get('ci')?.has('skip') === true;
  const variables = pushVariables(push.options);
  const mrOptions = push.options.get('merge_request');
  const st = state(c);
  const store = objectsOf(st);
  // git's own checks of each command.
  for (const cmd of cmds) {
    if (!validRefName(cmd.ref)) cmd.error = 'funny refname';
    else if (hiddenBy(RECEIVE_HIDDEN, cmd.ref)) cmd.error = 'deny updating a hidden ref';
    else if (cmd.ref.startsWith('refs/heads/')) [cmd.kind, cmd.name] = ['branch', cmd.ref.slice(11)];
    else if (cmd.ref.startsWith('refs/tags/')) [cmd.kind, cmd.name] = ['tag', cmd.ref.slice(10)];
    if (cmd.error) continue;
    const current =
      (cmd.kind ? refTarget(st, project, cmd.kind, cmd.name!) : otherTarget(st, project, cmd.ref)) ??
      BLANK_SHA;
    if (cmd.old === BLANK_SHA && cmd.next === BLANK_SHA) cmd.error = 'bad ref';
    else if (current !== cmd.old) cmd.error = 'failed to update ref';
    // `set_connectivity_errors`: an object neither pushed nor the repository's is missing, whether or
    // not another project holds it (the same words either way, so nothing tells the two apart).
    else if (cmd.next !== BLANK_SHA && !connected(cmd.next)) cmd.error = 'missing necessary objects';
    else if (cmd.next !== BLANK_SHA && cmd.kind === 'branch' && store.type(cmd.next) !== 'commit')
      cmd.error = 'bad ref';
  }
  if (caps.has('atomic') && cmds.some((cmd) => cmd.error !== undefined)) {
    for (const cmd of cmds) cmd.error ??= 'atomic push failure';
    return report('ok', cmds, [], caps);
  }

  // The platform's pre-receive: one refusal declines every ref of the push.
  for (const cmd of cmds) {
    // `Gitlab::Checks::ChangeAccess` checks branches and tags; any other ref moves as git moves it.
    if (cmd.error !== undefined || cmd.kind === undefined) continue;
    const refusal = platformRefusal(st, actor, project, cmd) ?? ruleRefusal(st, actor, project, cmd);
    if (refusal !== undefined) {
      for (const other of cmds) other.error ??= 'pre-receive hook declined';
      return report('ok', cmds, [`GitLab: ${refusal}`], caps);
    }
  }

  const done = cmds.filter((cmd) => cmd.error === undefined);
  // Nothing to update: the quarantine goes with the request, and nothing is written.
  if (done.length === 0) return report('ok', cmds, [], caps);
  // The branches and tags take the post-receive step; any other ref only moves (`PostReceive` hands
  // `Git::ProcessRefChangesService` the branch and tag changes alone).
  const accepted = done.filter((cmd) => cmd.kind !== undefined);
  const silent = done.filter((cmd) => cmd.kind === undefined);
  const now = c.get('fx').clock.iso();
  const userId = actor.user?.id ?? null;
  const wasEmpty = project.default_branch === null;
  const base = requestBase(c);
  let outcome: OptionsOutcome = { errors: [], created: [], updated: [], autoMerge: [] };
  const nowMs = c.get('fx').clock.ms();
  const received = write(c, (d) => {
    // The pipelines postReceive makes read the staged objects; they join the store once the write has
    // committed.
    objectsFor(d);
    const proj = tget(d.projects, project.id)!;
    for (const cmd of silent) setOtherRef(d, proj, cmd.ref, cmd.next === BLANK_SHA ? null : cmd.next);
    for (const cmd of accepted) {
      const deleting = cmd.next === BLANK_SHA;
      if (cmd.kind === 'branch' && !deleting && proj.default_branch === null) proj.default_branch = cmd.name!;
      setRef(d, proj, cmd.kind!, cmd.name!, deleting ? null : cmd.next);
      // A pushed branch moves as an API commit moves it: merge requests take a new version, and
      // commits reaching the default branch close the issues they name.
      if (cmd.kind === 'branch' && userId !== null)
        branchMoved(d, {
          projectId: project.id,
          branch: cmd.name!,
          before: cmd.old === BLANK_SHA ? undefined : cmd.old,
          after: deleting ? undefined : cmd.next,
          userId,
          now,
        });
    }
    const changes = accepted.map((cmd) => ({
      kind: cmd.kind!,
      name: cmd.name!,
      old: cmd.old,
      next: cmd.next,
    }));
    const done = postReceive(d, project.id, changes, { userId, now, wasEmpty, skipCi, base, variables });
    // `PostReceiveService#process_mr_push_options`, once the refs have moved.
    if (mrOptions !== undefined)
      outcome = mergeRequestOptionsInWrite(
        d,
        proj as Project,
        actor.user,
        accepted
          .filter((cmd) => cmd.kind === 'branch')
          .map((cmd) => ({ name: cmd.name!, old: cmd.old, next: cmd.next })),
        mrOptions,
        { now, nowMs, base, received: done },
      );
    return done;
  });
  // The refs moved: the quarantine's objects are the repository's now (`tmp_objdir_migrate`).
  store.admit();

  const after: string[] = [];
  if (outcome.errors.length > 0)
    after.push('', ...alertLines(pushOptionsWarning(push.raw, outcome.errors)), '');
  // The merge requests the options made or updated fire their hooks as the API's do.
  announceMergeRequestOptions(c, st, outcome);
  announceReceived(c.get('fx'), base, received);
  const proj = tget(state(c).projects, project.id)! as Project;
  for (const cmd of accepted) after.push(...mergeRequestUrl(state(c), proj, cmd, base));
  return report('ok', cmds, [], caps, after);
}

/**
 * `MergeRequests::GetUrlsService` for one change, as the hook prints it: a pushed branch other than the
 * default with an open merge request links to it; a new one without links to a new merge request.
 */
function mergeRequestUrl(st: PlatformState, p: Project, cmd: Command, base: string): string[] {
  if (cmd.kind !== 'branch' || cmd.next === BLANK_SHA || cmd.name === p.default_branch) return [];
  // `PostReceiveService#merge_request_urls`: only when the project prints the links.
  if (!p.printing_merge_request_link_enabled) return [];
  const open = findOpen(st, p, cmd.name!);
  const mr = open === undefined ? undefined : tget(st.issuables.mergeRequests, open);
  if (mr)
    return [
      '',
      `View merge request for ${cmd.name!}:`,
      `  ${base}/${p.path_with_namespace}/-/merge_requests/${mr.iid}`,
      '',
    ];
  if (cmd.old !== BLANK_SHA) return [];
  const url = `${base}/${p.path_with_namespace}/-/merge_requests/new?merge_request%5Bsource_branch%5D=${encodeURIComponent(cmd.name!)}`;
  return ['', `To create a merge request for ${cmd.name!}, visit:`, `  ${url}`, ''];
}
