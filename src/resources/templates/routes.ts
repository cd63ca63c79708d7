/**
 * Project templates (`/projects/:id/templates/:type`): Dockerfiles, `.gitignore` files, CI templates
 * and licenses, with the platform's real texts shipped in `fixtures/templates` (see its README for
 * their sources).
 * A license's `[year]`, `[fullname]` and `[project]` placeholders are filled as `LicenseTemplate#resolve!`
 * does, the year from the instance clock.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ctx } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { loadProject } from '../projects/helpers.js';
import { findCiTemplate, listCiTemplates, pathOf, type CiTemplate } from './ci.js';

export interface LicenseTemplate {
  key: string;
  name: string;
  nickname: string | null;
  popular: boolean;
  html_url: string;
  source_url: string;
  description: string;
  conditions: string[];
  permissions: string[];
  limitations: string[];
  content: string;
}

interface FileTemplate {
  key: string;
  name: string;
  content: string;
}

const TYPES = ['dockerfiles', 'gitignores', 'gitlab_ci_ymls', 'licenses'] as const;
type TemplateType = (typeof TYPES)[number];

/** `fixtures/templates`, found from this module both in `src/` and in the build under `dist/src/`. */
function fixturesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'fixtures', 'templates');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error('fauxlab: fixtures/templates not found next to the package');
}

const loaded = new Map<TemplateType, readonly (FileTemplate | LicenseTemplate)[]>();

/** The templates of a type, read on first use (the license texts are half a megabyte). */
function templates(type: TemplateType): readonly (FileTemplate | LicenseTemplate)[] {
  let list = loaded.get(type);
  if (!list) {
    list = JSON.parse(readFileSync(join(fixturesDir(), `${type}.json`), 'utf8')) as FileTemplate[];
    loaded.set(type, list);
  }
  return list;
}

/**
 * The text of a vendored CI template by its path under the templates folder (`Pages/Jekyll.gitlab-ci.yml`),
 * as `include: template:` names it; undefined when fauxlab has no such file.
 */
export function ciTemplateFile(path: string): string | undefined {
  return (templates('gitlab_ci_ymls') as CiTemplate[]).find((t) => pathOf(t) === path)?.content;
}

const PROJECT_PLACEHOLDER = /[<{[](project|description|one\sline\s.+\swhat\sit\sdoes\.)[>}\]]/gi;
const YEAR_PLACEHOLDER = /[<{[](year|yyyy)[>}\]]/gi;
const FULLNAME_PLACEHOLDER = /[<{[](fullname|name\sof\s(author|copyright\sowner))[>}\]]/gi;

/** `LicenseTemplate#resolve!`. */
export function resolveLicense(
  text: string,
  o: { project?: string; fullname?: string; year: string },
): string {
  let out = text.replace(YEAR_PLACEHOLDER, () => o.year);
  if (o.project) out = out.replace(PROJECT_PLACEHOLDER, () => o.project!);
  if (o.fullname) out = out.replace(FULLNAME_PLACEHOLDER, () => o.fullname!);
  return out;
}

// A type the platform does not know (or spells differently, as `Licenses`) reaches no route.
const typeRequirement = new RegExp(`^(${TYPES.join('|')})$`);

/** The templates a list shows: CI templates by category and edition, the others all of them. */
function listed(c: Ctx, type: TemplateType): readonly (FileTemplate | LicenseTemplate)[] {
  if (type !== 'gitlab_ci_ymls') return templates(type);
  return listCiTemplates(templates(type) as CiTemplate[], c.get('fx').tier());
}

/** The template of a type by name (licenses by their lower-case key, files by their exact name). */
function findTemplate(c: Ctx, type: TemplateType, name: string): FileTemplate | LicenseTemplate | undefined {
  if (type === 'gitlab_ci_ymls')
    return findCiTemplate(templates(type) as CiTemplate[], name, c.get('fx').tier());
  const key = type === 'licenses' ? name.toLowerCase() : name;
  return templates(type).find((x) => x.key === key);
}

/** `Entities::License` with its placeholders filled (`LicenseTemplate#resolve!`). */
function resolved(c: Ctx, lic: LicenseTemplate, project: string | undefined, fullname: string | undefined) {
  const content = resolveLicense(lic.content, {
    project: project || undefined,
    fullname: fullname || c.get('viewer').user?.name,
    year: c.get('fx').clock.iso().slice(0, 4),
  });
  return { ...lic, content };
}

/**
 * `not_found!(template_type.to_s.singularize)` (`render_response`): the helper puts the word in as it
 * is, so `404 gitlab_ci_yml Not Found`; licenses have their own `not_found!('License')`.
 */
const missing = (type: TemplateType, name: string) =>
  notFound(type === 'licenses' ? 'License' : type.slice(0, -1), `no ${type} template named ${name}`);

/** `:name` requirements (`/[\w\.-]+/`), with the escapes clients send. */
const NAME = /^[\w%.+-]+$/;

export function templatesRoutes(r: ApiRouter): void {
  r.get(
    '/projects/:id/templates/:type',
    { requirements: { type: typeRequirement }, params: paginationParams },
    (c) => {
      loadProject(c);
      const list = listed(c, c.req.param('type') as TemplateType);
      return paginate(c, list, (t) => ({ key: t.key, name: t.name }));
    },
  );

  r.get(
    '/projects/:id/templates/:type/:name',
    {
      requirements: { type: typeRequirement, name: NAME },
      params: { name: p.str().required(), project: p.str(), fullname: p.str() },
    },
    (c: Ctx, prm) => {
      loadProject(c);
      const type = c.req.param('type') as TemplateType;
      const t = findTemplate(c, type, prm.name);
      if (!t) throw notFound('Template', `no ${type} template with the key ${prm.name}`);
      if (type !== 'licenses') return c.json({ name: t.name, content: t.content });
      return c.json(resolved(c, t as LicenseTemplate, prm.project, prm.fullname));
    },
  );

  // The instance's templates (`lib/api/templates.rb`): licenses as whole entities, with `popular`.
  r.get('/templates/licenses', { params: { popular: p.bool(), ...paginationParams } }, (c, prm) => {
    const all = templates('licenses') as LicenseTemplate[];
    return paginate(c, prm.popular ? all.filter((l) => l.popular) : all, (l) => l);
  });

  r.get(
    '/templates/licenses/:name',
    {
      requirements: { name: NAME },
      params: { name: p.str().required(), project: p.str(), fullname: p.str() },
    },
    (c, prm) => {
      const lic = findTemplate(c, 'licenses', prm.name) as LicenseTemplate | undefined;
      if (!lic) throw missing('licenses', prm.name);
      return c.json(resolved(c, lic, prm.project, prm.fullname));
    },
  );

  for (const type of ['gitignores', 'dockerfiles', 'gitlab_ci_ymls'] as const) {
    r.get(`/templates/${type}`, { params: paginationParams }, (c) =>
      paginate(c, listed(c, type), (t) => ({ key: t.key, name: t.name })),
    );
    r.get(
      `/templates/${type}/:name`,
      { requirements: { name: NAME }, params: { name: p.str().required() } },
      (c, prm) => {
        const t = findTemplate(c, type, prm.name);
        if (!t) throw missing(type, prm.name);
        return c.json({ name: t.name, content: t.content });
      },
    );
  }
}
