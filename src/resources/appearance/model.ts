/** The `Appearance` model's validations and its uploaders' paths. */
import type { AppearanceRecord } from './store.js';

export const IMAGE_MOUNTS = ['logo', 'header_logo', 'favicon'] as const;
export type ImageMount = (typeof IMAGE_MOUNTS)[number];

/** `ColorValidator::PATTERN`: `#` and three or six hex digits. */
const COLOR = /^#(?:[0-9A-Fa-f]{3}){1,2}\n?$/;

/** `file_size: { maximum: 1.megabyte }` on the logos. */
const MAX_IMAGE_BYTES = 1024 * 1024;

/** `FaviconUploader::EXTENSION_WHITELIST`. */
const FAVICON_TYPES = ['png', 'ico'];

const extOf = (name: string) => {
  const i = name.lastIndexOf('.');
  return i < 0 ? '' : name.slice(i + 1).toLowerCase();
};

/** CarrierWave's sanitized file name (`[^a-zA-Z0-9\.\-\+_]` become `_`). */
const cleanName = (name: string) => (name || 'image.png').replace(/[^A-Za-z0-9.\-+_]/g, '_').slice(0, 255);

/** `/uploads/-/system/appearance/<mount>/<id>/<name>` (`GitlabUploader#store_dir`). */
export const imagePath = (mount: ImageMount, id: number, file: File) =>
  `/uploads/-/system/appearance/${mount}/${id}/${cleanName(file.name)}`;

/**
 * The model's errors, in its declaration order: the logos' size, the colours (blank allowed,
 * `color: true`), then the favicon's extension (CarrierWave's integrity check).
 */
export function appearanceErrors(a: AppearanceRecord, files: [ImageMount, File][]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  for (const [m, f] of files)
    if (m !== 'favicon' && f.size > MAX_IMAGE_BYTES) add(m, 'is too big (should be at most 1 MB)');
  for (const k of ['message_background_color', 'message_font_color'] as const)
    if (a[k].trim() !== '' && !COLOR.test(a[k])) add(k, 'must be a valid color code');
  for (const [m, f] of files) {
    const ext = extOf(f.name);
    if (m === 'favicon' && !FAVICON_TYPES.includes(ext))
      add(m, `You are not allowed to upload "${ext}" files, allowed types: ${FAVICON_TYPES.join(', ')}`);
  }
  return errors;
}
