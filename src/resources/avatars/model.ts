/** Avatar uploads: the uploader's checks, and storing the bytes under the path an `avatar_url` names. */
import type { Draft } from 'immer';
import { fileBytes } from '../../core/files.js';
import type { PlatformState } from '../../core/state.js';
import { idelete, iset } from '../../core/table.js';

/** `AvatarUploader::SAFE_IMAGE_EXT` of 13.x, with the content types they are served as. */
export const AVATAR_TYPES: ReadonlyMap<string, string> = new Map([
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['gif', 'image/gif'],
  ['bmp', 'image/bmp'],
  ['tiff', 'image/tiff'],
  ['ico', 'image/vnd.microsoft.icon'],
]);

/** `validates :avatar, file_size: { maximum: 200.kilobytes }`. */
export const MAX_AVATAR_BYTES = 200 * 1024;

const extOf = (name: string) => {
  const i = name.lastIndexOf('.');
  return i < 0 ? '' : name.slice(i + 1).toLowerCase();
};

/** `Avatarable`'s validations of a new avatar: the type by its extension, then the size. */
export function avatarErrors(file: File | undefined): string[] {
  if (!file) return [];
  const out: string[] = [];
  if (!AVATAR_TYPES.has(extOf(file.name)))
    out.push(
      `file format is not supported. Please try one of the following supported formats: ${[...AVATAR_TYPES.keys()].join(', ')}`,
    );
  if (file.size > MAX_AVATAR_BYTES) out.push('is too big (should be at most 200 KB)');
  return out;
}

/** Adds the avatar's errors to a model's errors (after the model's own, as Rails runs them). */
export function withAvatarErrors(
  errors: Record<string, string[]>,
  file: File | undefined,
): Record<string, string[]> {
  const e = avatarErrors(file);
  if (e.length) errors.avatar = [...(errors.avatar ?? []), ...e];
  return errors;
}

/** Stores an avatar's bytes at `path` (dropping the previous avatar's, if it had another path). */
export function storeAvatar(
  st: Draft<PlatformState>,
  path: string,
  file: File,
  previous?: string | null,
): void {
  if (previous && previous !== path && previous.startsWith('/uploads/')) idelete(st.avatars.files, previous);
  const bytes = fileBytes(file) ?? new Uint8Array();
  iset(st.avatars.files, path, {
    content_type: AVATAR_TYPES.get(extOf(path)) ?? 'application/octet-stream',
    size: bytes.length,
    data: Buffer.from(bytes).toString('base64'),
  });
}
