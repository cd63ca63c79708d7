/**
 * Scenario files' `repository` of a project: commits (oldest first, each with its files as text,
 * base64, or null to remove), branches and tags, or a git bundle. The export writes every commit the
 * refs reach with its exact author, committer, dates and parents, so that loading it gives the same
 * commit ids; a repository whose objects that list cannot write byte for byte (a time zone other than
 * UTC, a `gpgsig` or `encoding` header, a message that is not UTF-8) or that has refs other than
 * branches and tags is written as a bundle instead, as the platform's project export carries one.
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut, ScenarioRefs } from '../../core/area.js';
import { isoTime } from '../../core/fields.js';
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { BundleError, readBundle, writeBundle, type Bundle, type BundleRef } from './bundle.js';
import { hiddenBy, RECEIVE_HIDDEN } from '../git_http/refs.js';
import { validRefName } from './names.js';
import {
  encodeCommit,
  encodeTag,
  signatureAt,
  TREE_MODE,
  type Mode,
  type ObjectStore,
  type Signature,
} from './objects.js';
import { reachableObjects } from './pack.js';
import { declareRepository, names, otherRefs, peel, refTarget, setOtherRef, setRef } from './refs.js';
import { objectsFor, objectsOf } from './store.js';
import { applyChanges, diffTrees, listTree, type Change } from './tree.js';

type S = Draft<PlatformState>;

const fileValue = z.union([
  z.string().describe('text content'),
  z.strictObject({
    text: z.string().optional(),
    base64: z.string().optional(),
    mode: z.enum(['100644', '100755', '120000']).optional().describe('100755: executable; 120000: a symlink'),
  }),
  z.null().describe('removes the file'),
]);

const person = z.union([
  z.string().describe('username of a listed user'),
  z.strictObject({ name: z.string(), email: z.string() }),
]);

const commitSchema = z.strictObject({
  id: z.string().optional().describe('a label (or the sha) later entries name this commit by'),
  branch: z.string().optional().describe('the branch the commit goes on (and moves)'),
  parents: z.array(z.string()).optional().describe('labels of earlier commits; default the branch head'),
  message: z.string(),
  author: person.optional(),
  date: isoTime.optional(),
  committer: person.optional(),
  committed_date: isoTime.optional(),
  files: z.record(z.string(), fileValue).default({}),
});

const repositorySchema = z.strictObject({
  bundle: z
    .string()
    .optional()
    .describe(
      'a git bundle (`git bundle create - --all`) in base64: its objects under their own ids and its refs, before the commits, branches and tags below',
    ),
  commits: z.array(commitSchema).default([]),
  branches: z
    .array(
      z.strictObject({
        name: z.string(),
        commit: z.string().optional().describe('label of a commit, or a branch; default the default branch'),
        files: z.record(z.string(), fileValue).optional().describe('one more commit on the branch'),
      }),
    )
    .default([]),
  tags: z
    .array(
      z.strictObject({
        name: z.string(),
        commit: z.string().describe('label of a commit, or a branch'),
        message: z.string().optional().describe('an annotated tag'),
        tagger: person.optional(),
        date: isoTime.optional(),
      }),
    )
    .default([]),
});

export const repositoryProjectFields = {
  repository: repositorySchema.optional().describe('commits, branches and tags with real content'),
};

type RepositoryScenario = z.output<typeof repositorySchema>;
type FileValue = z.output<typeof fileValue>;
type Person = z.output<typeof person>;
export interface RepositoryProject {
  repository?: RepositoryScenario;
}

/**
 * The refs the platform makes and keeps itself (merge request, pipeline, environment and keep-around
 * refs, the ones a push may not write: `RECEIVE_HIDDEN`): they follow its records, so a scenario
 * neither writes nor loads them.
 */
const platformRef = (name: string) => hiddenBy(RECEIVE_HIDDEN, name);

/** A scenario's bundle read, or the reason it cannot be. */
function scenarioBundle(text: string): Bundle | string {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length === 0 || bytes.toString('base64') !== text.replace(/\s+/g, ''))
    return 'must be a git bundle in base64';
  try {
    const bundle = readBundle(bytes);
    for (const r of bundle.refs) {
      const short = r.name.replace(/^refs\/(heads|tags)\//, '');
      if (r.name === 'HEAD') continue;
      if (!r.name.startsWith('refs/') || !validRefName(r.name.slice(5)) || platformRef(r.name))
        return `names a ref fauxlab cannot load: ${JSON.stringify(r.name)}`;
      if (short !== r.name && !validRefName(short)) return `names an invalid ref ${JSON.stringify(r.name)}`;
    }
    return bundle;
  } catch (e) {
    if (e instanceof BundleError) return e.message;
    throw e;
  }
}

/** Unknown users and labels that name no earlier commit or branch; a bundle that cannot be read. */
export function repositoryProblems(p: RepositoryProject, at: string, refs: ScenarioRefs): string[] {
  const r = p.repository;
  if (!r) return [];
  const out: string[] = [];
  const known = new Set<string>();
  if (r.bundle !== undefined) {
    const b = scenarioBundle(r.bundle);
    if (typeof b === 'string') out.push(`${at}.repository.bundle: ${b}`);
    else
      for (const ref of b.refs) {
        known.add(ref.id);
        if (ref.name.startsWith('refs/heads/')) known.add(ref.name.slice(11));
      }
  }
  const user = (x: Person | undefined, where: string) => {
    if (typeof x === 'string' && !refs.users.has(x.toLowerCase())) out.push(`${where}: no user "${x}"`);
  };
  r.commits.forEach((c, i) => {
    const where = `${at}.repository.commits[${i}]`;
    for (const parent of c.parents ?? [])
      if (!known.has(parent)) out.push(`${where}.parents: no earlier commit "${parent}"`);
    user(c.author, `${where}.author`);
    user(c.committer, `${where}.committer`);
    if (c.id !== undefined) known.add(c.id);
    if (c.branch !== undefined) known.add(c.branch);
  });
  for (const b of r.branches) {
    if (b.commit !== undefined && !known.has(b.commit))
      out.push(`${at}.repository.branches: "${b.name}" names no earlier commit "${b.commit}"`);
    known.add(b.name);
  }
  r.tags.forEach((t, i) => {
    if (!known.has(t.commit))
      out.push(`${at}.repository.tags[${i}].commit: no commit or branch "${t.commit}"`);
    user(t.tagger, `${at}.repository.tags[${i}].tagger`);
  });
  return out;
}

function blobChange(store: ObjectStore, v: FileValue): Change {
  if (v === null) return null;
  if (typeof v === 'string') return { mode: '100644', id: store.putBlob(Buffer.from(v, 'utf8')) };
  const data = v.base64 !== undefined ? Buffer.from(v.base64, 'base64') : Buffer.from(v.text ?? '', 'utf8');
  return { mode: (v.mode ?? '100644') as Mode, id: store.putBlob(data) };
}

/** Builds a project's declared repository (after the project and its CI refs exist). */
export function buildRepository(st: S, project: ProjectRecord, p: RepositoryProject, b: ScenarioBuild): void {
  const r = p.repository;
  if (!r) return;
  const store = objectsFor(st);
  declareRepository(st, project);
  const labels = new Map<string, string>();
  const sig = (x: Person | undefined, date: string | undefined): Signature => {
    const time = Math.floor(Date.parse(date ?? b.now) / 1000);
    if (x === undefined || typeof x === 'string') {
      const u = tget(st.users, x === undefined ? project.creator_id : b.uid(x));
      return {
        name: u?.name ?? 'Administrator',
        email: u ? (u.commit_email ?? u.email) : 'admin@example.com',
        time,
      };
    }
    return signatureAt(x, time);
  };
  const head = (name: string) => {
    const id = refTarget(st, project, 'branch', name);
    return id === undefined ? undefined : peel(store, id);
  };
  const resolve = (ref: string) => labels.get(ref) ?? head(ref) ?? (store.has(ref) ? ref : undefined);
  const commit = (
    parents: string[],
    files: Record<string, FileValue>,
    fields: Omit<z.output<typeof commitSchema>, 'files'>,
  ) => {
    const base = parents[0] === undefined ? undefined : store.commit(parents[0])?.tree;
    const changes = new Map(Object.entries(files).map(([path, v]) => [path, blobChange(store, v)] as const));
    const tree = changes.size === 0 && base !== undefined ? base : applyChanges(store, base, changes);
    const author = sig(fields.author, fields.date);
    const committer =
      fields.committer === undefined && fields.committed_date === undefined
        ? author
        : sig(fields.committer ?? fields.author, fields.committed_date ?? fields.date);
    return store.putCommit({ tree, parents, author, committer, message: fields.message });
  };
  if (r.bundle !== undefined) loadBundle(st, project, r.bundle);
  for (const c of r.commits) {
    const defaultParent = c.branch !== undefined ? (head(c.branch) ?? defaultHead()) : undefined;
    const parents =
      c.parents !== undefined ? c.parents.map((x) => resolve(x)!) : defaultParent ? [defaultParent] : [];
    const id = commit(parents, c.files, c);
    if (c.id !== undefined) labels.set(c.id, id);
    if (c.branch !== undefined) {
      if (project.default_branch === null) tget(st.projects, project.id)!.default_branch = c.branch;
      setRef(st, project, 'branch', c.branch, id);
    }
  }
  function defaultHead() {
    return project.default_branch === null ? undefined : head(project.default_branch);
  }
  for (const br of r.branches) {
    let at = br.commit !== undefined ? resolve(br.commit) : (head(br.name) ?? defaultHead());
    if (br.files) at = commit(at ? [at] : [], br.files, { message: 'Add files' });
    if (at !== undefined) setRef(st, project, 'branch', br.name, at);
  }
  for (const t of r.tags) {
    const target = resolve(t.commit)!;
    const id =
      t.message === undefined
        ? target
        : store.putTag({
            object: target,
            type: 'commit',
            tag: t.name,
            tagger: sig(t.tagger, t.date),
            message: t.message,
          });
    setRef(st, project, 'tag', t.name, id);
  }
}

/** A bundle's objects under their own ids, then its refs; `HEAD` names the default branch when none is set. */
function loadBundle(st: S, project: ProjectRecord, text: string): void {
  const bundle = scenarioBundle(text);
  // repositoryProblems refused an unreadable bundle before the build.
  if (typeof bundle === 'string') throw new Error(bundle);
  const store = objectsFor(st);
  for (const o of bundle.objects) store.put(o.type, o.data);
  const head = bundle.refs.find((r) => r.name === 'HEAD');
  for (const ref of bundle.refs) {
    if (ref.name.startsWith('refs/heads/')) {
      const name = ref.name.slice(11);
      setRef(st, project, 'branch', name, ref.id);
      if (project.default_branch === null && head?.id === ref.id)
        tget(st.projects, project.id)!.default_branch = name;
    } else if (ref.name.startsWith('refs/tags/')) setRef(st, project, 'tag', ref.name.slice(10), ref.id);
    else if (ref.name !== 'HEAD') setOtherRef(st, project, ref.name, ref.id);
  }
}

/**
 * Whether the commit list can write what `ids` hold byte for byte: every commit and tag re-encodes to
 * its own bytes (fauxlab writes UTC signatures and no extra headers), every message is UTF-8.
 */
function listable(store: ObjectStore, ids: Iterable<string>): boolean {
  for (const id of ids) {
    const type = store.type(id);
    if (type !== 'commit' && type !== 'tag') continue;
    const commit = type === 'commit' ? store.commit(id)! : undefined;
    const tag = type === 'tag' ? store.tag(id)! : undefined;
    const again = commit ? encodeCommit(commit) : encodeTag(tag!);
    if (!again.equals(store.raw(id)!)) return false;
    if (tag && tag.type !== 'commit') return false;
    // The list's dates are UTC: a signature in another offset re-encodes only through the bundle.
    const signed = commit ? [commit.author, commit.committer] : [tag!.tagger];
    if (signed.some((sig) => (sig.offset ?? 0) !== 0)) return false;
  }
  return true;
}

function fileOut(store: ObjectStore, mode: string, id: string): FileValue {
  const data = store.raw(id, 'blob') ?? Buffer.alloc(0);
  const text = data.toString('utf8');
  const isText = !data.includes(0) && Buffer.from(text, 'utf8').equals(data);
  if (mode === '100644' && isText) return text;
  const out: { text?: string; base64?: string; mode?: '100755' | '120000' } = isText
    ? { text }
    : { base64: data.toString('base64') };
  if (mode === '100755' || mode === '120000') out.mode = mode;
  return out;
}

const who = (s: Signature) => ({ name: s.name, email: s.email });
const iso = (t: number) => new Date(t * 1000).toISOString();

/** Every commit the project's refs reach, parents first. */
function topo(store: ObjectStore, heads: string[]): string[] {
  const out: string[] = [];
  const done = new Set<string>();
  const stack: [string, boolean][] = heads.map((h) => [h, false]);
  while (stack.length > 0) {
    const [id, expanded] = stack.pop()!;
    if (done.has(id)) continue;
    const c = store.commit(id);
    if (!c) continue;
    if (expanded) {
      done.add(id);
      out.push(id);
      continue;
    }
    stack.push([id, true]);
    for (const p of [...c.parents].reverse()) if (!done.has(p)) stack.push([p, false]);
  }
  return out;
}

/** Writes the repositories that were written to (or declared): a never written one needs nothing. */
export function exportRepositories(st: PlatformState, out: ScenarioOut): void {
  const store = objectsOf(st);
  for (const refs of tvalues(st.refs)) {
    const e = out.project(refs.project_id);
    const project = tget(st.projects, refs.project_id);
    if (!e || !project) continue;
    const allBranches = names(st, project, 'branch');
    const allTags = names(st, project, 'tag');
    const target = (kind: 'branch' | 'tag', n: string) => refTarget(st, project, kind, n)!;
    // A ref given a bare sha (CI scenario refs, control-plane pushes) has no objects to write.
    const real = (kind: 'branch' | 'tag', n: string) =>
      store.commit(peel(store, target(kind, n))) !== undefined;
    const branchNames = allBranches.filter((n) => real('branch', n));
    const tagNames = allTags.filter((n) => real('tag', n));
    const heads = [
      ...branchNames.map((n) => peel(store, target('branch', n))),
      ...tagNames.map((n) => peel(store, target('tag', n))),
    ];
    const others = otherRefs(st, project).filter(([n, id]) => !platformRef(n) && store.has(id));
    const tips = [
      ...branchNames.map((n) => target('branch', n)),
      ...tagNames.map((n) => target('tag', n)),
      ...others.map(([, id]) => id),
    ];
    if (others.length > 0 || !listable(store, reachableObjects(store, [...new Set(tips)]))) {
      const byName = (a: BundleRef, b: BundleRef) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));
      const refsOf = (kind: 'branch' | 'tag', list: string[]) =>
        list
          .map((n) => ({ name: `refs/${kind === 'branch' ? 'heads' : 'tags'}/${n}`, id: target(kind, n) }))
          .sort(byName);
      const branches = refsOf('branch', branchNames);
      const d = project.default_branch;
      const headId = d === null ? undefined : branches.find((b) => b.name === `refs/heads/${d}`)?.id;
      const bundle = writeBundle(store, [
        ...(headId === undefined ? [] : [{ name: 'HEAD', id: headId }]),
        ...branches,
        ...refsOf('tag', tagNames),
        ...others.map(([name, id]) => ({ name, id })),
      ]);
      if (bundle !== undefined) e.repository = { bundle: bundle.toString('base64') };
      continue;
    }
    const commits = topo(store, heads).map((id) => {
      const c = store.commit(id)!;
      const base = c.parents[0] === undefined ? undefined : store.commit(c.parents[0])?.tree;
      const files: Record<string, FileValue> = {};
      if (base === undefined)
        for (const f of listTree(store, c.tree, '', true)) {
          if (f.mode !== TREE_MODE) files[f.path] = fileOut(store, f.mode, f.id);
        }
      else
        for (const d of diffTrees(store, base, c.tree)) {
          if (d.from !== undefined) files[d.from] = null;
          files[d.path] = d.new ? fileOut(store, d.new.mode, d.new.id) : null;
        }
      const entry: Record<string, unknown> = { id, parents: c.parents, message: c.message };
      entry.author = who(c.author);
      entry.date = iso(c.author.time);
      if (c.committer.name !== c.author.name || c.committer.email !== c.author.email)
        entry.committer = who(c.committer);
      if (c.committer.time !== c.author.time || entry.committer) entry.committed_date = iso(c.committer.time);
      entry.files = files;
      return entry;
    });
    if (commits.length === 0) continue;
    const tags = tagNames.map((n) => {
      const t = store.tag(target('tag', n));
      if (!t) return { name: n, commit: target('tag', n) };
      return {
        name: n,
        commit: t.object,
        message: t.message,
        tagger: who(t.tagger),
        date: iso(t.tagger.time),
      };
    });
    e.repository = {
      commits,
      branches: branchNames.map((n) => ({ name: n, commit: peel(store, target('branch', n)) })),
      ...(tags.length > 0 && { tags }),
    };
  }
}
