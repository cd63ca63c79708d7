/**
 * The epic tree in scenario files: an epic's `parent` (`group/path&iid`, the iid an epic of that group
 * gets from its place among the group's listed epics) and its `relative_position` among the parent's
 * children. Checked, built after every epic exists, and exported in the same form.
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { PlatformState } from '../../core/state.js';
import { iget, mget, tget, tvalues } from '../../core/table.js';

type S = Draft<PlatformState>;

export const epicTreeFields = {
  parent: z
    .string()
    .regex(/^.+&\d+$/, 'must be `group/path&iid`')
    .max(1000)
    .optional()
    .describe('parent epic (ultimate: child epics), as `group/path&iid` of an epic listed in `epics`'),
  relative_position: z
    .number()
    .int()
    .min(-0x80000000)
    .max(0x7fffffff)
    .optional()
    .describe("place among the parent's children (lower first); without it, after the placed ones"),
};

interface TreeEntry {
  group: string;
  parent?: string | undefined;
}

/** `group&iid` -> index in `epics`, iids counted per group in list order. */
function refIndex(epics: readonly TreeEntry[]): Map<string, number> {
  const seq = new Map<string, number>();
  const out = new Map<string, number>();
  epics.forEach((e, i) => {
    const g = e.group.toLowerCase();
    const iid = (seq.get(g) ?? 0) + 1;
    seq.set(g, iid);
    out.set(`${g}&${iid}`, i);
  });
  return out;
}

/** A parent that exists, in the epic's group or an ancestor of it (`validate_parent`), and no cycle. */
export function epicTreeProblems(epics: readonly TreeEntry[]): string[] {
  const problems: string[] = [];
  const index = refIndex(epics);
  const parentOf = (i: number) => {
    const ref = epics[i]!.parent;
    return ref === undefined ? undefined : index.get(ref.toLowerCase());
  };
  epics.forEach((e, i) => {
    if (e.parent === undefined) return;
    const at = `epics[${i}].parent`;
    const j = parentOf(i);
    if (j === undefined) return void problems.push(`${at}: no epic "${e.parent}" listed`);
    const pg = epics[j]!.group.toLowerCase();
    const g = e.group.toLowerCase();
    if (g !== pg && !g.startsWith(`${pg}/`))
      problems.push(`${at}: the parent must be in the epic's group or an ancestor group`);
    const seen = new Set<number>([i]);
    for (let k: number | undefined = j; k !== undefined; k = parentOf(k)) {
      if (seen.has(k)) return void problems.push(`${at}: the parents make a cycle`);
      seen.add(k);
    }
  });
  return problems;
}

/** Sets the parents and positions once every epic of the scenario is built. */
export function buildEpicTree(
  st: S,
  epics: readonly (TreeEntry & { relative_position?: number | undefined })[],
  ids: readonly number[],
): void {
  const byRef = (ref: string) => {
    const at = ref.lastIndexOf('&');
    const gid = iget(st.idx.namespaces, ref.slice(0, at).toLowerCase());
    const iid = Number(ref.slice(at + 1));
    return gid === undefined
      ? undefined
      : mget(st.issuables.idx.owned, `eg${gid}`).find((x) => tget(st.issuables.epics, x)?.iid === iid);
  };
  epics.forEach((e, i) => {
    const rec = tget(st.issuables.epics, ids[i]!);
    if (!rec) return;
    if (e.parent !== undefined) rec.parent_id = byRef(e.parent) ?? null;
    if (e.relative_position !== undefined) rec.relative_position = e.relative_position;
  });
}

/** The export's `parent` of each epic with one: its iid as the exported list will give it again. */
export function exportedParents(st: PlatformState, exported: readonly number[]): Map<number, string> {
  const ordinal = new Map<number, string>();
  const seq = new Map<number, number>();
  for (const id of exported) {
    const e = tget(st.issuables.epics, id)!;
    const n = (seq.get(e.group_id) ?? 0) + 1;
    seq.set(e.group_id, n);
    ordinal.set(id, `${tget(st.groups, e.group_id)!.full_path}&${n}`);
  }
  const out = new Map<number, string>();
  for (const e of tvalues(st.issuables.epics)) {
    const ref = e.parent_id == null ? undefined : ordinal.get(e.parent_id);
    if (ref !== undefined && ordinal.has(e.id)) out.set(e.id, ref);
  }
  return out;
}
