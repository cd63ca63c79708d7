/** What each request carries for the shared route table: its instance and its probe. */
import type { Context } from 'hono';
import type { Env, RequestProbe } from '../core/context.js';
import type { JournalEntry } from '../testing/journal.js';
import type { Binding } from './instance.js';

/** Per-request flags the table raises for the instance's fetch. */
export interface Probe extends RequestProbe {
  drop?: boolean;
  /** The journal entry, waiting for the response. */
  entry?: Omit<JournalEntry, 'id'>;
  /** Or what makes it, when the request's body was a string: the entry is made when the journal is read. */
  pending?: PendingRequest;
  /** Ids of the faults that applied. */
  faults?: number[];
}

/** What the journal middleware keeps of a request whose entry is made later (`PendingEntry`). */
export interface PendingRequest {
  atMs: number;
  method: string;
  url: string;
  headers: Headers;
  durationMs: number;
  route: string | null;
  user: string | null;
  sudoFrom: string | undefined;
  explain: string | undefined;
  body: { text: string; type: string; limit: number } | undefined;
}

export interface RequestEnv {
  fauxlab: Binding;
  probe: Probe;
  incoming?: { socket?: { destroy(): void } };
}

export type C = Context<Env>;

export const binding = (c: C) => (c.env as RequestEnv).fauxlab;

export const isControlPath = (b: Binding, path: string) =>
  b.controlPlane && (path === '/__fauxlab' || path.startsWith('/__fauxlab/'));
