/**
 * Scenario objects validated once per process. A test suite that creates an instance per test from one
 * scenario otherwise validates it every time (the schema, the cross-references): half of an instance's
 * creation. Each instance still builds its own world from the result (its records are its own, and so are
 * the renderings its budget keeps of them) and gets its own copy of the parsed scenario.
 *
 * A scenario is found again by its JSON, in which every value that JSON would lose or change (undefined,
 * a Date, a non-finite number, -0) is spelt out, so that two inputs share a result only if validation
 * sees the same thing. Inputs that read files (a path, `extends`) or hold anything else (functions, class
 * instances) are validated each time. Bounded: keys of up to 256 KB, 16 of them, the least recently used
 * dropped first.
 */
import { loadScenario, type ScenarioInput } from './index.js';
import type { Scenario } from './schema.js';

const MAX_ENTRIES = 16;
const MAX_KEY = 256 * 1024;
/** Thrown out of the key's JSON walk at a value that is not plain data. */
const NOT_PLAIN = new Error('not plain');

/**
 * `input`'s key, or undefined when it is not kept: not a plain object of JSON values, with `extends`, or
 * over the size bound. Spelt-out values are strings that start with a NUL, and a string of the input that
 * starts with one gets a second.
 */
export function scenarioKey(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  if (Object.hasOwn(input, 'extends')) return undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(input, function (this: Record<string, unknown>, k: string) {
      // What the holder has, before any toJSON: what validation reads (the root's holder is `{"": input}`).
      const own = this[k];
      if (own === undefined) return '\u0000undefined';
      if (typeof own === 'number') {
        if (Object.is(own, -0)) return '\u0000-0';
        return Number.isFinite(own) ? own : `\u0000${own}`;
      }
      // A string that starts as a spelt-out value does is told apart by one more NUL.
      if (typeof own === 'string') return own.startsWith('\u0000') ? `\u0000${own}` : own;
      if (typeof own === 'boolean' || own === null) return own;
      if (own instanceof Date) return `\u0000date:${own.getTime()}`;
      if (typeof own !== 'object') throw NOT_PLAIN;
      if (!Array.isArray(own)) {
        const proto = Object.getPrototypeOf(own) as unknown;
        if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
      }
      return own;
    });
  } catch {
    // Not plain (the first such value ends the walk), a cycle, or a getter that throws: validation will
    // say what it says.
    return undefined;
  }
  return json !== undefined && json.length <= MAX_KEY ? json : undefined;
}

/** A process's validated scenarios, by key. */
export class LoadedScenarios {
  readonly #loaded = new Map<string, Scenario>();

  /** A copy of the scenario validated under `key`, if any (now the most recently used). */
  get(key: string): Scenario | undefined {
    const s = this.#loaded.get(key);
    if (s === undefined) return undefined;
    this.#loaded.delete(key);
    this.#loaded.set(key, s);
    return structuredClone(s);
  }

  /** Keeps a copy of `scenario`, validated from the input of `key`. */
  set(key: string, scenario: Scenario): void {
    this.#loaded.delete(key);
    this.#loaded.set(key, structuredClone(scenario));
    if (this.#loaded.size > MAX_ENTRIES) this.#loaded.delete(this.#loaded.keys().next().value!);
  }

  /** Whether a scenario is kept under `key`. */
  has(key: string): boolean {
    return this.#loaded.has(key);
  }

  /** Scenarios kept now. */
  get size(): number {
    return this.#loaded.size;
  }
}

/** The scenario objects validated in this process: bounded, copied out, shared by its instances. */
export const processScenarios = new LoadedScenarios();

/** `loadScenario`, or a copy of its result for an input equal to one validated before in this process. */
export function loadOnce(input: ScenarioInput): Scenario {
  const key = scenarioKey(input);
  const kept = key === undefined ? undefined : processScenarios.get(key);
  if (kept) return kept;
  const loaded = loadScenario(input);
  if (key !== undefined) processScenarios.set(key, loaded);
  return loaded;
}
