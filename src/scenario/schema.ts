/**
 * The scenario file format: a public contract. Field names here are documented in the README and
 * exported as a JSON Schema (scenarios/schema.json) for editors.
 */
import { z } from 'zod';

const visibility = z.enum(['private', 'internal', 'public']);

const ACCESS_NAMES = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;

/** An access level as a number (10-50) or a role name. */
export const accessLevel = z.union(
  [
    z.union([z.literal(10), z.literal(20), z.literal(30), z.literal(40), z.literal(50)]),
    z.enum(['guest', 'reporter', 'developer', 'maintainer', 'owner']).transform((n) => ACCESS_NAMES[n]),
  ],
  { error: 'must be 10, 20, 30, 40, 50, guest, reporter, developer, maintainer or owner' },
);

const isoTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 time');
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a YYYY-MM-DD date');

export const tokenSchema = z.strictObject({
  token: z.string().min(1),
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
});

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
    state: z.enum(['active', 'blocked', 'deactivated']).default('active'),
    password: z.string().min(8).optional(),
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
  starred_by: z.array(z.string()).default([]),
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
    issues_per_project: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('accepted and validated, but nothing is generated: fauxlab does not model issues yet'),
  })
  .describe(
    'Records generated after the explicit ones, reproducible from `seed`. ' +
      'issues_per_project is accepted but ignored: issues are not modelled yet.',
  );

export const scenarioSchema = z.strictObject({
  $schema: z.string().optional(),
  seed: z.number().int().default(1).describe('seed of the generated records (`generate`)'),
  tier: z
    .enum(['free', 'premium', 'ultimate'])
    .default('free')
    .describe('`free` behaves as the community edition'),
  now: isoTime.optional().describe('where the instance clock starts, e.g. 2021-01-04T10:00:00Z'),
  settings: z.record(z.string(), z.unknown()).default({}),
  features: z.array(featureSchema).default([]),
  users: z.array(userSchema).default([]),
  groups: z.array(groupSchema).default([]),
  projects: z.array(projectSchema).default([]),
  generate: generateSchema.optional(),
});

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioFile = z.input<typeof scenarioSchema>;
