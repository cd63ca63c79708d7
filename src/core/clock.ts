/**
 * The instance clock. Frozen by default, so that a scenario and a seed give byte-identical responses;
 * the CLI runs it in real time so that a polling client sees a live server. Either way it only moves
 * forward through `advance`/`set` (the control plane's `POST /__fauxlab/clock`) or wall time.
 */
export class Clock {
  #base: number;
  #wallAtBase: number;
  readonly #start: number;
  #reads = 0;

  constructor(
    start: Date | string | number,
    readonly realtime = false,
  ) {
    this.#start = new Date(start).getTime();
    if (Number.isNaN(this.#start)) throw new Error(`invalid clock start: ${String(start)}`);
    this.#base = this.#start;
    this.#wallAtBase = Date.now();
  }

  /** Milliseconds since the epoch on the instance clock. */
  ms(): number {
    this.#reads++;
    return this.peekMs();
  }

  /**
   * The time for bookkeeping that does not shape an answer (a user's activity date): not counted in
   * `reads`, so that it does not make an answer depend on the instant.
   */
  peekMs(): number {
    return this.realtime ? this.#base + (Date.now() - this.#wallAtBase) : this.#base;
  }

  /**
   * How many times the time has been read (every reading goes through `ms`): a change across a request
   * says its answer depends on the instant.
   */
  get reads(): number {
    return this.#reads;
  }

  now(): Date {
    return new Date(this.ms());
  }

  iso(): string {
    return this.now().toISOString();
  }

  /** `YYYY-MM-DD` of the instance clock (UTC). */
  today(): string {
    return this.iso().slice(0, 10);
  }

  advance(ms: number): void {
    this.set(this.ms() + ms);
  }

  set(at: Date | string | number): void {
    const t = new Date(at).getTime();
    if (Number.isNaN(t)) throw new Error(`invalid time: ${String(at)}`);
    this.#base = t;
    this.#wallAtBase = Date.now();
  }

  reset(): void {
    this.set(this.#start);
  }
}

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** Parses durations such as `90s`, `5m`, `1h30m`, `2d` (a bare number is seconds). */
export function parseDuration(input: string | number): number {
  if (typeof input === 'number') return input * 1000;
  const s = input.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  const re = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    matched = re.lastIndex;
  }
  if (matched === 0 || matched !== s.length) throw new Error(`invalid duration: ${input}`);
  return total;
}
