/**
 * Scenario files' container registry: the top-level `container_registry` (the registry's configuration)
 * and a project's `container_repositories` (each with the tags the registry holds for it).
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { digestHex, isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { ientries, mget, tget, tvalues } from '../../core/table.js';
import { createRepository } from './model.js';

/** The registry's name rules (`ContainerRegistry::Path`, Docker's reference grammar), bounded. */
const IMAGE_NAME = /^(?:[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)(?:\/[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)*$/;
const TAG_NAME = /^[\w][\w.-]{0,127}$/;

const tagSchema = z.strictObject({
  name: z
    .string()
    .regex(TAG_NAME, 'must be a Docker tag name (word characters, dots and dashes, at most 128)'),
  digest: digestHex.describe('the manifest digest, without the sha256: prefix'),
  revision: digestHex.optional().describe("the image configuration's digest; default: the manifest's"),
  total_size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  created_at: isoTime.nullable().optional().describe("the image configuration's created time"),
});

const repositorySchema = z.strictObject({
  name: z
    .string()
    .max(255)
    .refine((s) => s === '' || IMAGE_NAME.test(s), 'must be an image name (lower case, / between parts)')
    .default('')
    .describe("the image under the project's path; '' (default) for the project's own image"),
  created_at: isoTime.optional(),
  cleanup_policy_started_at: isoTime.nullable().optional(),
  tags: z.array(tagSchema).max(10_000).default([]),
});

export const containerRegistryFields = {
  container_registry: z
    .strictObject({
      host_port: z.string().min(1).max(255).nullable().optional().describe('the registry host and port'),
      notification_secret: z
        .string()
        .min(1)
        .max(1024)
        .nullable()
        .optional()
        .describe(
          "the registry's notification token (Authorization of POST /container_registry_event/events)",
        ),
    })
    .optional()
    .describe("the container registry's configuration (Gitlab.config.registry)"),
};

export const containerRegistryProjectFields = {
  container_registry_enabled: z
    .boolean()
    .optional()
    .describe("the project's container registry feature (default on)"),
  container_repositories: z
    .array(repositorySchema)
    .max(1000)
    .optional()
    .describe("the project's container registry repositories and their tags"),
};

export interface ContainerRegistryTop {
  container_registry?: z.output<(typeof containerRegistryFields)['container_registry']>;
}
export interface ContainerRegistryProject {
  container_registry_enabled?: boolean;
  container_repositories?: z.output<typeof repositorySchema>[];
}

/** One name per repository in a project, one name per tag in a repository. */
export function containerRegistryProblems(p: ContainerRegistryProject, at: string): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  (p.container_repositories ?? []).forEach((r, i) => {
    if (names.has(r.name)) problems.push(`${at}.container_repositories[${i}].name: has already been taken`);
    names.add(r.name);
    const tags = new Set<string>();
    r.tags.forEach((t, j) => {
      if (tags.has(t.name))
        problems.push(`${at}.container_repositories[${i}].tags[${j}].name: is listed twice`);
      tags.add(t.name);
    });
  });
  return problems;
}

export function buildContainerConfig(st: Draft<PlatformState>, s: ContainerRegistryTop): void {
  const cfg = s.container_registry;
  st.container_registry.config = {
    host_port: cfg?.host_port ?? null,
    notification_secret: cfg?.notification_secret ?? null,
  };
}

export function buildContainerRepositories(
  st: Draft<PlatformState>,
  projectId: number,
  p: ContainerRegistryProject,
  b: ScenarioBuild,
): void {
  if (p.container_registry_enabled !== undefined) {
    const project = tget(st.projects, projectId);
    if (project) project.container_registry_enabled = p.container_registry_enabled;
  }
  for (const r of p.container_repositories ?? [])
    createRepository(st, projectId, {
      name: r.name,
      created_at: isoOf(r.created_at) ?? b.now,
      expiration_policy_started_at: isoOf(r.cleanup_policy_started_at ?? undefined) ?? null,
      tags: r.tags.map((t) => ({
        name: t.name,
        digest: `sha256:${t.digest}`,
        revision: t.revision ?? t.digest,
        total_size: t.total_size,
        created_at: t.created_at == null ? null : new Date(t.created_at).toISOString(),
      })),
    });
}

export function exportContainerRegistry(st: PlatformState, out: ScenarioOut): void {
  const cfg = st.container_registry.config;
  if (cfg.host_port !== null || cfg.notification_secret !== null)
    out.file.container_registry = { host_port: cfg.host_port, notification_secret: cfg.notification_secret };
  for (const project of tvalues(st.projects))
    if (project.container_registry_enabled === false) {
      const e = out.project(project.id);
      if (e) e.container_registry_enabled = false;
    }
  for (const [key] of ientries(st.container_registry.idx.byProject)) {
    const e = out.project(Number(key));
    if (!e) continue;
    const list = mget(st.container_registry.idx.byProject, key).map((id) => {
      const r = tget(st.container_registry.repositories, id)!;
      return {
        name: r.name,
        created_at: r.created_at,
        cleanup_policy_started_at: r.expiration_policy_started_at,
        tags: r.tags.map((t) => ({
          name: t.name,
          digest: t.digest.replace(/^sha256:/, ''),
          revision: t.revision,
          total_size: t.total_size,
          created_at: t.created_at,
        })),
      };
    });
    if (list.length > 0) e.container_repositories = list;
  }
}
