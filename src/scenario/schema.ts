/**
 * The scenario file format: a public contract. Field names here are documented in the README and
 * exported as a JSON Schema (scenarios/schema.json) for editors.
 */
import { z } from 'zod';
import { parseDuration } from '../core/clock.js';
import { PIPELINE_STATUSES } from '../resources/ci/model.js';
import { epicScenario, projectIssuablesFields } from '../resources/issuables/scenario.js';
import { integrationScenario, personalSnippetScenario } from '../resources/integrations/scenario.js';
import { groupSetupFields, projectSetupFields, setupScenarioFields } from '../resources/metadata/scenario.js';
import { userProfileFields } from '../resources/user_profile/scenario.js';

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

const digestHex = z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 digest (64 hex digits)');

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
    state: z.enum(['active', 'blocked', 'deactivated']).default('active'),
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
    ...userProfileFields,
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
  saml: z
    .union([
      z.boolean(),
      z.strictObject({
        enabled: z.boolean().default(true),
        sso_url: z.string().default('https://idp.example.com/sso'),
        default_membership_role: accessLevel.default(10),
      }),
    ])
    .optional()
    .describe('paid tiers: group SAML SSO (`true`, or its settings); the SCIM API needs it'),
  scim_token: z.string().min(1).optional().describe('paid tiers: the token SCIM clients send as Bearer'),
  scim_token_digest: digestHex
    .optional()
    .describe('SHA-256 of the SCIM token, as `fauxlab scenario export` writes it; instead of scim_token'),
  scim_identities: z
    .array(
      z.strictObject({
        username: z.string().min(1),
        extern_uid: z.string().min(1),
        active: z.boolean().default(true),
      }),
    )
    .optional()
    .describe("users provisioned into the group by SCIM (they need the group's `saml`)"),
  ...groupSetupFields,
});

/** The OAuth scopes an application may be registered with. */
const OAUTH_SCOPES = [
  'api',
  'read_user',
  'read_api',
  'read_repository',
  'write_repository',
  'read_registry',
  'write_registry',
  'sudo',
  'openid',
  'profile',
  'email',
];

export const oauthApplicationSchema = z
  .strictObject({
    name: z.string().min(1),
    uid: z.string().min(1).describe('the Application ID clients send as client_id'),
    secret: z.string().min(1).optional().describe('the client secret; or give secret_digest'),
    secret_digest: digestHex.optional().describe('SHA-256 of the client secret; instead of secret'),
    redirect_uri: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .describe('one redirect URI, or several'),
    scopes: z
      .union([z.string(), z.array(z.string())])
      .default(['api'])
      .transform((v) => (Array.isArray(v) ? v : v.split(/\s+/).filter(Boolean)))
      .refine((v) => v.every((s) => OAUTH_SCOPES.includes(s)), `may contain only ${OAUTH_SCOPES.join(', ')}`)
      .describe('space-separated or a list (default api)'),
    confidential: z.boolean().default(true),
    trusted: z.boolean().default(false).describe('trusted applications skip the consent page'),
    owner: z
      .string()
      .optional()
      .describe('username of the user who registered it; GET /applications lists only those without one'),
  })
  .refine((a) => !a.secret !== !a.secret_digest, { message: 'give secret or secret_digest (exactly one)' });

const shaHex = z.string().regex(/^[0-9a-f]{40}$/, 'must be a commit sha (40 hex digits)');

const refEntry = z
  .union([z.string().min(1), z.strictObject({ name: z.string().min(1), sha: shaHex.optional() })])
  .describe('a name, or {name, sha}; a sha is made up when none is given');

const seconds = z
  .union([
    z.number().min(0),
    z.string().refine(
      (v) => {
        try {
          return parseDuration(v) >= 0;
        } catch {
          return false;
        }
      },
      { message: 'must be seconds or a duration such as 90s, 5m, 1h30m' },
    ),
  ])
  .describe('seconds, or a duration such as 90s, 5m, 1h30m');

export const variableSchema = z.strictObject({
  key: z.string(),
  value: z.string(),
  variable_type: z.enum(['env_var', 'file']).default('env_var'),
  protected: z.boolean().default(false),
  masked: z.boolean().default(false),
  environment_scope: z.string().default('*'),
});

const testCaseSchema = z.strictObject({
  name: z.string(),
  classname: z.string().default(''),
  status: z.enum(['success', 'failed', 'skipped', 'error']),
  execution_time: z.number().min(0).default(0).describe('seconds'),
  system_output: z.string().nullable().default(null),
  stack_trace: z.string().nullable().default(null),
});

export const pipelineSchema = z.strictObject({
  ref: z
    .string()
    .min(1)
    .optional()
    .describe(
      'a branch (or a tag, with tag: true), added to the project if missing; default the default branch',
    ),
  tag: z.boolean().default(false),
  sha: shaHex.optional().describe("default the ref's sha"),
  status: z
    .enum(PIPELINE_STATUSES)
    .default('pending')
    .describe(
      'the status at the start of the clock; pending and running pipelines then move on the clock ' +
        '(running right after `now`, `outcome` after `duration`), the others stay',
    ),
  outcome: z.enum(['success', 'failed']).optional().describe('how a run ends (default success)'),
  duration: seconds.optional().describe('how long a run takes (default 60 seconds)'),
  user: z.string().optional().describe('username of the triggering user; default the project creator'),
  created_at: isoTime.optional(),
  coverage: z.union([z.number(), z.string()]).nullable().optional(),
  yaml_errors: z.string().nullable().optional(),
  variables: z
    .array(
      z.strictObject({
        key: z.string(),
        value: z.string(),
        variable_type: z.enum(['env_var', 'file']).optional(),
      }),
    )
    .default([]),
  test_report: z
    .strictObject({
      test_suites: z.array(
        z.strictObject({ name: z.string(), test_cases: z.array(testCaseSchema).default([]) }),
      ),
    })
    .optional()
    .describe('served by the test report endpoint while the junit_pipeline_view flag is on'),
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
  branches: z.array(refEntry).optional().describe('branches besides the default branch, which always exists'),
  tags: z.array(refEntry).optional(),
  variables: z.array(variableSchema).optional().describe('CI/CD variables'),
  pipelines: z.array(pipelineSchema).optional().describe('pipelines, oldest first'),
  integrations: z.array(integrationScenario).optional().describe('integrations (services), set up as by PUT'),
  ...projectIssuablesFields,
  ...projectSetupFields,
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
      .describe('issues in every project (explicit and generated), with labels, milestones and assignees'),
    merge_requests_per_project: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('merge requests in every project'),
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
  now: isoTime.optional().describe('where the instance clock starts, e.g. 2021-01-04T10:00:00Z'),
  settings: z.record(z.string(), z.unknown()).default({}),
  features: z.array(featureSchema).default([]),
  users: z.array(userSchema).default([]),
  groups: z.array(groupSchema).default([]),
  projects: z.array(projectSchema).default([]),
  oauth_applications: z.array(oauthApplicationSchema).default([]),
  epics: z
    .array(epicScenario)
    .default([])
    .describe('paid tiers: group epics (as far as their notes need them)'),
  snippets: z.array(personalSnippetScenario).default([]).describe('personal snippets'),
  ...setupScenarioFields,
  generate: generateSchema.optional(),
});

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioFile = z.input<typeof scenarioSchema>;
