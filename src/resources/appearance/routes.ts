/**
 * `GET` and `PUT /application/appearance` (`lib/api/appearance.rb`, admins only: a `before` filter, so
 * the 403 comes before any param is read). The answer is `Entities::Appearance`; images are the upload
 * paths as the uploaders give them (relative), served as other uploads are.
 */
import { requireAdmin } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { validationError } from '../../core/errors.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { storeAvatar } from '../avatars/model.js';
import { appearanceErrors, IMAGE_MOUNTS, imagePath, type ImageMount } from './model.js';
import { defaultAppearance, type AppearanceRecord } from './store.js';

/** `Entities::Appearance`, in the platform's order. */
export const appearanceEntity = (a: AppearanceRecord) => ({
  title: a.title,
  description: a.description,
  logo: a.logo,
  header_logo: a.header_logo,
  favicon: a.favicon,
  new_project_guidelines: a.new_project_guidelines,
  profile_image_guidelines: a.profile_image_guidelines,
  header_message: a.header_message,
  footer_message: a.footer_message,
  message_background_color: a.message_background_color,
  message_font_color: a.message_font_color,
  email_header_and_footer_enabled: a.email_header_and_footer_enabled,
});

const putShape = {
  title: p.str(),
  description: p.str(),
  logo: p.file(),
  header_logo: p.file(),
  favicon: p.file(),
  new_project_guidelines: p.str(),
  profile_image_guidelines: p.str(),
  header_message: p.str(),
  footer_message: p.str(),
  message_background_color: p.str(),
  message_font_color: p.str(),
  email_header_and_footer_enabled: p.bool(),
};

const TEXT = [
  'title',
  'description',
  'new_project_guidelines',
  'profile_image_guidelines',
  'header_message',
  'footer_message',
  'message_background_color',
  'message_font_color',
] as const;

/** `Appearance.current || Appearance.new`: the new one takes the next id only when saved. */
const current = (c: Ctx) => state(c).appearance.current ?? defaultAppearance(1);

function update(c: Ctx) {
  requireAdmin(c);
  const prm = parse(c, putShape);
  const base = current(c);
  const next: AppearanceRecord = { ...base };
  for (const k of TEXT) if (prm[k] !== undefined) next[k] = prm[k];
  if (prm.email_header_and_footer_enabled !== undefined)
    next.email_header_and_footer_enabled = prm.email_header_and_footer_enabled;
  const files: [ImageMount, File][] = [];
  for (const m of IMAGE_MOUNTS) {
    const f = prm[m];
    if (f) files.push([m, f]);
  }
  const errors = appearanceErrors(next, files);
  if (Object.keys(errors).length) throw validationError(errors);
  write(c, (d) => {
    const id = d.appearance.current?.id ?? 1;
    const rec = { ...next, id };
    for (const [m, f] of files) {
      const path = imagePath(m, id, f);
      storeAvatar(d, path, f, base[m]);
      rec[m] = path;
    }
    d.appearance.current = rec;
  });
  return c.json(appearanceEntity(state(c).appearance.current!));
}

export function appearanceRoutes(r: ApiRouter): void {
  r.get('/application/appearance', { auth: 'admin' }, (c) => c.json(appearanceEntity(current(c))));
  r.put('/application/appearance', { auth: 'required' }, update);
}
