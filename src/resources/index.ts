import type { ApiRouter } from '../core/router.js';
import { usersRoutes } from './users/routes.js';

/** Every API area, registered on one router (mounted at `/api/v4`). */
export function registerApi(r: ApiRouter): void {
  usersRoutes(r);
}
