/**
 * Uploaded avatars of users, groups, projects and topics (`AvatarUploader`): the bytes of each, keyed by
 * the path the record's `avatar_url` names (`/uploads/-/system/<model>/avatar/<id>/<file>`), so that the
 * URL the entities show serves the image.
 */
import { emptyIndex, type Index } from '../../core/table.js';

export interface AvatarFile {
  content_type: string;
  size: number;
  /** The bytes, base64-encoded (the state stays JSON-serialisable). */
  data: string;
}

export interface AvatarsState {
  files: Index<AvatarFile>;
}

export const emptyAvatars = (): AvatarsState => ({ files: emptyIndex<AvatarFile>() });

declare module '../../core/state.js' {
  interface AreaStates {
    avatars: AvatarsState;
  }
}
