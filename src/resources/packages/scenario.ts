/**
 * Scenario files' `packages` of a project: generic and RubyGems packages with their files, as text or
 * base64 (a gem with its platform and dependency links, as the extraction leaves them).
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { validPackageName } from './formats.js';
import {
  addPackageFile,
  createPackage,
  findPackageByName,
  packageFiles,
  packageMeta,
  setPackageMeta,
} from './model.js';
import { validGenericName, validGenericVersion } from './validation.js';

/** Bounds of a described registry: a scenario is read whole into memory. */
export const PACKAGE_LIMITS = { packages: 1000, files: 100, fileChars: 10_000_000 };

const fileSchema = z
  .strictObject({
    file_name: z.string().max(255).refine(validGenericName, 'must be a valid generic package file name'),
    content: z.string().max(PACKAGE_LIMITS.fileChars).optional().describe('the file as UTF-8 text'),
    content_base64: z
      .string()
      .max(PACKAGE_LIMITS.fileChars)
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64')
      .optional()
      .describe('the file’s bytes, base64; instead of content'),
    created_at: isoTime.optional().describe('default the package’s created_at'),
  })
  .refine((f) => (f.content === undefined) !== (f.content_base64 === undefined), {
    message: 'give content or content_base64 (exactly one)',
  });

const gemMetaSchema = z.strictObject({
  platform: z.string().max(255).default('ruby'),
  dependencies: z
    .array(z.tuple([z.string().min(1).max(255), z.string().max(255)]))
    .max(1000)
    .default([])
    .describe('[name, requirement] pairs, as the gemspec lists them'),
});

const packageSchema = z
  .strictObject({
    name: z.string().max(255),
    version: z.string().max(255),
    package_type: z.enum(['generic', 'rubygems']).default('generic'),
    status: z.enum(['default', 'hidden']).default('default'),
    created_at: isoTime.optional(),
    files: z.array(fileSchema).max(PACKAGE_LIMITS.files).default([]),
    rubygems: gemMetaSchema.optional().describe("a gem's platform and dependencies (package_type rubygems)"),
  })
  .superRefine((x, ctx) => {
    // Each type's own name and version rules (`Packages::Package` validations).
    const generic = x.package_type === 'generic';
    if (!(generic ? validGenericName(x.name) : validPackageName(x.name)))
      ctx.addIssue({
        code: 'custom',
        path: ['name'],
        message: `must be a valid ${x.package_type} package name`,
      });
    if (generic && !validGenericVersion(x.version))
      ctx.addIssue({ code: 'custom', path: ['version'], message: 'must be a valid generic package version' });
    if (!generic && x.version === '')
      ctx.addIssue({ code: 'custom', path: ['version'], message: 'must not be empty' });
    if (generic && x.rubygems)
      ctx.addIssue({ code: 'custom', path: ['rubygems'], message: 'only for package_type rubygems' });
  });

export const packageProjectFields = {
  packages: z
    .array(packageSchema)
    .max(PACKAGE_LIMITS.packages)
    .optional()
    .describe('generic and RubyGems packages of the registry, with their files'),
};

export interface PackagesProject {
  packages?: z.output<typeof packageSchema>[];
}

/** Each name and version once per project, as the registry's find-or-create keeps them. */
export function packageProblems(p: PackagesProject, at: string): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  (p.packages ?? []).forEach((x, j) => {
    const key = `${x.package_type}\0${x.name}\0${x.version}`;
    if (seen.has(key)) problems.push(`${at}.packages[${j}]: ${x.name} ${x.version} is listed twice`);
    seen.add(key);
  });
  return problems;
}

const bytesOf = (f: { content?: string | undefined; content_base64?: string | undefined }) =>
  f.content !== undefined
    ? new TextEncoder().encode(f.content)
    : new Uint8Array(Buffer.from(f.content_base64!, 'base64'));

export function buildPackages(
  st: Draft<PlatformState>,
  projectId: number,
  p: PackagesProject,
  b: ScenarioBuild,
): void {
  for (const x of p.packages ?? []) {
    if (findPackageByName(st, projectId, x.package_type, x.name, x.version)) continue;
    const created = isoOf(x.created_at) ?? b.now;
    const pkg = createPackage(st, {
      project_id: projectId,
      name: x.name,
      version: x.version,
      package_type: x.package_type,
      status: x.status,
      creator_id: null,
      created_at: created,
    });
    for (const f of x.files)
      addPackageFile(st, tget(st.packages.records, pkg.id)!, {
        file_name: f.file_name,
        bytes: bytesOf(f),
        pipeline_id: null,
        created_at: isoOf(f.created_at) ?? created,
      });
    if (x.package_type === 'rubygems') {
      const meta = x.rubygems ?? { platform: 'ruby', dependencies: [] };
      setPackageMeta(st, pkg.id, {
        kind: 'rubygems',
        platform: meta.platform,
        dependencies: meta.dependencies,
      });
    }
  }
}

/** Text when the bytes are UTF-8 that decodes and encodes back the same, else base64. */
function fileContent(data: string): { content: string } | { content_base64: string } {
  const bytes = Buffer.from(data, 'base64');
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? { content: text } : { content_base64: data };
}

/**
 * Every generic and RubyGems package, per project in id order, with its files (a gem's platform and
 * dependencies beside). A gem still processing is left out, as its extraction would run on load. Not kept: the pipelines that
 * published them (a load runs no jobs) and who created them (the API shows neither for generic uploads).
 */
export function exportPackages(st: PlatformState, out: ScenarioOut): void {
  for (const pkg of tvalues(st.packages.records)) {
    const gem = pkg.package_type === 'rubygems';
    if ((pkg.package_type !== 'generic' && !gem) || pkg.status === 'processing') continue;
    const e = out.project(pkg.project_id);
    if (!e) continue;
    const entry: Record<string, unknown> = { name: pkg.name, version: pkg.version };
    if (gem) entry.package_type = 'rubygems';
    if (pkg.status !== 'default') entry.status = pkg.status;
    entry.created_at = pkg.created_at;
    entry.files = packageFiles(st, pkg.id).map((f) => ({
      file_name: f.file_name,
      ...fileContent(f.data),
      ...(f.created_at !== pkg.created_at && { created_at: f.created_at }),
    }));
    const meta = gem ? packageMeta(st, pkg.id) : undefined;
    if (meta?.kind === 'rubygems')
      entry.rubygems = { platform: meta.platform, dependencies: meta.dependencies };
    ((e.packages ??= []) as unknown[]).push(entry);
  }
}
