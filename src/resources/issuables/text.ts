/**
 * What the platform reads out of issuable text: task lists, closing references (`Closes #12`),
 * `@mentions`, award-emoji-only comments, and the inline diff markers of title-change system notes.
 */
import { createHash } from 'node:crypto';
import { inSpan, type Minor } from '../../core/versions.js';
import { platformEmojiName } from './emoji-names.js';
import { WIP_TITLE_PREFIX } from './versions.js';

export interface TaskCompletion {
  count: number;
  completed_count: number;
}

/** `TaskList::ITEM_PATTERN`: a list item (`-`, `*`, `+` or `1.`) starting with `[ ]` or `[x]`. */
const TASK_ITEM = /^[ \t]*(?:[-+*]|\d+[.)])[ \t]+\[([ xX])\](?=\s)/gm;

/** Task list items of a Markdown text, outside fenced code blocks. */
export function taskCompletion(text: string | null): TaskCompletion {
  if (!text || !text.includes('[')) return { count: 0, completed_count: 0 };
  let count = 0;
  let done = 0;
  for (const block of withoutFences(text)) {
    for (const m of block.matchAll(TASK_ITEM)) {
      count++;
      if (m[1] !== ' ') done++;
    }
  }
  return { count, completed_count: done };
}

function withoutFences(text: string): string[] {
  if (!text.includes('```') && !text.includes('~~~')) return [text];
  const out: string[] = [];
  let inFence = false;
  let current: string[] = [];
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      if (!inFence) out.push(current.join('\n'));
      current = [];
      inFence = !inFence;
      continue;
    }
    if (!inFence) current.push(line);
  }
  if (!inFence) out.push(current.join('\n'));
  return out;
}

/** `task_status`: "1 of 3 tasks completed" (singular for one task). */
export const taskStatus = (t: TaskCompletion) =>
  `${t.completed_count} of ${t.count} ${t.count === 1 ? 'task' : 'tasks'} completed`;

/**
 * Issues a merge request closes on merge: the default `issue_closing_pattern` (close, closes, closed,
 * closing, fix, fixes, fixed, fixing, resolve, resolves, resolved, resolving, implement, implements,
 * implemented, implementing; a colon allowed), followed by one or more references joined by commas or
 * "and". Returns the iids of same-project references (`#12`, `project#12` is not followed).
 */
const CLOSING =
  /\b(?:[Cc]los(?:e|es|ed|ing)|[Ff]ix(?:|es|ed|ing)|[Rr]esolv(?:e|es|ed|ing)|[Ii]mplement(?:|s|ed|ing)):?\s+((?:(?:issues? +)?#\d+(?:(?: *,? +and +| *,? *)?))+)/g;

export function closingIssueIids(text: string | null): number[] {
  if (!text) return [];
  const out: number[] = [];
  for (const m of text.matchAll(CLOSING)) {
    for (const ref of m[1]!.matchAll(/#(\d+)/g)) {
      const iid = Number(ref[1]);
      if (!out.includes(iid)) out.push(iid);
    }
  }
  return out;
}

/** `@username` mentions (usernames are matched case-insensitively later). */
export function mentionedUsernames(text: string | null): string[] {
  if (!text || !text.includes('@')) return [];
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|[^\w@])@([A-Za-z0-9_.][A-Za-z0-9_.-]*[A-Za-z0-9_-]|[A-Za-z0-9_])/g)) {
    const name = m[1]!;
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

/**
 * The name an award of `name` is kept under (`+1` is `thumbsup`), or undefined when the platform does not
 * know it (emoji-names.ts: 13.12's list).
 */
export const emojiName = (name: string): string | undefined => platformEmojiName(name);

/** The emoji of a comment that is nothing but one emoji (`:+1:`), else undefined. */
export function awardOnly(body: string): string | undefined {
  const m = /^:([-_+a-z0-9]+):\s?$/i.exec(body);
  return m ? emojiName(m[1]!) : undefined;
}

/** `Gitlab::Diff::InlineDiffMarkdownMarker`: the changed middle of each side wrapped in `{- -}` / `{+ +}`. */
export function markedChange(before: string, after: string): [string, string] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (
    end < before.length - start &&
    end < after.length - start &&
    before[before.length - 1 - end] === after[after.length - 1 - end]
  )
    end++;
  const mark = (s: string, open: string, close: string) => {
    const mid = s.slice(start, s.length - end);
    return mid === '' ? s : `${s.slice(0, start)}${open}${mid}${close}${s.slice(s.length - end)}`;
  };
  return [mark(before, '{-', '-}'), mark(after, '{+', '+}')];
}

/** Draft / WIP title prefixes of 13.x (`MergeRequest::WIP_REGEX`), until 14.8 (WIP_TITLE_PREFIX). */
const WIP = /^\s*(?:\[wip\]\s*|wip:\s*|wip\s+|\[draft\]\s*|\(draft\)\s*|draft:\s*|draft\s+-\s*|draft\s+)/i;

/** `MergeRequest::DRAFT_REGEX` from 14.8 (`Gitlab::Regex.merge_request_draft`). */
const DRAFT = /^\s*(?:\[draft\]|\(draft\)|draft:)/i;

/** `MergeRequest#draft?` of the title at the instance's release. */
export const isWip = (title: string, minor: Minor) =>
  (inSpan(minor, WIP_TITLE_PREFIX) ? WIP : DRAFT).test(title);

/** A deterministic 40-hex-digit sha from any seed text. */
export const sha = (seed: string) => createHash('sha1').update(seed).digest('hex');

/** `Date#to_s(:long)`: `March  5, 2021` (the day space-padded, as Ruby's `%e`). */
export function longDate(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const months = [
    'January',
    'February',
    'March',
    'April',
    'May',
    'June',
    'July',
    'August',
    'September',
    'October',
    'November',
    'December',
  ];
  return `${months[m - 1]} ${String(d).padStart(2, ' ')}, ${y}`;
}

/** Rails' `Array#to_sentence`: `a`, `a and b`, `a, b, and c`. */
export function toSentence(items: string[]): string {
  if (items.length <= 1) return items.join('');
  if (items.length === 2) return `${items[0]} and ${items[1]}`;
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;
}

/** `LabelsHelper#text_color_for_bg`. */
export function textColorFor(bg: string): string {
  let hex = bg.replace(/^#/, '');
  if (hex.length === 3) hex = hex.replace(/./g, (ch) => ch + ch);
  if (!/^[0-9a-fA-F]{6}$/.test(hex)) return '#FFFFFF';
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
  return r + g + b > 500 ? '#333333' : '#FFFFFF';
}
