/**
 * Wiki pages of projects and (paid tiers) groups. The platform keeps them in a git repository beside the
 * project's; here each page is a record holding its current text and its versions, newest first.
 */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

export const WIKI_FORMATS = ['markdown', 'rdoc', 'asciidoc', 'org'] as const;
export type WikiFormat = (typeof WIKI_FORMATS)[number];

/** One saved state of a page, addressed by `version` on `GET /wikis/:slug`. */
export interface WikiVersion {
  id: string;
  format: WikiFormat;
  content: string;
  at: string;
}

/** Whose wiki: a project's or a group's (the other is null). */
export interface WikiOwner {
  project_id: number | null;
  group_id: number | null;
}

export interface WikiPageRecord extends WikiOwner {
  id: number;
  /** The page's path without its extension (`dir/Page-Name`): its slug. */
  slug: string;
  format: WikiFormat;
  content: string;
  created_at: string;
  updated_at: string;
  /** Newest first, at most `MAX_VERSIONS`. */
  versions: WikiVersion[];
}

export interface WikiAttachmentRecord extends WikiOwner {
  id: number;
  file_name: string;
  file_path: string;
  branch: string;
  size: number;
  /** base64 */
  data: string;
  created_at: string;
}

export interface WikisState {
  pages: Table<WikiPageRecord>;
  attachments: Table<WikiAttachmentRecord>;
  /** Bytes of every attachment, counted against the instance's uploads limit. */
  attachmentBytes: number;
  idx: {
    /** owner key (`ownerKey`) -> page ids */
    byOwner: MultiIndex;
    /** `<owner>:<lower-cased slug>` -> page id: page names are matched in any case, as the wiki does. */
    slugs: Index;
    /** owner -> attachment ids */
    attachmentsBy: MultiIndex;
  };
}

export const emptyWikis = (): WikisState => ({
  pages: emptyTable(),
  attachments: emptyTable(),
  attachmentBytes: 0,
  idx: { byOwner: emptyIndex(), slugs: emptyIndex(), attachmentsBy: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    wikis: WikisState;
  }
}
