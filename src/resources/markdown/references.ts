/**
 * References resolved before rendering: the text is scanned for every reference it may hold (`#1`, `!2`,
 * `%3`, `%"name"`, `@name`), each is looked up once where the state lives, and the renderer (which may
 * run in a worker thread, away from the state) reads the answers from the table.
 */
import type { ReferenceResolver, ResolvedReference } from './render.js';

/** What a text's references resolve to; a reference not in it stays text. */
export interface ReferenceTable {
  issues: [number, ResolvedReference][];
  mergeRequests: [number, ResolvedReference][];
  milestonesByIid: [number, ResolvedReference][];
  milestonesByName: [string, ResolvedReference][];
  mentions: [string, ResolvedReference][];
}

/** Distinct references of each kind looked up in one text: the rest stay text. */
export const MAX_REFERENCES = 10_000;

// Looser than the renderer's filters (no leading-character rule), so that they find all it may ask for.
const NAME = '[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?';
const SCANS = {
  issues: /#(\d+)/g,
  mergeRequests: /!(\d+)/g,
  milestones: /%(?:(\d+)\b|"([^"]+)"|([\w.-]*\w))/g,
  mentions: new RegExp(`@(${NAME}(?:/${NAME})*)`, 'g'),
};

/** Each distinct match of `re` in `text` (group by group), at most MAX_REFERENCES. */
function scan<K>(text: string, re: RegExp, key: (m: RegExpExecArray) => K | undefined): Set<K> {
  const out = new Set<K>();
  re.lastIndex = 0;
  for (let m = re.exec(text); m && out.size < MAX_REFERENCES; m = re.exec(text)) {
    const k = key(m);
    if (k !== undefined) out.add(k);
  }
  return out;
}

function resolved<K>(keys: Set<K>, find: (k: K) => ResolvedReference | undefined): [K, ResolvedReference][] {
  const out: [K, ResolvedReference][] = [];
  for (const k of keys) {
    const r = find(k);
    if (r) out.push([k, r]);
  }
  return out;
}

/** Looks up every reference `text` may hold. */
export function resolveReferences(text: string, refs: ReferenceResolver): ReferenceTable {
  // Backslash escapes are gone from the text the filters see.
  const plain = text.replace(/\\([!-/:-@[-`{-~])/g, '$1');
  const iids = scan(plain, SCANS.milestones, (m) => (m[1] ? Number(m[1]) : undefined));
  const names = scan(plain, SCANS.milestones, (m) => (m[1] ? undefined : (m[2] ?? m[3])));
  return {
    issues: resolved(
      scan(plain, SCANS.issues, (m) => Number(m[1])),
      (k) => refs.issue(k),
    ),
    mergeRequests: resolved(
      scan(plain, SCANS.mergeRequests, (m) => Number(m[1])),
      (k) => refs.mergeRequest(k),
    ),
    milestonesByIid: resolved(iids, (iid) => refs.milestone({ iid })),
    milestonesByName: resolved(names, (name) => refs.milestone({ name })),
    mentions: resolved(
      scan(plain, SCANS.mentions, (m) => m[1]),
      (k) => refs.mention(k),
    ),
  };
}

/** The renderer's resolver over a table. */
export function tableResolver(t: ReferenceTable): ReferenceResolver {
  const issues = new Map(t.issues);
  const mrs = new Map(t.mergeRequests);
  const byIid = new Map(t.milestonesByIid);
  const byName = new Map(t.milestonesByName);
  const mentions = new Map(t.mentions);
  return {
    issue: (iid) => issues.get(iid),
    mergeRequest: (iid) => mrs.get(iid),
    milestone: (ref) => (ref.iid !== undefined ? byIid.get(ref.iid) : byName.get(ref.name ?? '')),
    mention: (name) => mentions.get(name),
  };
}
