/**
 * Job tokens (`CI_JOB_TOKEN`): each job's token is a core token of kind `job`, made with the job, so that
 * the core's authentication finds it on the routes that take job tokens. It is good only while its job
 * runs: the routes that accept it check that (`runningJobOf` in the jobs area), since the clock, not a
 * write, ends a run. The secret is derived from the job, so that a scenario replays it exactly.
 */
import { createHash } from 'node:crypto';
import type { Draft } from 'immer';
import { nextId, type PlatformState, type TokenRecord } from '../../core/state.js';
import { digest } from '../../core/store.js';
import { idelete, iget, iset, tdelete, tset } from '../../core/table.js';
import type { BuildRecord } from './builds.js';

type S = Draft<PlatformState>;

const PREFIX = 'job-';

/** The job's token: 20 hex characters, as the runner's variables show one. */
export const jobTokenSecret = (b: Pick<BuildRecord, 'id' | 'created_at'>) =>
  createHash('sha256').update(`fauxlab:job:${b.id}:${b.created_at}`).digest('hex').slice(0, 20);

/** The job id a job token stands for. */
export const jobIdOfToken = (name: string): number | undefined =>
  name.startsWith(PREFIX) ? Number(name.slice(PREFIX.length)) : undefined;

/** Stores the job's token (none for a job without a user: nobody it could act as). */
export function addJobToken(st: S, b: BuildRecord): void {
  if (b.user_id === null) return;
  const id = nextId(st, 'tokens');
  const d = digest(jobTokenSecret(b));
  const record: TokenRecord = {
    id,
    user_id: b.user_id,
    kind: 'job',
    name: `${PREFIX}${b.id}`,
    scopes: [],
    created_at: b.created_at,
    expires_at: null,
    revoked: false,
    digest: d,
  };
  tset(st.tokens, id, record);
  iset(st.idx.tokens, d, id);
}

export function removeJobToken(st: S, b: BuildRecord): void {
  const d = digest(jobTokenSecret(b));
  const id = iget(st.idx.tokens, d);
  if (id === undefined) return;
  idelete(st.idx.tokens, d);
  tdelete(st.tokens, id);
}
