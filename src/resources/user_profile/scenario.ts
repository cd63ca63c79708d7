/** Scenario files' user profile records: a user's secondary `emails`, `ssh_keys`, `gpg_keys` and `status`. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioOut } from '../../core/area.js';
import { isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { tvalues } from '../../core/table.js';
import {
  createEmail,
  createGpgKey,
  createKey,
  keyFingerprint,
  normaliseEmail,
  sanitizeKey,
} from './model.js';
import { setStatus } from './status.js';

/** Fields a user entry of a scenario may carry for this area. */
export const userProfileFields = {
  emails: z
    .array(z.strictObject({ email: z.email(), confirmed: z.boolean().default(false) }))
    .optional()
    .describe('secondary e-mails'),
  ssh_keys: z
    .array(
      z.strictObject({
        title: z.string().min(1).max(255),
        key: z.string().min(1).max(5000).describe('an OpenSSH public key'),
        expires_at: isoTime.nullable().default(null),
      }),
    )
    .optional(),
  gpg_keys: z.array(z.string().min(1)).optional().describe('armoured public keys'),
  status: z
    .strictObject({
      emoji: z.string().min(1).default('speech_balloon'),
      message: z.string().max(100).nullable().default(null),
      availability: z.enum(['not_set', 'busy']).default('not_set'),
      clear_status_at: isoTime.nullable().default(null),
    })
    .optional(),
};

export type UserProfile = z.output<z.ZodObject<typeof userProfileFields>>;

/** Keys that do not parse and e-mails or keys given twice, as `users[i]...: message` lines. */
export function userProfileProblems(users: readonly UserProfile[]): string[] {
  const problems: string[] = [];
  const emails = new Set<string>();
  const fingerprints = new Set<string>();
  users.forEach((u, i) => {
    (u.emails ?? []).forEach((e, j) => {
      const k = normaliseEmail(e.email);
      if (emails.has(k)) problems.push(`users[${i}].emails[${j}].email: "${e.email}" is listed twice`);
      emails.add(k);
    });
    (u.ssh_keys ?? []).forEach((k, j) => {
      const fp = keyFingerprint(sanitizeKey(k.key));
      if (fp === null) problems.push(`users[${i}].ssh_keys[${j}].key: is not a public key fauxlab can read`);
      else if (fingerprints.has(fp)) problems.push(`users[${i}].ssh_keys[${j}].key: is listed twice`);
      if (fp !== null) fingerprints.add(fp);
    });
  });
  return problems;
}

export function buildUserProfile(
  st: Draft<PlatformState>,
  userId: number,
  u: UserProfile,
  now: string,
): void {
  for (const e of u.emails ?? []) createEmail(st, userId, normaliseEmail(e.email), e.confirmed, now);
  for (const k of u.ssh_keys ?? []) {
    const key = sanitizeKey(k.key);
    const expires = k.expires_at === null ? null : new Date(k.expires_at).toISOString();
    createKey(
      st,
      userId,
      { title: k.title, key, fingerprint: keyFingerprint(key)!, expires_at: expires },
      now,
    );
  }
  for (const k of u.gpg_keys ?? []) createGpgKey(st, userId, k, now);
  if (u.status) setStatus(st, { id: userId, ...u.status }, userId);
}

/** Each user's profile records, in creation order. Not kept: when an e-mail was confirmed (the file's `now`). */
export function exportUserProfile(st: PlatformState, out: ScenarioOut): void {
  const add = (userId: number, key: string, v: unknown) => {
    const u = out.user(userId);
    if (u) ((u[key] ??= []) as unknown[]).push(v);
  };
  for (const e of tvalues(st.profile.emails))
    add(
      e.user_id,
      'emails',
      e.confirmed_at === null ? { email: e.email } : { email: e.email, confirmed: true },
    );
  for (const k of tvalues(st.profile.keys))
    add(k.user_id, 'ssh_keys', {
      title: k.title,
      key: k.key,
      ...(k.expires_at !== null && { expires_at: k.expires_at }),
    });
  for (const k of tvalues(st.profile.gpgKeys)) add(k.user_id, 'gpg_keys', k.key);
  for (const s of tvalues(st.profile.statuses)) {
    const u = out.user(s.id);
    if (!u) continue;
    const { id: _id, ...status } = s;
    u.status = status;
  }
}
