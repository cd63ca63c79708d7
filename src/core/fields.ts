/** Field formats the scenario file shares across areas (zod). */
import { z } from 'zod';

export const isoTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 time');
/** A scenario time as the API writes times (`...000Z`); undefined stays undefined. */
export const isoOf = (s: string | undefined) => (s === undefined ? undefined : new Date(s).toISOString());
export const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a YYYY-MM-DD date');
export const digestHex = z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 digest (64 hex digits)');

const ACCESS_NAMES = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;

/** An access level as a number (10-50) or a role name. */
export const accessLevel = z.union(
  [
    z.union([z.literal(10), z.literal(20), z.literal(30), z.literal(40), z.literal(50)]),
    z.enum(['guest', 'reporter', 'developer', 'maintainer', 'owner']).transform((n) => ACCESS_NAMES[n]),
  ],
  { error: 'must be 10, 20, 30, 40, 50, guest, reporter, developer, maintainer or owner' },
);
