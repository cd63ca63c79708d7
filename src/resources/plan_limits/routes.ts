/**
 * `GET` and `PUT /application/plan_limits` (`lib/api/admin/plan_limits.rb`, GitLab 13.10; admins only,
 * a `before` filter, so the 403 comes before the params). 13.12's `Entities::PlanLimit` has the package
 * registries' file sizes only (the CI limits and `terraform_module_max_file_size` came later).
 *
 * `plan_name` takes `Plan.all_plans`: `default` on the community edition, the GitLab.com plans too on
 * the paid tiers. `Admin::PlansFinder` finds only the plans that have rows, and a self-managed instance
 * has only the default one: any other name is `404 Plan Not Found`.
 */
import { requireAdmin } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { internalError, notFound } from '../../core/errors.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { actualLimits } from './model.js';
import { LIMIT_KEYS, type PlanLimitsRecord } from './store.js';

/** `Plan::DEFAULT_PLANS`, and EE's `Plan::ALL_PLANS` (paid hosted plans, free, default). */
const CE_PLANS = ['default'];
const EE_PLANS = [
  'bronze',
  'silver',
  'premium',
  'gold',
  'ultimate',
  'ultimate_trial',
  'premium_trial',
  'free',
  'default',
];

const plans = (c: Ctx) => (c.get('fx').tier() === 'free' ? CE_PLANS : EE_PLANS);

/** `Entities::PlanLimit`, in the platform's order. */
export const planLimitEntity = (l: PlanLimitsRecord) => ({
  conan_max_file_size: l.conan_max_file_size,
  generic_packages_max_file_size: l.generic_packages_max_file_size,
  maven_max_file_size: l.maven_max_file_size,
  npm_max_file_size: l.npm_max_file_size,
  nuget_max_file_size: l.nuget_max_file_size,
  pypi_max_file_size: l.pypi_max_file_size,
});

/** A PostgreSQL `bigint` column: a larger value fails the update (`ActiveRecord::RangeError`, a 500). */
const BIGINT_MAX = 2 ** 63 - 1;

function findPlan(name: string): void {
  if (name !== 'default') throw notFound('Plan', `no ${name} plan on this instance`);
}

export function planLimitsRoutes(r: ApiRouter): void {
  r.get('/application/plan_limits', { auth: 'admin' }, (c) => {
    const prm = parse(c, { plan_name: p.str().values(plans(c)).default('default') });
    findPlan(prm.plan_name);
    return c.json(planLimitEntity(actualLimits(state(c))));
  });

  r.put('/application/plan_limits', { auth: 'required' }, (c) => {
    requireAdmin(c);
    const shape = {
      plan_name: p.str().required().values(plans(c)),
      conan_max_file_size: p.int(),
      generic_packages_max_file_size: p.int(),
      maven_max_file_size: p.int(),
      npm_max_file_size: p.int(),
      nuget_max_file_size: p.int(),
      pypi_max_file_size: p.int(),
    };
    const prm = parse(c, shape);
    findPlan(prm.plan_name);
    const next = { ...actualLimits(state(c)) };
    for (const k of LIMIT_KEYS) {
      const v = prm[k];
      if (v === undefined) continue;
      if (Math.abs(v) > BIGINT_MAX) throw internalError();
      next[k] = v;
    }
    write(c, (d) => {
      d.planLimits.default = next;
    });
    return c.json(planLimitEntity(next));
  });
}
