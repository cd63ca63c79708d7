/** `Entities::Deployment`, rendered at one clock reading per request. */
import { state, type Ctx } from '../../core/context.js';
import { tget } from '../../core/table.js';
import { JobRenderer } from '../jobs/entities.js';
import { userRenderer, type UserRenderer } from '../users/entities.js';
import { deployableOf, LiveDeployments } from './model.js';
import type { DeploymentRecord } from './store.js';

type Json = Record<string, unknown>;

export class DeploymentRenderer {
  readonly live: LiveDeployments;
  readonly #jobs: JobRenderer;
  readonly #users: UserRenderer;

  constructor(
    readonly c: Ctx,
    now?: number,
  ) {
    this.#jobs = new JobRenderer(c, now);
    this.live = new LiveDeployments(state(c), this.#jobs.now);
    this.#users = userRenderer(c);
  }

  get now(): number {
    return this.live.now;
  }

  /**
   * `Deployment`: the user (`UserBasic`), the environment (`EnvironmentBasic`, left out inside an
   * environment's `last_deployment`), the job (`Ci::Job`, null for the API's deployments), the status.
   */
  deployment(d: DeploymentRecord, o: { environment?: boolean } = {}): Json {
    const st = state(this.c);
    const l = this.live.of(d);
    const user = d.user_id === null ? undefined : tget(st.users, d.user_id);
    const out: Json = {
      id: d.id,
      iid: d.iid,
      ref: d.ref,
      sha: d.sha,
      created_at: d.created_at,
      updated_at: l.updated_at,
      user: user ? this.#users.basic(user) : null,
    };
    if (o.environment !== false) {
      const e = tget(st.environments.records, d.environment_id);
      out.environment = e ? { id: e.id, name: e.name, slug: e.slug, external_url: e.external_url } : null;
    }
    const job = deployableOf(st, d);
    const project = tget(st.projects, d.project_id);
    out.deployable = job && project ? this.#jobs.full(job, project) : null;
    out.status = l.status;
    return out;
  }
}
