/**
 * Emoji for the GFM pipeline's `<gl-emoji>` tags: names, descriptions and characters from `gemoji`
 * (GitHub's emoji names, which the platform's set shares), and the Unicode version the tag carries.
 */
import { createRequire } from 'node:module';

export interface EmojiInfo {
  name: string;
  char: string;
  description: string;
}

/**
 * The Unicode version that introduced a code point, for the code points emoji use: each entry starts a
 * run that lasts until the next one (Unicode's DerivedAge, reduced to the emoji blocks).
 */
const AGES: ReadonlyArray<readonly [number, string]> = [
  [0x00a9, '1.1'],
  [0x2000, '1.1'],
  [0x2139, '3.0'],
  [0x2194, '1.1'],
  [0x23cf, '4.0'],
  [0x23e9, '6.0'],
  [0x23f8, '7.0'],
  [0x23fb, '1.1'],
  [0x2614, '4.0'],
  [0x2616, '3.2'],
  [0x2618, '4.1'],
  [0x2619, '3.0'],
  [0x261a, '1.1'],
  [0x267e, '4.1'],
  [0x2680, '3.2'],
  [0x268a, '4.0'],
  [0x2692, '4.1'],
  [0x26a0, '4.0'],
  [0x26a2, '4.1'],
  [0x26b2, '5.0'],
  [0x26b3, '5.1'],
  [0x26bd, '5.2'],
  [0x26ce, '6.0'],
  [0x26cf, '5.2'],
  [0x26e2, '6.0'],
  [0x26e3, '5.2'],
  [0x26e8, '5.2'],
  [0x2700, '7.0'],
  [0x2701, '1.1'],
  [0x2705, '6.0'],
  [0x2706, '1.1'],
  [0x270a, '6.0'],
  [0x270c, '1.1'],
  [0x2728, '6.0'],
  [0x2729, '1.1'],
  [0x274c, '6.0'],
  [0x274d, '1.1'],
  [0x274e, '6.0'],
  [0x274f, '1.1'],
  [0x2753, '6.0'],
  [0x2756, '5.2'],
  [0x2757, '5.2'],
  [0x2758, '1.1'],
  [0x2795, '6.0'],
  [0x2798, '1.1'],
  [0x27b0, '6.0'],
  [0x27b1, '1.1'],
  [0x27bf, '6.0'],
  [0x27c0, '1.1'],
  [0x2934, '3.2'],
  [0x2b05, '4.0'],
  [0x2b1b, '5.1'],
  [0x2b50, '5.1'],
  [0x2b55, '5.2'],
  [0x2b56, '1.1'],
  [0x1f004, '5.1'],
  [0x1f0cf, '6.0'],
  [0x1f170, '6.0'],
  [0x1f300, '6.0'],
  [0x1f321, '7.0'],
  [0x1f32d, '8.0'],
  [0x1f330, '6.0'],
  [0x1f336, '7.0'],
  [0x1f337, '6.0'],
  [0x1f37d, '7.0'],
  [0x1f37e, '8.0'],
  [0x1f380, '6.0'],
  [0x1f394, '7.0'],
  [0x1f3a0, '6.0'],
  [0x1f3c5, '7.0'],
  [0x1f3c6, '6.0'],
  [0x1f3cb, '7.0'],
  [0x1f3cf, '8.0'],
  [0x1f3d4, '7.0'],
  [0x1f3e0, '6.0'],
  [0x1f3f1, '7.0'],
  [0x1f3f8, '8.0'],
  [0x1f400, '6.0'],
  [0x1f43f, '7.0'],
  [0x1f440, '6.0'],
  [0x1f441, '7.0'],
  [0x1f442, '6.0'],
  [0x1f4f8, '7.0'],
  [0x1f4f9, '6.0'],
  [0x1f4fd, '7.0'],
  [0x1f4ff, '8.0'],
  [0x1f500, '6.0'],
  [0x1f53e, '7.0'],
  [0x1f54b, '8.0'],
  [0x1f550, '6.0'],
  [0x1f568, '7.0'],
  [0x1f57a, '9.0'],
  [0x1f57b, '7.0'],
  [0x1f5a4, '9.0'],
  [0x1f5a5, '7.0'],
  [0x1f5fb, '6.0'],
  [0x1f600, '6.1'],
  [0x1f601, '6.0'],
  [0x1f611, '6.1'],
  [0x1f612, '6.0'],
  [0x1f615, '6.1'],
  [0x1f616, '6.0'],
  [0x1f617, '6.1'],
  [0x1f618, '6.0'],
  [0x1f619, '6.1'],
  [0x1f61a, '6.0'],
  [0x1f61b, '6.1'],
  [0x1f61c, '6.0'],
  [0x1f61f, '6.1'],
  [0x1f620, '6.0'],
  [0x1f626, '6.1'],
  [0x1f628, '6.0'],
  [0x1f62c, '6.1'],
  [0x1f62d, '6.0'],
  [0x1f62e, '6.1'],
  [0x1f630, '6.0'],
  [0x1f634, '6.1'],
  [0x1f635, '6.0'],
  [0x1f641, '7.0'],
  [0x1f643, '8.0'],
  [0x1f645, '6.0'],
  [0x1f650, '7.0'],
  [0x1f680, '6.0'],
  [0x1f6c6, '7.0'],
  [0x1f6d0, '8.0'],
  [0x1f6d1, '9.0'],
  [0x1f6d5, '12.0'],
  [0x1f6d6, '13.0'],
  [0x1f6e0, '7.0'],
  [0x1f6f4, '9.0'],
  [0x1f6f7, '10.0'],
  [0x1f6f9, '11.0'],
  [0x1f6fa, '12.0'],
  [0x1f6fb, '13.0'],
  [0x1f7e0, '12.0'],
  [0x1f90c, '13.0'],
  [0x1f90d, '12.0'],
  [0x1f910, '8.0'],
  [0x1f919, '9.0'],
  [0x1f91f, '10.0'],
  [0x1f920, '9.0'],
  [0x1f928, '10.0'],
  [0x1f930, '9.0'],
  [0x1f931, '10.0'],
  [0x1f933, '9.0'],
  [0x1f93f, '12.0'],
  [0x1f940, '9.0'],
  [0x1f94c, '10.0'],
  [0x1f94d, '11.0'],
  [0x1f950, '9.0'],
  [0x1f95f, '10.0'],
  [0x1f96c, '11.0'],
  [0x1f971, '12.0'],
  [0x1f972, '13.0'],
  [0x1f973, '11.0'],
  [0x1f977, '13.0'],
  [0x1f97a, '11.0'],
  [0x1f97b, '12.0'],
  [0x1f97c, '11.0'],
  [0x1f980, '8.0'],
  [0x1f985, '9.0'],
  [0x1f992, '10.0'],
  [0x1f998, '11.0'],
  [0x1f9a3, '13.0'],
  [0x1f9a5, '12.0'],
  [0x1f9ab, '13.0'],
  [0x1f9ae, '12.0'],
  [0x1f9b0, '11.0'],
  [0x1f9ba, '12.0'],
  [0x1f9c0, '8.0'],
  [0x1f9c1, '11.0'],
  [0x1f9c3, '12.0'],
  [0x1f9cb, '13.0'],
  [0x1f9cd, '12.0'],
  [0x1f9d0, '10.0'],
  [0x1f9e7, '11.0'],
  [0x1fa70, '12.0'],
  [0x1fa74, '13.0'],
  [0x1fa78, '12.0'],
  [0x1fa80, '12.0'],
  [0x1fa83, '13.0'],
  [0x1fa90, '12.0'],
  [0x1fa96, '13.0'],
];

/** The Unicode version of an emoji: that of its first code point. */
export function unicodeVersion(char: string): string {
  const cp = char.codePointAt(0) ?? 0;
  let lo = 0;
  let hi = AGES.length - 1;
  let found = '6.0';
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (AGES[mid]![0] <= cp) {
      found = AGES[mid]![1];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

let byName: Map<string, EmojiInfo> | undefined;
let byChar: Map<string, EmojiInfo> | undefined;
let charPattern: RegExp | undefined;

/**
 * gemoji's table is a third of a megabyte of source: it loads with the first emoji looked up (a user
 * status, the Markdown pipeline), not with the server.
 */
const gemojiTable = () => (createRequire(import.meta.url)('gemoji') as typeof import('gemoji')).gemoji;

function load(): void {
  byName = new Map();
  byChar = new Map();
  for (const g of gemojiTable()) {
    const info = { name: g.names[0]!, char: g.emoji, description: g.description };
    for (const n of g.names) byName.set(n, { ...info, name: n });
    byChar.set(g.emoji, info);
    // Text-style variants (`❤` without U+FE0F) count as the emoji too.
    if (g.emoji.endsWith('\ufe0f')) byChar.set(g.emoji.slice(0, -1), info);
  }
  const chars = [...byChar.keys()].sort((a, b) => b.length - a.length);
  charPattern = new RegExp(chars.map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gu');
}

export function emojiByName(name: string): EmojiInfo | undefined {
  if (!byName) load();
  return byName!.get(name);
}

export function emojiByChar(char: string): EmojiInfo | undefined {
  if (!byChar) load();
  return byChar!.get(char);
}

/** Matches any known emoji character sequence, longest first. */
export function emojiCharPattern(): RegExp {
  if (!charPattern) load();
  return new RegExp(charPattern!.source, 'gu');
}
