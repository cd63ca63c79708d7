/** Broadcast messages: banners and notifications an administrator shows to every user for a while. */
import { emptyTable, type Table } from '../../core/table.js';

export interface BroadcastMessageRecord {
  id: number;
  message: string;
  starts_at: string;
  ends_at: string;
  color: string;
  font: string;
  target_path: string | null;
  broadcast_type: 'banner' | 'notification';
  dismissable: boolean | null;
  created_at: string;
  updated_at: string;
}

export interface BroadcastMessagesState {
  records: Table<BroadcastMessageRecord>;
}

export const emptyBroadcastMessages = (): BroadcastMessagesState => ({ records: emptyTable() });

declare module '../../core/state.js' {
  interface AreaStates {
    broadcastMessages: BroadcastMessagesState;
  }
}
