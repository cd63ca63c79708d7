/**
 * Progress of a generated world's build, for whoever shows it (the CLI, on a terminal): a large world
 * takes tens of seconds to build, synchronously, so a listener is the only way to see it move.
 */

/** `what` is the kind of record being made (`users`, `projects`, ...), `done` of `total`. */
export type ProgressListener = (what: string, done: number, total: number) => void;

let listener: ProgressListener | undefined;

/** Sets (or, with undefined, removes) the one listener of this process. */
export function onGenerateProgress(next: ProgressListener | undefined): void {
  listener = next;
}

/** Called by the generators every so many records; cheap when nobody listens. */
export function reportProgress(what: string, done: number, total: number): void {
  // Every 1,024th record: often enough to move on screen, rare enough to cost nothing.
  if (listener && ((done & 1023) === 0 || done === total)) listener(what, done, total);
}
