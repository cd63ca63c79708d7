/**
 * Project templates (`/projects/:id/templates/:type`): Dockerfiles, `.gitignore` files and licenses,
 * with the platform's real texts shipped in `fixtures/templates` (see its README for their sources).
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

const TYPES = ['dockerfiles', 'gitignores', 'licenses'] as const;
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

export function templatesRoutes(r: ApiRouter): void {
  r.get(
    '/projects/:id/templates/:type',
    { requirements: { type: typeRequirement }, params: paginationParams },
    (c) => {
      loadProject(c);
      const list = templates(c.req.param('type') as TemplateType);
      return paginate(c, list, (t) => ({ key: t.key, name: t.name }));
    },
  );

  r.get(
    '/projects/:id/templates/:type/:name',
    {
      requirements: { type: typeRequirement, name: /^[\w%.+-]+$/ },
      params: { name: p.str().required(), project: p.str(), fullname: p.str() },
    },
    (c: Ctx, prm) => {
      loadProject(c);
      const type = c.req.param('type') as TemplateType;
      // Licensee looks licenses up by their lower-case key; file templates by their exact file name.
      const key = type === 'licenses' ? prm.name.toLowerCase() : prm.name;
      const t = templates(type).find((x) => x.key === key);
      if (!t) throw notFound('Template', `no ${type} template with the key ${prm.name}`);
      if (type !== 'licenses') return c.json({ name: t.name, content: t.content });
      const lic = t as LicenseTemplate;
      const content = resolveLicense(lic.content, {
        project: prm.project || undefined,
        fullname: prm.fullname || c.get('viewer').user?.name,
        year: c.get('fx').clock.iso().slice(0, 4),
      });
      return c.json({ ...lic, content });
    },
  );
}
