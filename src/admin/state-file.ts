/**
 * State files (`fauxlab serve --state-file FILE`): the whole state and the clock as JSON, saved on exit
 * and loaded on start, for a world that persists between runs. The state is JSON-serialisable as it is
 * (tables are plain objects), so a file restores exactly; tokens and passwords are digests in it.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Snapshot } from '../app.js';
import { dict } from '../core/own.js';
import { completeState, type PlatformState } from '../core/state.js';
import { AREAS } from '../resources/index.js';

const KIND = 'fauxlab-state';
const VERSION = 1;

/** The text of a state file for a snapshot. */
export function stateFileText(snapshot: Snapshot): string {
  return `${JSON.stringify({
    kind: KIND,
    version: VERSION,
    now: new Date(snapshot.clock).toISOString(),
    clock: snapshot.clock,
    state: snapshot.state,
  })}\n`;
}

/** Parses a state file's text; throws an Error naming the problem. */
export function parseStateFile(text: string): Snapshot {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`not valid JSON: ${(e as Error).message}`);
  }
  const d = data as { kind?: unknown; version?: unknown; clock?: unknown; state?: Record<string, unknown> };
  if (typeof d !== 'object' || d === null || d.kind !== KIND) throw new Error('not a fauxlab state file');
  if (d.version !== VERSION) throw new Error(`state file version ${String(d.version)} is not supported`);
  if (typeof d.clock !== 'number' || !Number.isFinite(d.clock)) throw new Error('"clock" must be a number');
  const st = d.state;
  if (typeof st !== 'object' || st === null || typeof st.seq !== 'object' || typeof st.idx !== 'object')
    throw new Error('"state" is not a fauxlab state');
  // Maps keyed by client input come back without a prototype, as a live state holds them.
  for (const k of ['features', 'settings'])
    if (typeof st[k] === 'object' && st[k] !== null) st[k] = Object.assign(dict(), st[k]);
  // A file saved by an earlier fauxlab lacks the areas added since: they start empty.
  return { state: completeState(st as unknown as PlatformState, AREAS), clock: d.clock };
}

/** Reads a state file; undefined when it does not exist yet. Throws an Error naming the file. */
export function readStateFile(file: string): Snapshot | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return parseStateFile(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
}

/** Writes a state file atomically (a crash mid-write leaves the previous file). */
export function writeStateFile(file: string, snapshot: Snapshot): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, stateFileText(snapshot));
  renameSync(tmp, file);
}

/** How soon after a write the state file is saved again (and at most how much a killed process loses). */
export const AUTOSAVE_DELAY_MS = 1000;

/**
 * Saves the state file shortly after each write: checks four times per `delayMs` whether the state
 * changed, and saves it once `delayMs` has passed since the first unsaved change, so that a process
 * killed without a chance to save loses at most about `delayMs` of acknowledged writes. A large world
 * takes a while to write: saves are spaced by ten times the last one's duration at least, so that
 * saving never takes more than a tenth of the time. Returns the function that stops it.
 */
export function autosave(
  source: { snapshot(): Snapshot },
  file: string,
  onError: (e: Error) => void,
  delayMs = AUTOSAVE_DELAY_MS,
): () => void {
  let saved = source.snapshot().state;
  let changedAt: number | undefined;
  let notBefore = 0;
  const timer = setInterval(
    () => {
      const snap = source.snapshot();
      if (snap.state === saved) return;
      const now = Date.now();
      changedAt ??= now;
      if (now - changedAt < delayMs || now < notBefore) return;
      try {
        writeStateFile(file, snap);
        saved = snap.state;
        changedAt = undefined;
      } catch (e) {
        onError(e as Error);
      }
      notBefore = Date.now() + (Date.now() - now) * 10;
    },
    Math.max(10, delayMs / 4),
  );
  timer.unref();
  return () => clearInterval(timer);
}
