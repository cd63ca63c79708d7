/**
 * The wikis API (`lib/api/wikis.rb`) for projects and, on paid tiers, groups: `read_wiki` to read,
 * `create_wiki` (developers) to create, edit and attach, `admin_wiki` (maintainers) to delete. A
 * project's wiki closes with its wiki feature; an archived project's is read-only.
 */
import { createHash } from 'node:crypto';
import { ACCESS, findGroup, findProject, groupAccess, projectAccess } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, notFound, validationError } from '../../core/errors.js';
import { offsetPage, paginationParams, requestBase } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter, RouteOptions } from '../../core/router.js';
import { tget } from '../../core/table.js';
import { emitEvent } from '../integrations/events.js';
import { featureAvailable } from '../projects/access.js';
import type { Project } from '../projects/model.js';
import { markdownLink, sanitizeFileName } from '../projects/uploads.js';
import { setting } from '../settings/model.js';
import {
  addAttachment,
  createPage,
  deletePage,
  updatePage,
  duplicateMessage,
  findPage,
  groupOwner,
  ownerKey,
  ownerPages,
  pageErrors,
  projectOwner,
  renamedSlug,
  slugOf,
  squishTitle,
  titleOf,
} from './model.js';
import { WIKI_FORMATS, type WikiFormat, type WikiOwner, type WikiPageRecord } from './store.js';
import { renderLazily } from '../markdown/lazy.js';
import { escapeHtml } from '../../core/html.js';

type Ability = 'read_wiki' | 'create_wiki' | 'admin_wiki';

/** Whose wiki a request reaches, and what the viewer may do there. */
interface Container {
  owner: WikiOwner;
  can(ability: Ability): boolean;
}

const NEEDS: Record<Ability, number> = {
  read_wiki: ACCESS.GUEST,
  create_wiki: ACCESS.DEVELOPER,
  admin_wiki: ACCESS.MAINTAINER,
};

function projectContainer(c: Ctx): Container {
  const proj = findProject(c, c.req.param('id') ?? '') as Project;
  const user = c.get('viewer').user;
  const admin = user?.admin === true;
  const level = user ? projectAccess(state(c), user, proj) : 0;
  return {
    owner: projectOwner(proj.id),
    can(ability) {
      if (!featureAvailable(proj.wiki_access_level, 'wiki', level, admin)) return false;
      // A readable project with an enabled wiki is readable by anyone, signed in or not.
      if (ability === 'read_wiki') return true;
      if (proj.archived) return false;
      return admin || level >= NEEDS[ability];
    },
  };
}

function groupContainer(c: Ctx): Container {
  const group = findGroup(c, c.req.param('id') ?? '');
  const user = c.get('viewer').user;
  const level = user ? groupAccess(state(c), user, group) : 0;
  return {
    owner: groupOwner(group.id),
    can: (ability) => ability === 'read_wiki' || user?.admin === true || level >= NEEDS[ability],
  };
}

function authorize(k: Container, ability: Ability): void {
  if (!k.can(ability)) throw forbidden();
}

function pageOf(c: Ctx, k: Container): WikiPageRecord {
  const page = findPage(state(c), k.owner, c.req.param('slug') ?? '');
  if (!page) throw notFound('Wiki Page');
  return page;
}

/** `Entities::WikiPageBasic`. */
const basic = (page: Pick<WikiPageRecord, 'format' | 'slug'>) => ({
  format: page.format,
  slug: page.slug,
  title: titleOf(page.slug),
});

/**
 * `Entities::WikiPage`: the basic fields, the content (rendered with `render_html`) and its encoding.
 * Only Markdown has a renderer here: other formats render as their escaped text in a paragraph.
 */
async function full(c: Ctx, page: Pick<WikiPageRecord, 'format' | 'slug' | 'content'>, html = false) {
  let content = page.content;
  if (html) {
    if (page.format === 'markdown')
      content = await renderLazily({ text: page.content, gfm: true, host: requestBase(c) });
    else content = `<p>${escapeHtml(page.content)}</p>`;
  }
  return { ...basic(page), content, encoding: 'UTF-8' };
}

const formatParam = () => p.str().values(WIKI_FORMATS).default('markdown');

/** The routes of one container kind, registered under `/projects` and (paid tiers) `/groups`. */
function wikiRoutes(
  r: ApiRouter,
  base: string,
  container: (c: Ctx) => Container,
  extra: Pick<RouteOptions, 'tier'>,
): void {
  r.get(
    `${base}/:id/wikis`,
    { ...extra, params: { ...paginationParams, with_content: p.bool().default(false) } },
    async (c, prm) => {
      const k = container(c);
      authorize(k, 'read_wiki');
      // Paginated although 13.12's endpoint is not: the contract pages every array.
      const page = offsetPage(c, ownerPages(state(c), k.owner));
      for (const [h, v] of Object.entries(page.headers)) c.header(h, v);
      const items = page.items;
      return c.json(prm.with_content ? await Promise.all(items.map((pg) => full(c, pg))) : items.map(basic));
    },
  );

  r.get(
    `${base}/:id/wikis/:slug`,
    { ...extra, params: { render_html: p.bool().default(false), version: p.str() } },
    async (c, prm) => {
      const k = container(c);
      authorize(k, 'read_wiki');
      const page = pageOf(c, k);
      if (prm.version === undefined) return c.json(await full(c, page, prm.render_html));
      const v = page.versions.find((x) => x.id === prm.version);
      if (!v) throw notFound('Wiki Page');
      return c.json(
        await full(c, { slug: page.slug, format: v.format, content: v.content }, prm.render_html),
      );
    },
  );

  r.post(
    `${base}/:id/wikis`,
    {
      ...extra,
      params: { title: p.str().required(), content: p.str().required(), format: formatParam() },
    },
    async (c, prm) => {
      const k = container(c);
      authorize(k, 'create_wiki');
      const title = squishTitle(prm.title);
      const errors = pageErrors(title, prm.content);
      if (Object.keys(errors).length) throw validationError(errors);
      const slug = slugOf(title!);
      const format = prm.format as WikiFormat;
      const existing = findPage(state(c), k.owner, slug);
      if (existing) throw validationError({ base: [duplicateMessage(existing, slug, format)] });
      const now = c.get('fx').clock.iso();
      const id = write(c, (d) => createPage(d, k.owner, { slug, format, content: prm.content }, now));
      wikiPageEvent(c, k.owner, 'create', { slug, format, content: prm.content });
      return c.json(await full(c, tget(state(c).wikis.pages, id)!), 201);
    },
  );

  // `at_least_one_of :content, :title, :format` never fails: `format` has a default, so Grape always
  // sees it, and an update without `format` makes the page Markdown again.
  r.put(
    `${base}/:id/wikis/:slug`,
    { ...extra, params: { title: p.str(), content: p.str(), format: formatParam() } },
    async (c, prm) => {
      const k = container(c);
      authorize(k, 'create_wiki');
      const page = pageOf(c, k);
      const title = prm.title === undefined ? titleOf(page.slug) : squishTitle(prm.title);
      const content = prm.content ?? page.content;
      const errors = pageErrors(title, content);
      if (Object.keys(errors).length) throw validationError(errors);
      const slug = prm.title === undefined ? page.slug : renamedSlug(page.slug, title!);
      if (slug.toLowerCase() !== page.slug.toLowerCase() && findPage(state(c), k.owner, slug))
        throw validationError({ base: ['There is already a page with the same title in that path.'] });
      const now = c.get('fx').clock.iso();
      const format = prm.format as WikiFormat;
      write(c, (d) => updatePage(d, page.id, { slug, format, content }, now));
      wikiPageEvent(c, k.owner, 'update', { slug, format, content });
      return c.json(await full(c, tget(state(c).wikis.pages, page.id)!));
    },
  );

  r.delete(`${base}/:id/wikis/:slug`, extra, (c) => {
    const k = container(c);
    authorize(k, 'admin_wiki');
    const page = pageOf(c, k);
    write(c, (d) => deletePage(d, page.id));
    wikiPageEvent(c, k.owner, 'delete', page);
    return c.body(null, 204);
  });

  r.post(
    `${base}/:id/wikis/attachments`,
    { ...extra, params: { file: p.file().required(), branch: p.str() } },
    async (c, prm) => {
      const k = container(c);
      authorize(k, 'create_wiki');
      const file = prm.file;
      const st = state(c);
      if (file.size > setting(st, 'max_attachment_size') * 1024 * 1024)
        throw apiError(413, '413 Request Entity Too Large');
      // Attachments live in memory: the instance's uploads limit bounds them as it bounds uploads.
      if (st.wikis.attachmentBytes + file.size > (c.get('fx').maxUploadsTotal ?? 512 * 1024 * 1024))
        throw apiError(413, '413 Request Entity Too Large');
      const data = Buffer.from(await file.arrayBuffer()).toString('base64');
      const fileName = sanitizeFileName(file.name);
      const branch = prm.branch ?? 'master';
      const now = c.get('fx').clock.iso();
      const rec = write(c, (d) => {
        // Derived, not random: the same scenario and requests give the same paths.
        const n = (d.seq.wiki_attachments ?? 0) + 1;
        const secret = createHash('sha256')
          .update(`${ownerKey(k.owner)}:${n}:${fileName}:${file.size}`)
          .digest('hex');
        const filePath = `uploads/${secret.slice(0, 32)}/${fileName}`;
        const fields = { ...k.owner, file_name: fileName, file_path: filePath, branch, size: file.size };
        addAttachment(d, { ...fields, data, created_at: now });
        return fields;
      });
      return c.json(
        {
          file_name: rec.file_name,
          file_path: rec.file_path,
          branch: rec.branch,
          link: { url: rec.file_path, markdown: markdownLink(rec.file_name, rec.file_path) },
        },
        201,
      );
    },
  );
}

/**
 * A project wiki page's `wiki_page_hooks` event (group wikis' group hook events are not sent: see
 * docs/behaviour.md).
 */
function wikiPageEvent(
  c: Ctx,
  owner: WikiOwner,
  action: 'create' | 'update' | 'delete',
  page: { slug: string; format: string; content: string },
): void {
  if (owner.project_id === null) return;
  emitEvent(c, {
    kind: 'wiki_page',
    projectId: owner.project_id,
    action,
    page: { slug: page.slug, format: page.format, content: page.content },
  });
}

export function wikisRoutes(r: ApiRouter): void {
  wikiRoutes(r, '/projects', projectContainer, {});
  wikiRoutes(r, '/groups', groupContainer, { tier: 'premium' });
}
