/**
 * The platform's Markdown pipelines on a real CommonMark/GFM parser (micromark). The plain pipeline is
 * CommonMark with the table, strikethrough (`~~` only), autolink and footnote extensions, raw HTML
 * passed through, and `data-sourcepos` on block elements in cmark's `line:column` (byte) form. The GFM
 * pipeline then sanitizes the HTML and applies the platform's filters: syntax-highlight markup, lazy
 * images, heading anchors, external links, references, emoji and task lists. Both set `dir="auto"` on
 * top-level blocks.
 */
import type { Element, ElementContent, Nodes, Parents, Properties, Root, RootContent } from 'hast';
import { raw } from 'hast-util-raw';
import { defaultSchema, sanitize, type Schema } from 'hast-util-sanitize';
import { toHtml } from 'hast-util-to-html';
import type { Code, ListItem, Nodes as MdNodes, Paragraph } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { toHast, type State } from 'mdast-util-to-hast';
import { gfm } from 'micromark-extension-gfm';
import { boundedMarkdown, restoreStandIns } from './bounds.js';
import { emojiByChar, emojiByName, emojiCharPattern, unicodeVersion, type EmojiInfo } from './emoji.js';

/** A reference the GFM pipeline links, as the resolver found it. */
export interface ResolvedReference {
  url: string;
  /** `data-*` attributes after `data-original`, in the platform's order. */
  data: Array<[string, string | number | boolean]>;
  referenceType: string;
  title: string;
  className: string;
  text: string;
  placement?: 'top' | 'bottom';
  /** `data-original` (default true); user and group mentions have none. */
  original?: boolean;
  /** Mentions put `class` before `title`. */
  classFirst?: boolean;
}

/** Looks references up among what the viewer may read; undefined leaves the text as it is. */
export interface ReferenceResolver {
  issue(iid: number): ResolvedReference | undefined;
  mergeRequest(iid: number): ResolvedReference | undefined;
  milestone(ref: { iid?: number; name?: string }): ResolvedReference | undefined;
  /** `@name`: a user or a group. */
  mention(name: string): ResolvedReference | undefined;
}

export interface RenderOptions {
  gfm: boolean;
  /** The instance's own host: links elsewhere are external. */
  host: string;
  refs?: ReferenceResolver;
}

const BLOCKS = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'blockquote',
  'pre',
  'hr',
  'table',
  'tr',
  'th',
  'td',
]);
const DIRECTED = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ol', 'ul', 'blockquote', 'table']);

/** Byte columns, as cmark counts them: for each line, where it starts in the text. */
class Lines {
  readonly starts: number[] = [0];
  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }
  /** The 1-based byte column of the character at `offset` on `line`. */
  column(line: number, offset: number): number {
    const start = this.starts[line - 1] ?? 0;
    return Buffer.byteLength(this.text.slice(start, offset)) + 1;
  }
}

function sourcepos(lines: Lines, pos: NonNullable<Element['position']>): string | undefined {
  const { start, end } = pos;
  if (start.offset === undefined || end.offset === undefined) return undefined;
  // cmark's end is inclusive (the last byte); unist's is the position after it.
  const endCol = lines.column(end.line, end.offset) - 1;
  return `${start.line}:${lines.column(start.line, start.offset)}-${end.line}:${Math.max(endCol, 0)}`;
}

/** Without the task list extension `[ ] item` is text: give the checkbox back to the paragraph. */
function untask(node: MdNodes, text: string): void {
  if (node.type === 'listItem' && typeof (node as ListItem).checked === 'boolean') {
    const item = node as ListItem;
    item.checked = null;
    const para = item.children[0] as Paragraph | undefined;
    const off = para?.position?.start.offset;
    if (para && off !== undefined) {
      const open = text.lastIndexOf('[', off);
      const prefix = text.slice(open, off);
      const first = para.children[0];
      if (first?.type === 'text') first.value = prefix + first.value;
      else para.children.unshift({ type: 'text', value: prefix });
      para.position!.start = {
        line: para.position!.start.line,
        column: para.position!.start.column - prefix.length,
        offset: open,
      };
    }
  }
  if ('children' in node) for (const child of node.children) untask(child as MdNodes, text);
}

/** GitLab's code block renderer: `<pre><code lang="ruby">`, the whole info string as the language. */
function codeHandler(state: State, node: Code): Element {
  const info = [node.lang, node.meta].filter(Boolean).join(' ');
  const code: Element = {
    type: 'element',
    tagName: 'code',
    properties: info ? { lang: info } : {},
    children: [{ type: 'text', value: node.value ? `${node.value}\n` : '' }],
  };
  const pre: Element = { type: 'element', tagName: 'pre', properties: {}, children: [code] };
  state.patch(node, pre);
  return pre;
}

function visit(node: Nodes, fn: (el: Element, parent: Parents) => void, parent?: Parents): void {
  if (node.type === 'element' && parent) fn(node, parent);
  if ('children' in node) for (const child of [...node.children]) visit(child, fn, node);
}

const withFirst = (props: Properties, key: string, value: Properties[string]): Properties => ({
  [key]: value,
  ...props,
});

const SCHEMA: Schema = {
  ...defaultSchema,
  clobber: [],
  clobberPrefix: '',
  attributes: {
    ...defaultSchema.attributes,
    '*': [...(defaultSchema.attributes?.['*'] ?? []), 'dataSourcepos', 'dir'],
    code: ['lang'],
    a: [...(defaultSchema.attributes?.a ?? []), 'rel', 'target'],
  },
  tagNames: [...(defaultSchema.tagNames ?? []), 'abbr', 'mark', 'small', 'cite', 'dfn', 'time', 'wbr'],
};

const EMOJI_NAME = /:([a-z0-9_+-]+):/g;

/** Elements whose text the text filters leave alone, as the platform's filters skip them. */
const OPAQUE = new Set(['a', 'code', 'pre', 'gl-emoji']);

/** Splits a text node's value into text and elements; undefined when nothing matched. */
type Replacer = (value: string) => ElementContent[] | undefined;

function replaceText(root: Root, replacer: Replacer): void {
  const walk = (node: Parents) => {
    for (let i = 0; i < node.children.length; i++) {
      const child = node.children[i]!;
      if (child.type === 'element') {
        if (!OPAQUE.has(child.tagName)) walk(child);
      } else if (child.type === 'text') {
        const out = replacer(child.value);
        if (out) {
          node.children.splice(i, 1, ...(out as RootContent[]));
          i += out.length - 1;
        }
      }
    }
  };
  walk(root);
}

/** Applies `pattern` to text; `make` returns the element for a match, or undefined to keep it. */
function splitter(pattern: RegExp, make: (m: RegExpExecArray) => ElementContent | undefined): Replacer {
  return (value) => {
    const out: ElementContent[] = [];
    let last = 0;
    let changed = false;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(value); m; m = pattern.exec(value)) {
      const lead = m.groups?.lead ?? '';
      const el = make(m);
      if (!el) continue;
      const at = m.index + lead.length;
      if (at > last) out.push({ type: 'text', value: value.slice(last, at) });
      out.push(el);
      last = m.index + m[0].length;
      changed = true;
    }
    if (!changed) return undefined;
    if (last < value.length) out.push({ type: 'text', value: value.slice(last) });
    return out;
  };
}

function glEmoji(e: EmojiInfo): Element {
  return {
    type: 'element',
    tagName: 'gl-emoji',
    properties: { title: e.description, dataName: e.name, dataUnicodeVersion: unicodeVersion(e.char) },
    children: [{ type: 'text', value: e.char }],
  };
}

function referenceLink(original: string, r: ResolvedReference): Element {
  const props: Properties = { href: r.url };
  if (r.original !== false) props.dataOriginal = original;
  for (const [k, v] of r.data) props[k] = String(v);
  props.dataReferenceType = r.referenceType;
  props.dataContainer = 'body';
  props.dataPlacement = r.placement ?? 'top';
  if (r.classFirst) props.className = r.className.split(' ');
  props.title = r.title;
  props.className = r.className.split(' ');
  return { type: 'element', tagName: 'a', properties: props, children: [{ type: 'text', value: r.text }] };
}

const LEAD = '(?<lead>^|[^\\w&/#!%@])';
const ISSUE = new RegExp(`${LEAD}#(\\d+)\\b`, 'g');
const MR = new RegExp(`${LEAD}!(\\d+)\\b`, 'g');
const MILESTONE = new RegExp(`${LEAD}%(?:(\\d+)\\b|"([^"]+)"|([\\w.-]*\\w))`, 'g');
// A username or group path; a trailing `.` is punctuation, not part of the name.
const NAME = '[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?';
const MENTION = new RegExp(`${LEAD}@(${NAME}(?:/${NAME})*)`, 'g');

function referenceFilters(root: Root, refs: ReferenceResolver): void {
  replaceText(
    root,
    splitter(MENTION, (m) => {
      const name = m[2]!;
      const r = refs.mention(name);
      return r && referenceLink(`@${name}`, r);
    }),
  );
  replaceText(
    root,
    splitter(ISSUE, (m) => {
      const r = refs.issue(Number(m[2]));
      return r && referenceLink(`#${m[2]}`, r);
    }),
  );
  replaceText(
    root,
    splitter(MR, (m) => {
      const r = refs.mergeRequest(Number(m[2]));
      return r && referenceLink(`!${m[2]}`, r);
    }),
  );
  replaceText(
    root,
    splitter(MILESTONE, (m) => {
      const r = m[2] ? refs.milestone({ iid: Number(m[2]) }) : refs.milestone({ name: m[3] ?? m[4]! });
      return r && referenceLink(m[0].slice(m.groups?.lead?.length ?? 0), r);
    }),
  );
}

/** `EmojiFilter`: `:name:` and emoji characters become `<gl-emoji>` tags. */
function emojiFilter(root: Root): void {
  replaceText(
    root,
    splitter(EMOJI_NAME, (m) => {
      const e = emojiByName(m[1]!);
      return e && glEmoji(e);
    }),
  );
  const chars = emojiCharPattern();
  replaceText(
    root,
    splitter(chars, (m) => {
      const e = emojiByChar(m[0]);
      return e && glEmoji(e);
    }),
  );
}

/** `TableOfContentsFilter`: an anchor in each heading, ids unique within the document. */
function headingAnchors(root: Root): void {
  const used = new Map<string, number>();
  visit(root, (el) => {
    if (!/^h[1-6]$/.test(el.tagName)) return;
    const text = textOf(el);
    let id = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\s-]/gu, '')
      .trim()
      .replace(/\s+/g, '-')
      .replace(/-+/g, '-');
    if (!id) id = 'anchor';
    const n = used.get(id) ?? 0;
    used.set(id, n + 1);
    if (n > 0) id = `${id}-${n}`;
    el.children.unshift(
      { type: 'text', value: '\n' },
      {
        type: 'element',
        tagName: 'a',
        properties: { id: `user-content-${id}`, className: ['anchor'], href: `#${id}`, ariaHidden: 'true' },
        children: [],
      },
    );
  });
}

const LAZY_GIF = 'data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==';

function gfmFilters(root: Root, o: RenderOptions): void {
  visit(root, (el, parent) => {
    if (el.tagName === 'pre') {
      // SyntaxHighlightFilter's markup; tokens are not highlighted.
      const code = el.children.find((c): c is Element => c.type === 'element' && c.tagName === 'code');
      const lang = String(code?.properties.lang ?? '').split(/\s+/)[0] || 'plaintext';
      const text = code ? textOf(code) : '';
      const lines = text.replace(/\n$/, '').split('\n');
      const spans: ElementContent[] = [];
      lines.forEach((line, i) => {
        if (i > 0) spans.push({ type: 'text', value: '\n' });
        spans.push({
          type: 'element',
          tagName: 'span',
          properties: { id: `LC${i + 1}`, className: ['line'], lang },
          children: line ? [{ type: 'text', value: line }] : [],
        });
      });
      el.properties = {
        className: ['code', 'highlight', 'js-syntax-highlight', lang],
        lang,
        'v-pre': 'true',
      };
      el.children = [{ type: 'element', tagName: 'code', properties: {}, children: spans }];
    } else if (el.tagName === 'img') {
      if (el.properties.dataSrc !== undefined) return;
      const src = el.properties.src;
      el.properties = { ...el.properties, src: LAZY_GIF, className: ['lazy'], dataSrc: src };
      if (parent.type === 'element' && parent.tagName === 'a') return;
      const link: Element = {
        type: 'element',
        tagName: 'a',
        properties: {
          className: ['no-attachment-icon'],
          href: String(src ?? ''),
          target: '_blank',
          rel: ['noopener', 'noreferrer'],
        },
        children: [{ ...el }],
      };
      Object.assign(el, link);
    } else if (el.tagName === 'a') {
      const href = String(el.properties.href ?? '');
      try {
        const u = new URL(href);
        if ((u.protocol === 'http:' || u.protocol === 'https:') && u.host !== o.host)
          el.properties = { ...el.properties, rel: ['nofollow', 'noreferrer', 'noopener'], target: '_blank' };
      } catch {
        // Relative links stay as they are.
      }
    }
  });
  headingAnchors(root);
  if (o.refs) referenceFilters(root, o.refs);
  emojiFilter(root);
  // TaskListFilter's markup.
  visit(root, (el) => {
    if ((el.tagName === 'ul' || el.tagName === 'ol') && hasClass(el, 'contains-task-list'))
      el.properties.className = ['task-list'];
    if (el.tagName === 'input' && el.properties.type === 'checkbox') {
      const checked = el.properties.checked === true;
      el.properties = {
        type: 'checkbox',
        className: ['task-list-item-checkbox'],
        ...(checked && { checked: true }),
        disabled: true,
      };
    }
  });
}

const hasClass = (el: Element, name: string) => {
  const c = el.properties.className;
  return Array.isArray(c) && c.includes(name);
};

/** Renders Markdown the way `POST /markdown` does. */
export function renderMarkdown(text: string, o: RenderOptions): string {
  const bounded = boundedMarkdown(text);
  const tree = fromMarkdown(bounded.text, {
    extensions: [gfm({ singleTilde: false })],
    mdastExtensions: [gfmFromMarkdown()],
  });
  if (bounded.hidden) restoreStandIns(tree);
  if (!o.gfm) untask(tree, text);
  let root = toHast(tree, { allowDangerousHtml: true, handlers: { code: codeHandler } }) as Root;
  const lines = new Lines(text);
  visit(root, (el) => {
    if (!BLOCKS.has(el.tagName) || !el.position) return;
    const pos = sourcepos(lines, el.position);
    if (pos) el.properties = withFirst(el.properties, 'dataSourcepos', pos);
  });
  if (o.gfm) {
    root = sanitize(raw(root), SCHEMA) as Root;
    gfmFilters(root, o);
  }
  for (const child of root.children)
    if (child.type === 'element' && DIRECTED.has(child.tagName)) child.properties.dir = 'auto';
  escapeText(root);
  return toHtml(root, {
    allowDangerousHtml: true,
    characterReferences: { useNamedReferences: true },
  }).replace(/^\n+|\n+$/g, '');
}

/** The text content of a node. */
function textOf(node: Nodes): string {
  if (node.type === 'text') return node.value;
  return 'children' in node ? node.children.map((c) => textOf(c as Nodes)).join('') : '';
}

/** Text as libxml2 writes it (`&amp;`, `&lt;`, `&gt;`), which hast's serializer does not quite do. */
function escapeText(node: Parents): void {
  for (let i = 0; i < node.children.length; i++) {
    const child = node.children[i]!;
    if (child.type === 'text')
      node.children[i] = {
        type: 'raw',
        value: child.value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
      } as unknown as RootContent;
    else if (child.type === 'element') escapeText(child);
  }
}
