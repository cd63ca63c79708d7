/**
 * The releases API (`lib/api/releases.rb`, `lib/api/release/links.rb`, `Releases::*Service`): whoever
 * sees the project reads its releases (tag, commit, sources and evidence only with `download_code`);
 * developers create, edit and delete them. Missing releases are refused before they are looked up, as
 * the platform authorizes on a nil release: `403`.
 */
import { emitEvent } from '../integrations/events.js';
import { ACCESS, findProject, projectAccess } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, grapeError, recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams, requestBase } from '../../core/pagination.js';
import { p, type ParamValue } from '../../core/params.js';
import { NO_SLASH_URL_PART, parse, type ApiRouter } from '../../core/router.js';
import { nextId } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { canDownloadCode, featureAvailable } from '../projects/access.js';
import type { Project } from '../projects/model.js';
import { validRefName } from '../repository/names.js';
import { peel, refTarget, resolveCommit, setRef } from '../repository/refs.js';
import { objectsOf } from '../repository/store.js';
import { linkEntity, releaseEntity, type Sight } from './entities.js';
import {
  createRelease,
  deleteRelease,
  linkErrors,
  nestedMessages,
  projectReleases,
  releaseMilestones,
  type LinkInput,
} from './model.js';
import { LINK_TYPES, releaseOfTag, type LinkType, type ReleaseRecord } from './store.js';
import { renderLazily } from '../markdown/lazy.js';

interface Abilities extends Sight {
  project: Project;
  write: boolean;
}

function abilities(c: Ctx): Abilities {
  const project = findProject(c, c.req.param('id') ?? '') as Project;
  const user = c.get('viewer').user;
  const st = state(c);
  const admin = user?.admin === true;
  const level = projectAccess(st, user, project);
  const repo = featureAvailable(project.repository_access_level, 'repository', level, admin);
  const write = !project.archived && (admin || level >= ACCESS.DEVELOPER);
  return {
    project,
    downloadCode: repo && canDownloadCode(project, user, level),
    readMilestone:
      featureAvailable(project.issues_access_level, 'issues', level, admin) ||
      featureAvailable(project.merge_requests_access_level, 'merge_requests', level, admin),
    updateRelease: write,
    write,
  };
}

const tagParam = { tag_name: p.str().required() };
/** `RELEASE_ENDPOINT_REQUIREMENTS`: a tag name keeps a `.json` suffix. */
const RELEASE = { id: NO_SLASH_URL_PART, tag_name: NO_SLASH_URL_PART };

function releaseOf(c: Ctx, a: Abilities, tag: string): ReleaseRecord | undefined {
  return releaseOfTag(state(c), a.project.id, tag);
}

async function descriptionHtml(c: Ctx, text: string): Promise<string> {
  if (text === '') return '';
  return renderLazily({ text, gfm: true, host: requestBase(c) });
}

/** `milestones`: an array, or a comma-separated string (`CommaSeparatedToArray`). */
const milestonesParam = () => p.strArray({ commaSeparated: true });

/** `assets[links][]` with Grape's nested `requires`: `assets[links][0][name] is missing`. */
function assetLinks(raw: ParamValue | undefined): LinkInput[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw !== 'object' || Array.isArray(raw) || raw instanceof File)
    throw grapeError(400, 'assets is invalid');
  const links = (raw as Record<string, ParamValue>).links;
  if (links === undefined) return [];
  if (!Array.isArray(links)) throw grapeError(400, 'assets[links] is invalid');
  const problems: string[] = [];
  const out = links.map((l, i) => {
    if (typeof l !== 'object' || l === null || Array.isArray(l) || l instanceof File) {
      problems.push(`assets[links][${i}] is invalid`);
      return {};
    }
    const h = l as Record<string, ParamValue>;
    for (const k of ['name', 'url'] as const)
      if (h[k] === undefined || h[k] === null) problems.push(`assets[links][${i}][${k}] is missing`);
    const str = (v: ParamValue | undefined) => (v === undefined || v === null ? undefined : String(v));
    return { name: str(h.name), url: str(h.url), filepath: str(h.filepath), link_type: str(h.link_type) };
  });
  if (problems.length) throw grapeError(400, problems.join(', '));
  return out;
}

/** `link_type` is an enum: an unknown one fails when it is assigned, before any validation. */
function linkType(v: string | undefined): LinkType {
  if (v === undefined) return 'other';
  if (!(LINK_TYPES as readonly string[]).includes(v)) throw apiError(400, `'${v}' is not a valid link_type`);
  return v as LinkType;
}

/** `MilestonesFinder` by titles: the project's, and on paid tiers its group's; 400 for the rest. */
function milestoneIds(c: Ctx, a: Abilities, titles: readonly string[]): number[] {
  const groupId =
    c.get('fx').tier() !== 'free' && a.project.namespace_kind === 'group' ? a.project.namespace_id : null;
  const known = releaseMilestones(state(c), a.project.id, groupId);
  const missing = titles.filter((t) => !known.some((m) => m.title === t));
  if (missing.length) throw apiError(400, `Milestone(s) not found: ${missing.join(', ')}`);
  return known.filter((m) => titles.includes(m.title)).map((m) => m.id);
}

async function present(c: Ctx, a: Abilities, r: ReleaseRecord, html: boolean) {
  return releaseEntity(c, a.project, r, a, html ? await descriptionHtml(c, r.description) : undefined);
}

export function releasesRoutes(r: ApiRouter): void {
  r.get('/projects/:id/releases', async (c) => {
    const a = abilities(c);
    const prm = parse(c, {
      ...paginationParams,
      order_by: p.str().values(['released_at', 'created_at']).default('released_at'),
      sort: p.str().values(['asc', 'desc']).default('desc'),
      include_html_description: p.bool().default(false),
    });
    const key = prm.order_by as 'released_at' | 'created_at';
    const list = projectReleases(state(c), a.project.id).sort((x, y) =>
      x[key] === y[key] ? x.id - y.id : x[key] < y[key] ? -1 : 1,
    );
    if (prm.sort === 'desc') list.reverse();
    const rendered = new Map<number, string>();
    if (prm.include_html_description)
      for (const rel of list) rendered.set(rel.id, await descriptionHtml(c, rel.description));
    return paginate(c, list, (rel) => releaseEntity(c, a.project, rel, a, rendered.get(rel.id)));
  });

  r.get('/projects/:id/releases/:tag_name', { requirements: RELEASE }, async (c) => {
    const a = abilities(c);
    const prm = parse(c, { ...tagParam, include_html_description: p.bool().default(false) });
    const rel = releaseOf(c, a, prm.tag_name);
    // `authorize_download_code!` on the release: none, or no code access, is a 403.
    if (!rel || !a.downloadCode) throw forbidden();
    return c.json(await present(c, a, rel, prm.include_html_description));
  });

  r.post(
    '/projects/:id/releases',
    {
      params: {
        ...tagParam,
        name: p.str(),
        description: p.str(),
        ref: p.str(),
        assets: p.hash(),
        milestones: milestonesParam(),
        released_at: p.datetime(),
      },
    },
    async (c, prm) => {
      const links = assetLinks(c.get('params').assets);
      const a = abilities(c);
      if (!a.write) throw forbidden();
      const st = state(c);
      const tag = prm.tag_name;
      if (releaseOf(c, a, tag)) throw apiError(409, 'Release already exists');
      const milestones = prm.milestones ? milestoneIds(c, a, prm.milestones) : [];
      const proj = a.project;
      let target = refTarget(st, proj, 'tag', tag);
      let sha = target === undefined ? undefined : peel(objectsOf(st), target);
      const newTag = target === undefined;
      if (newTag) {
        // `Tags::CreateService`, with the tag's checks in its order.
        if (prm.ref === undefined) throw apiError(422, 'Ref is not specified');
        if (!validRefName(tag)) throw apiError(400, 'Tag name invalid');
        sha = resolveCommit(st, proj, prm.ref);
        if (sha === undefined) throw apiError(400, `Target ${prm.ref} is invalid`);
        target = sha;
      }
      // `release.save!` inside a rescue: the record's validation errors become the message.
      const errs: string[] = [];
      if ((prm.description ?? '').trim() === '') errs.push("Description can't be blank");
      const checked: { name: string; url: string; filepath: string | null; link_type: LinkType }[] = [];
      for (const l of links) {
        const type = linkType(l.link_type);
        const link = { name: l.name ?? '', url: l.url ?? '', filepath: l.filepath || null, link_type: type };
        const siblings = checked.map((x, i) => ({ id: -1 - i, ...x, created_at: '', updated_at: '' }));
        errs.push(...nestedMessages(linkErrors(link, siblings)));
        checked.push(link);
      }
      if (errs.length) throw apiError(400, `Validation failed: ${[...new Set(errs)].join(', ')}`);
      const now = c.get('fx').clock.iso();
      const released = prm.released_at ?? now;
      const user = c.get('viewer').user!;
      const id = write(c, (d) => {
        if (newTag) setRef(d, proj, 'tag', tag, target!);
        return createRelease(
          d,
          proj.id,
          {
            tag,
            name: prm.name ?? null,
            description: prm.description ?? '',
            sha: sha!,
            author_id: user.id,
            released_at: released,
            milestone_ids: milestones,
            links: checked,
          },
          now,
        );
      });
      emitEvent(c, { kind: 'release', id, action: 'create' });
      return c.json(await present(c, a, tget(state(c).releases.records, id)!, false), 201);
    },
  );

  r.put(
    '/projects/:id/releases/:tag_name',
    {
      requirements: RELEASE,
      params: {
        ...tagParam,
        name: p.str(),
        description: p.str(),
        released_at: p.datetime(),
        milestones: milestonesParam(),
      },
    },
    async (c, prm) => {
      const a = abilities(c);
      const rel = releaseOf(c, a, prm.tag_name);
      if (!rel || !a.write) throw forbidden();
      // `Releases::UpdateService#validate`, in its order.
      if (refTarget(state(c), a.project, 'tag', rel.tag) === undefined)
        throw apiError(404, 'Tag does not exist');
      const given = ['name', 'description', 'released_at', 'milestones'].filter(
        (k) => c.get('params')[k] !== undefined,
      );
      if (given.length === 0) throw apiError(400, 'params is empty');
      const milestones = prm.milestones ? milestoneIds(c, a, prm.milestones) : undefined;
      if (prm.description !== undefined && prm.description.trim() === '')
        throw apiError(400, { description: ["can't be blank"] });
      const now = c.get('fx').clock.iso();
      write(c, (d) => {
        const rec = tget(d.releases.records, rel.id)!;
        if (prm.name !== undefined) rec.name = prm.name;
        if (prm.description !== undefined) rec.description = prm.description;
        if (prm.released_at !== undefined) rec.released_at = prm.released_at;
        if (milestones !== undefined) rec.milestone_ids = milestones;
        rec.updated_at = now;
      });
      emitEvent(c, { kind: 'release', id: rel.id, action: 'update' });
      return c.json(await present(c, a, tget(state(c).releases.records, rel.id)!, false));
    },
  );

  r.delete(
    '/projects/:id/releases/:tag_name',
    { params: tagParam, requirements: RELEASE },
    async (c, prm) => {
      const a = abilities(c);
      const rel = releaseOf(c, a, prm.tag_name);
      if (!rel || !a.write) throw forbidden();
      const shown = await present(c, a, rel, false);
      write(c, (d) => deleteRelease(d, rel.id));
      return c.json(shown);
    },
  );

  linkRoutes(r);
}

/** `release.links.find(params[:link_id])`. */
function linkOf(c: Ctx, rel: ReleaseRecord, id: string) {
  const l = /^\d+$/.test(id) ? rel.links.find((x) => x.id === Number(id)) : undefined;
  if (!l) throw recordNotFound('no such link on this release');
  return l;
}

function linkRoutes(r: ApiRouter): void {
  const base = '/projects/:id/releases/:tag_name/assets/links';
  /** `before { authorize! :read_release, user_project }`, then `find_by_tag!` (a 404 here). */
  const load = (c: Ctx) => {
    const a = abilities(c);
    const rel = releaseOf(c, a, c.req.param('tag_name') ?? '');
    if (!rel) throw recordNotFound('no release for this tag');
    return { a, rel };
  };

  r.get(base, { params: { ...tagParam, ...paginationParams } }, (c) => {
    const { a, rel } = load(c);
    const links = [...rel.links].sort((x, y) =>
      x.created_at < y.created_at ? 1 : x.created_at > y.created_at ? -1 : y.id - x.id,
    );
    return paginate(c, links, (l) => linkEntity(c, a.project, rel, l));
  });

  r.post(
    base,
    {
      params: {
        ...tagParam,
        name: p.str().required(),
        url: p.str().required(),
        filepath: p.str(),
        link_type: p.str(),
      },
    },
    (c, prm) => {
      const { a, rel } = load(c);
      if (!a.write) throw forbidden();
      const link = {
        name: prm.name,
        url: prm.url,
        filepath: prm.filepath || null,
        link_type: linkType(prm.link_type),
      };
      const errors = linkErrors(link, rel.links);
      if (Object.keys(errors).length) throw validationError(errors);
      const now = c.get('fx').clock.iso();
      const id = write(c, (d) => {
        const lid = nextId(d, 'release_links');
        tget(d.releases.records, rel.id)!.links.push({ id: lid, ...link, created_at: now, updated_at: now });
        return lid;
      });
      const saved = tget(state(c).releases.records, rel.id)!;
      return c.json(
        linkEntity(
          c,
          a.project,
          saved,
          saved.links.find((l) => l.id === id)!,
        ),
        201,
      );
    },
  );

  r.get(`${base}/:link_id`, { params: { ...tagParam, link_id: p.str().required() } }, (c, prm) => {
    const { a, rel } = load(c);
    return c.json(linkEntity(c, a.project, rel, linkOf(c, rel, prm.link_id)));
  });

  r.put(
    `${base}/:link_id`,
    {
      params: {
        ...tagParam,
        link_id: p.str().required(),
        name: p.str(),
        url: p.str(),
        filepath: p.str(),
        link_type: p.str(),
      },
    },
    (c, prm) => {
      if (prm.name === undefined && prm.url === undefined)
        throw grapeError(400, 'name, url are missing, at least one parameter must be provided');
      const { a, rel } = load(c);
      if (!a.write) throw forbidden();
      const old = linkOf(c, rel, prm.link_id);
      const link = {
        name: prm.name ?? old.name,
        url: prm.url ?? old.url,
        filepath: prm.filepath === undefined ? old.filepath : prm.filepath || null,
        link_type: prm.link_type === undefined ? old.link_type : linkType(prm.link_type),
      };
      const errors = linkErrors(link, rel.links, old.id);
      if (Object.keys(errors).length) throw validationError(errors);
      const now = c.get('fx').clock.iso();
      write(c, (d) => {
        const l = tget(d.releases.records, rel.id)!.links.find((x) => x.id === old.id)!;
        Object.assign(l, link, { updated_at: now });
      });
      const saved = tget(state(c).releases.records, rel.id)!;
      return c.json(
        linkEntity(
          c,
          a.project,
          saved,
          saved.links.find((l) => l.id === old.id)!,
        ),
      );
    },
  );

  r.delete(`${base}/:link_id`, { params: { ...tagParam, link_id: p.str().required() } }, (c, prm) => {
    const { a, rel } = load(c);
    if (!a.write) throw forbidden();
    const old = linkOf(c, rel, prm.link_id);
    const shown = linkEntity(c, a.project, rel, old);
    write(c, (d) => {
      const rec = tget(d.releases.records, rel.id)!;
      rec.links = rec.links.filter((l) => l.id !== old.id);
    });
    return c.json(shown);
  });
}
