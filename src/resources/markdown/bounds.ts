/**
 * Bounds on what the Markdown parser is given, so that any text parses in time linear in its size and
 * without deep recursion: containers past a depth and inline marks past a budget are swapped for
 * stand-in characters before parsing and put back in the tree afterwards, so they render as text.
 */
import type { Nodes as MdNodes } from 'mdast';

/**
 * Container depth (block quotes and list items, on one line or by indentation) the parser is given.
 * micromark checks each line against every open container and recurses per container, so a few
 * kilobytes of `>` overflowed the stack; markers beyond it are kept as text.
 */
const MAX_CONTAINERS = 32;
/** Columns of indentation the parser is given: what MAX_CONTAINERS list levels need. */
const MAX_INDENT = MAX_CONTAINERS * 2;

/**
 * Emphasis delimiters (`*`, `_`, `~`) and brackets one block may hand the parser, fewer in a long block
 * (marks times length stays under INLINE_WORK): micromark resolves them in time that grows with their
 * number times the block's length (50 KB of `*a` took 40 s). No ordinary paragraph comes near it.
 */
const MAX_INLINE_MARKS = 256;
const INLINE_WORK = 2 ** 20;

/**
 * Marks kept as text are handed to the parser as private-use stand-ins (U+E000 plus the ASCII code),
 * which it reads as plain text in one run (a backslash escape is a construct of its own, and costs as
 * much as a mark), and put back in the tree it returns. A text that already holds such characters gets
 * backslash escapes instead.
 */
const STAND_IN = /[\uE000-\uE07F]/;
const STAND_INS = /[\uE000-\uE07F]/g;
const standIn = (ch: string) => String.fromCharCode(0xe000 + ch.charCodeAt(0));

/** Keeps `line[i]` as text: a stand-in, or a backslash before it. */
function asText(line: string, i: number, hide: boolean): string {
  return hide
    ? line.slice(0, i) + standIn(line[i]!) + line.slice(i + 1)
    : `${line.slice(0, i)}\\${line.slice(i)}`;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** A list marker at `i` (`-`, `+`, `*`, `1.`, `1)` then a space or tab): its length, else 0. */
function listMarker(line: string, i: number): number {
  const ch = line[i];
  if ((ch === '-' || ch === '+' || ch === '*') && /[ \t]/.test(line[i + 1] ?? '')) return 1;
  const m = /^\d{1,9}[.)](?=[ \t])/.exec(line.slice(i, i + 11));
  return m ? m[0].length : 0;
}

/** One line with its containers bounded (MAX_INDENT, MAX_CONTAINERS). */
function boundContainers(source: string, hide: boolean): string {
  let line = source;
  const lead = /^[ \t]*/.exec(line)![0];
  if (lead.length > MAX_INDENT / 4 && lead.replace(/\t/g, '    ').length > MAX_INDENT) {
    let cols = 0;
    let keep = 0;
    while (cols < MAX_INDENT) cols += lead[keep++] === '\t' ? 4 : 1;
    const rest = lead.slice(keep);
    line = lead.slice(0, keep) + (hide ? rest.replace(/[ \t]/g, standIn) : '') + line.slice(lead.length);
  }
  let depth = 0;
  let indent = 0;
  for (let i = 0; i < line.length;) {
    const ch = line[i];
    if (ch === ' ' || ch === '\t') {
      indent += ch === '\t' ? 4 : 1;
      i++;
      continue;
    }
    const marker = ch === '>' ? 1 : listMarker(line, i);
    if (marker === 0) break;
    // Indentation nests lists too (two columns a level): counted the same way.
    if (++depth + (indent >> 1) > MAX_CONTAINERS) return asText(line, i + marker - 1, hide);
    i += marker;
  }
  return line;
}

/** One block with its inline marks past the budget kept as text (MAX_INLINE_MARKS, INLINE_WORK). */
function boundMarks(block: string, hide: boolean): string {
  const budget = Math.max(16, Math.min(MAX_INLINE_MARKS, Math.floor(INLINE_WORK / block.length)));
  let marks = 0;
  const parts: string[] = [];
  let last = 0;
  for (let i = 0; i < block.length; i++) {
    const ch = block.charCodeAt(i);
    // * _ ~ [ ]
    if (ch !== 42 && ch !== 95 && ch !== 126 && ch !== 91 && ch !== 93) continue;
    if (++marks <= budget || block.charCodeAt(i - 1) === 92) continue;
    parts.push(block.slice(last, i), hide ? standIn(block[i]!) : `\\${block[i]}`);
    last = i + 1;
  }
  if (last === 0) return block;
  parts.push(block.slice(last));
  return parts.join('');
}

/**
 * The text the parser is given: the same except where a line nests containers too deep or a block
 * holds too many inline marks, which keeps parsing linear in the text's length and its recursion
 * shallow; `hidden` says stand-ins were used (same length as the text: positions hold). Fenced code is
 * left as it is.
 */
export function boundedMarkdown(text: string): { text: string; hidden: boolean } {
  const hide = !STAND_IN.test(text);
  const lines = text.split('\n');
  let fence: string | undefined;
  let block: string[] = [];
  const out: string[] = [];
  const flush = () => {
    if (block.length === 0) return;
    out.push(boundMarks(block.join('\n'), hide));
    block = [];
  };
  for (const raw of lines) {
    const f = FENCE.exec(raw)?.[1];
    if (fence !== undefined) {
      out.push(raw);
      if (f !== undefined && f[0] === fence[0] && f.length >= fence.length) fence = undefined;
      continue;
    }
    if (f !== undefined) {
      flush();
      out.push(raw);
      fence = f;
      continue;
    }
    const line = boundContainers(raw, hide);
    if (line.trim() === '') {
      flush();
      out.push(line);
    } else block.push(line);
  }
  flush();
  return { text: out.join('\n'), hidden: hide };
}

/** Puts the stand-ins of `boundedMarkdown` back, in every string the tree holds (without recursion). */
export function restoreStandIns(tree: MdNodes): void {
  const back = (v: string) =>
    STAND_IN.test(v) ? v.replace(STAND_INS, (c) => String.fromCharCode(c.charCodeAt(0) - 0xe000)) : v;
  const stack: MdNodes[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const fields = node as unknown as Record<string, unknown>;
    for (const key of ['value', 'url', 'title', 'alt', 'label'])
      if (typeof fields[key] === 'string') fields[key] = back(fields[key]);
    if ('children' in node) for (const child of node.children) stack.push(child as MdNodes);
  }
}
