import { defineArea } from '../../core/area.js';
import { avatarsRoutes } from './routes.js';
import { emptyAvatars } from './store.js';

export const avatarsArea = defineArea({
  name: 'avatars',
  state: { key: 'avatars', empty: emptyAvatars },
  routes: avatarsRoutes,
});
