import type { ApiRouter } from '../../core/router.js';
import { requireUser } from '../../core/auth.js';

export function usersRoutes(r: ApiRouter): void {
  r.get('/user', { auth: 'required', readScopes: ['read_user'] }, (c) => {
    const u = requireUser(c);
    return c.json({ id: u.id, username: u.username });
  });
}
