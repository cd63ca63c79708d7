/**
 * Wiki page rules as the platform's `WikiPage` and its git wiki apply them: titles are squished per
 * directory, file names are the title with blanks and `<>+` made hyphens, a page's title is its file
 * name with hyphens read as spaces, and names match in any case.
 */
import { createHash } from 'node:crypto';
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { WikiAttachmentRecord, WikiFormat, WikiOwner, WikiPageRecord } from './store.js';

type S = Draft<PlatformState>;

/** Versions kept per page: older ones are dropped, so that a page edited in a loop stays bounded. */
export const MAX_VERSIONS = 100;

const MAX_TITLE_BYTES = 245;
const MAX_DIRECTORY_BYTES = 255;

/** The file extension of each format: two pages of one name and different formats still collide. */
export const EXTENSIONS: Record<WikiFormat, string> = {
  markdown: 'md',
  rdoc: 'rdoc',
  asciidoc: 'asciidoc',
  org: 'org',
};

export const projectOwner = (id: number): WikiOwner => ({ project_id: id, group_id: null });
export const groupOwner = (id: number): WikiOwner => ({ project_id: null, group_id: id });
/** The indexes' key of an owner. */
export const ownerKey = (o: WikiOwner) => (o.project_id !== null ? `p${o.project_id}` : `g${o.group_id}`);
const slugKey = (owner: WikiOwner, slug: string) => `${ownerKey(owner)}:${slug.toLowerCase()}`;

/** `deep_title_squish`: each directory part trimmed, inner blanks collapsed; a blank title is none. */
export function squishTitle(title: string): string | null {
  if (title.trim() === '') return null;
  return title
    .split('/')
    .map((part) => part.trim().replace(/\s+/g, ' '))
    .join('/');
}

/** The git wiki's file name for a title (its slug, without the extension). */
export const slugOf = (title: string): string =>
  title
    .replace(/^\/+/, '')
    .split('/')
    .map((part) => part.replace(/\s/g, '-').replace(/[<>+]/g, '-'))
    .join('/');

/** The title the wiki reports: the file name, without its directory, hyphens read as spaces. */
export const titleOf = (slug: string): string => slug.slice(slug.lastIndexOf('/') + 1).replace(/-+/g, ' ');

const directoryOf = (slug: string) => (slug.includes('/') ? slug.slice(0, slug.lastIndexOf('/')) : '');

/**
 * The slug an update's title moves the page to: a title without `/` keeps the page's directory, one
 * starting with `/` goes to the top (`WikiPage#process_title`).
 */
export function renamedSlug(current: string, title: string): string {
  if (title.startsWith('/')) return slugOf(title.slice(1));
  if (!title.includes('/')) {
    const dir = directoryOf(current);
    return slugOf(dir ? `${dir}/${title}` : title);
  }
  return slugOf(title);
}

/** `WikiPage` validations: the errors hash, empty when valid. */
export function pageErrors(title: string | null, content: string | null): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  if (title === null) add('title', "can't be blank");
  if (content === null || content.trim() === '') add('content', "can't be blank");
  if (title !== null) {
    const parts = title.replace(/^\/+/, '').split('/');
    const name = parts.pop()!;
    if (Buffer.byteLength(name) > MAX_TITLE_BYTES)
      add('title', `exceeds the limit of ${MAX_TITLE_BYTES} bytes`);
    for (const dir of parts)
      if (Buffer.byteLength(dir) > MAX_DIRECTORY_BYTES)
        add('title', `exceeds the limit of ${MAX_DIRECTORY_BYTES} bytes for directory name "${dir}"`);
  }
  return errors;
}

export function findPage(st: PlatformState, owner: WikiOwner, slug: string): WikiPageRecord | undefined {
  const id = iget(st.wikis.idx.slugs, slugKey(owner, slug));
  return id === undefined ? undefined : tget(st.wikis.pages, id);
}

/** The owner's pages, in path order (the wiki lists them by title, directories included). */
export function ownerPages(st: PlatformState, owner: WikiOwner): WikiPageRecord[] {
  return mget(st.wikis.idx.byOwner, ownerKey(owner))
    .map((id) => tget(st.wikis.pages, id)!)
    .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : a.id - b.id));
}

/** The git wiki's refusal of a second file of the same name (any case), as the API passes it on. */
export const duplicateMessage = (existing: WikiPageRecord, slug: string, format: WikiFormat) =>
  `Duplicate page: Cannot write /${slug}.${EXTENSIONS[format]}, found /${existing.slug}.${EXTENSIONS[existing.format]}.`;

/** Versions are looked up per page: their ids need not mention the owner (which a reload renumbers). */
function versionId(slug: string, format: WikiFormat, content: string, at: string, n: number) {
  return createHash('sha1').update(`${slug}\0${format}\0${at}\0${n}\0${content}`).digest('hex');
}

function pushVersion(page: Draft<WikiPageRecord>, at: string): void {
  const n = page.versions.length;
  page.versions.unshift({
    id: versionId(page.slug, page.format, page.content, at, n),
    format: page.format,
    content: page.content,
    at,
  });
  if (page.versions.length > MAX_VERSIONS) page.versions.length = MAX_VERSIONS;
}

export interface PageFields {
  slug: string;
  format: WikiFormat;
  content: string;
}

export function createPage(st: S, owner: WikiOwner, f: PageFields, now: string, updated = now): number {
  const id = nextId(st, 'wiki_pages');
  const page: WikiPageRecord = {
    id,
    project_id: owner.project_id,
    group_id: owner.group_id,
    ...f,
    created_at: now,
    updated_at: updated,
    versions: [],
  };
  tset(st.wikis.pages, id, page);
  pushVersion(tget(st.wikis.pages, id)!, updated);
  madd(st.wikis.idx.byOwner, ownerKey(owner), id);
  iset(st.wikis.idx.slugs, slugKey(owner, f.slug), id);
  return id;
}

export function updatePage(st: S, id: number, f: PageFields, now: string): void {
  const page = tget(st.wikis.pages, id)!;
  if (page.slug !== f.slug) {
    idelete(st.wikis.idx.slugs, slugKey(page, page.slug));
    iset(st.wikis.idx.slugs, slugKey(page, f.slug), id);
  }
  Object.assign(page, f, { updated_at: now });
  pushVersion(page, now);
}

export function deletePage(st: S, id: number): void {
  const page = tget(st.wikis.pages, id)!;
  idelete(st.wikis.idx.slugs, slugKey(page, page.slug));
  mremove(st.wikis.idx.byOwner, ownerKey(page), id);
  tdelete(st.wikis.pages, id);
}

export function addAttachment(st: S, rec: Omit<WikiAttachmentRecord, 'id'>): number {
  const id = nextId(st, 'wiki_attachments');
  tset(st.wikis.attachments, id, { id, ...rec });
  madd(st.wikis.idx.attachmentsBy, ownerKey(rec), id);
  st.wikis.attachmentBytes += rec.size;
  return id;
}

/** Everything of one owner (a project or group being deleted). */
export function deleteOwner(st: S, owner: WikiOwner): void {
  const key = ownerKey(owner);
  for (const id of mget(st.wikis.idx.byOwner, key)) deletePage(st, id);
  for (const id of mget(st.wikis.idx.attachmentsBy, key)) {
    st.wikis.attachmentBytes -= tget(st.wikis.attachments, id)!.size;
    mremove(st.wikis.idx.attachmentsBy, key, id);
    tdelete(st.wikis.attachments, id);
  }
}
