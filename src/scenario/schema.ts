/**
 * The scenario file format: a public contract. Field names here are documented in the README and
 * exported as a JSON Schema (scenarios/schema.json) for editors.
 */
import { DEFAULT_MINOR, MINORS, SUPPORTED_RANGE, type Minor } from '../core/versions.js';
import { z } from 'zod';
import { accessLevel, digestHex, isoDate, isoTime } from '../core/fields.js';
import { AREAS, type AreaList } from '../resources/index.js';

type Part = 'fields' | 'userFields' | 'groupFields' | 'projectFields' | 'generateFields';
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void
  ? I
  : never;
type PartOf<A, P extends Part> = A extends { readonly scenario: { readonly [K in P]: infer F } } ? F : never;
type Shape<T> = [T] extends [never] ? object : T;
/** The fields every area adds to one part of the file, with their types. */
type AreaFields<P extends Part> = Shape<UnionToIntersection<PartOf<AreaList[number], P>>>;

/** The fields the areas add to a part of the file, in the area list's order. */
const areaFields = <P extends Part>(part: P) =>
  Object.assign({}, ...AREAS.map((a) => a.scenario?.[part] ?? {})) as AreaFields<P>;

const visibility = z.enum(['private', 'internal', 'public']);

export const tokenSchema = z
  .strictObject({
    token: z.string().optional().describe('the exact string clients send; or give token_digest'),
    token_digest: digestHex
      .optional()
      .describe('SHA-256 of the token, as `fauxlab scenario export` writes it; instead of token'),
    name: z.string().default('token'),
    scopes: z
      .array(
        z.enum([
          'api',
          'read_api',
          'read_user',
          'read_repository',
          'write_repository',
          'read_registry',
          'write_registry',
          'sudo',
        ]),
      )
      .min(1)
      .default(['api']),
    expires_at: isoDate.nullable().default(null),
    revoked: z.boolean().default(false),
    impersonation: z.boolean().default(false),
  })
  // A token or a digest; '' counts as no token, so that a loaded scenario loads again as it is.
  .refine((t) => !t.token !== !t.token_digest, {
    message: 'give token or token_digest (exactly one)',
  })
  // Loaded tokens always have a `token` string: '' when only the digest is known.
  .transform(({ token, ...t }) => ({ token: token ?? '', ...t }));

const memberSchema = z.strictObject({
  username: z.string().min(1),
  access_level: accessLevel,
  expires_at: isoDate.nullable().optional(),
});

export const userSchema = z
  .looseObject({
    username: z
      .string()
      .regex(/^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/, 'may contain only letters, digits, _, - and .'),
    name: z.string().min(1).optional(),
    email: z.email().optional(),
    admin: z.boolean().default(false),
    state: z
      .enum(['active', 'blocked', 'blocked_pending_approval', 'deactivated', 'banned'])
      .default('active')
      .describe(
        'blocked_pending_approval: a sign-up an administrator has yet to approve; banned: GitLab 14.3 on, loaded as blocked by an earlier release',
      ),
    password: z.string().min(8).optional(),
    password_digest: digestHex.optional().describe('SHA-256 of the password; instead of password'),
    external: z.boolean().optional(),
    two_factor_enabled: z.boolean().optional(),
    private_profile: z.boolean().optional(),
    custom_attributes: z.record(z.string(), z.string()).optional(),
    identities: z
      .array(
        z.strictObject({
          provider: z.string(),
          extern_uid: z.string(),
          saml_provider_id: z.number().int().nullable().optional(),
        }),
      )
      .optional(),
    created_at: isoTime.optional(),
    tokens: z.array(tokenSchema).default([]),
    ...areaFields('userFields'),
  })
  .describe('A user; any other field of the admin user shape may be given too.');

export const groupSchema = z.looseObject({
  path: z
    .string()
    .regex(
      /^[A-Za-z0-9_.][A-Za-z0-9_.-]*(\/[A-Za-z0-9_.][A-Za-z0-9_.-]*)*$/,
      'must be a group path such as parent/child',
    ),
  name: z.string().optional(),
  visibility: visibility.default('private'),
  description: z.string().default(''),
  members: z.array(memberSchema).default([]),
  shared_with: z
    .array(
      z.strictObject({
        group: z.string().min(1).describe('full path of a group listed in `groups`'),
        group_access: accessLevel,
        expires_at: isoDate.nullable().default(null),
      }),
    )
    .default([])
    .describe('groups this group is shared with (their direct members get access to it)'),
  ...areaFields('groupFields'),
});

export const projectSchema = z.looseObject({
  path: z
    .string()
    .regex(/^[A-Za-z0-9_.][A-Za-z0-9_.-]*(\/[A-Za-z0-9_.][A-Za-z0-9_.-]*)+$/, 'must be namespace/name'),
  name: z.string().optional(),
  visibility: visibility.default('private'),
  description: z.string().default(''),
  archived: z.boolean().default(false),
  default_branch: z.string().nullable().default('master'),
  creator: z
    .string()
    .optional()
    .describe('username of the creator; default the namespace owner or first group owner'),
  members: z.array(memberSchema).default([]),
  starred_by: z.array(z.string()).default([]).describe('usernames of the users who starred the project'),
  shared_with: z
    .array(
      z.strictObject({
        group: z.string().min(1).describe('full path of a group listed in `groups`'),
        group_access: accessLevel.refine((l) => l <= 40, 'must be at most 40 (maintainer)'),
        expires_at: isoDate.nullable().default(null),
      }),
    )
    .default([])
    .describe('groups the project is shared with'),
  tag_list: z.array(z.string()).optional().describe('topics; stored sorted'),
  forked_from: z.string().optional().describe('path of the project this one is a fork of (listed before it)'),
  created_at: isoTime.optional(),
  last_activity_at: isoTime.optional(),
  marked_for_deletion_on: isoDate
    .nullable()
    .optional()
    .describe('paid tiers: the day an adjourned deletion was requested'),
  ...areaFields('projectFields'),
});

export const featureSchema = z.strictObject({
  name: z.string().min(1),
  state: z.enum(['on', 'off']).optional(),
  gates: z
    .array(
      z.strictObject({
        key: z.enum(['boolean', 'percentage_of_time', 'percentage_of_actors', 'actors', 'groups']),
        value: z.union([z.boolean(), z.number().int().min(0).max(100), z.array(z.string())]),
      }),
    )
    .optional(),
});

export const generateSchema = z
  .strictObject({
    users: z.number().int().min(0).default(0).describe('users with faker-made names, usernames and emails'),
    groups: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('groups (about a third of them subgroups), each with an owner and a few members'),
    projects: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('projects spread over groups and personal namespaces, with mixed visibility and members'),
    ...areaFields('generateFields'),
  })
  .describe('Records generated after the explicit ones, reproducible from `seed`.');

export const scenarioSchema = z.strictObject({
  $schema: z.string().optional(),
  extends: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe(
      "scenario file(s) this one builds on, relative to this file: their fields first, then this one's " +
        '(an entry with the same username, path or name replaces the inherited one)',
    ),
  seed: z.number().int().default(1).describe('seed of the generated records (`generate`)'),
  tier: z
    .enum(['free', 'premium', 'ultimate'])
    .default('free')
    .describe('`free` behaves as the community edition'),
  version: z
    .string()
    .default(DEFAULT_MINOR)
    .refine((v) => MINORS.includes(v as Minor), {
      error: (i) =>
        `GitLab version ${JSON.stringify(i.input)} is not supported: give a minor release from ${SUPPORTED_RANGE}`,
    })
    .transform((v) => v as Minor)
    .describe(
      `the GitLab minor release the instance answers as (${SUPPORTED_RANGE}; default ${DEFAULT_MINOR})`,
    ),
  now: isoTime.optional().describe('where the instance clock starts, e.g. 2021-01-04T10:00:00Z'),
  settings: z.record(z.string(), z.unknown()).default({}),
  features: z.array(featureSchema).default([]),
  users: z.array(userSchema).default([]),
  groups: z.array(groupSchema).default([]),
  projects: z.array(projectSchema).default([]),
  ...areaFields('fields'),
  generate: generateSchema.optional(),
});

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioFile = z.input<typeof scenarioSchema>;
