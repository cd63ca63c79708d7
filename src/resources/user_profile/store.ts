/** A user's secondary e-mails, SSH keys, GPG keys and status. */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

export interface EmailRecord {
  id: number;
  user_id: number;
  /** Stripped and down-cased, as the model stores it. */
  email: string;
  confirmed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface SshKeyRecord {
  id: number;
  user_id: number;
  title: string;
  /** Sanitised: `<type> <base64>[ <comment>]`. */
  key: string;
  /** MD5 of the key blob, `aa:bb:...`. */
  fingerprint: string;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface GpgKeyRecord {
  id: number;
  user_id: number;
  key: string;
  created_at: string;
  updated_at: string;
}

/** Keyed by user id. */
export interface UserStatusRecord {
  id: number;
  emoji: string;
  message: string | null;
  availability: 'not_set' | 'busy';
  /** The status is gone from this instant on (the platform's clearing worker). */
  clear_status_at: string | null;
}

export interface ProfileState {
  emails: Table<EmailRecord>;
  keys: Table<SshKeyRecord>;
  gpgKeys: Table<GpgKeyRecord>;
  statuses: Table<UserStatusRecord>;
  idx: {
    /** lower-cased secondary e-mail -> email id */
    emails: Index;
    /** SSH key fingerprint -> key id */
    fingerprints: Index;
    /** GPG key text -> key id */
    gpgKeys: Index;
    /** `e<user>` / `k<user>` / `g<user>` -> email, SSH key and GPG key ids */
    by: MultiIndex;
  };
}

export const emptyProfile = (): ProfileState => ({
  emails: emptyTable(),
  keys: emptyTable(),
  gpgKeys: emptyTable(),
  statuses: emptyTable(),
  idx: { emails: emptyIndex(), fingerprints: emptyIndex(), gpgKeys: emptyIndex(), by: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    profile: ProfileState;
  }
}
