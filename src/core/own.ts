/**
 * Lookups by a key a client chose (a flag name, a file extension, an attribute key): own keys only, so
 * that `constructor`, `toString` or `__proto__` find nothing inherited, and maps that start without a
 * prototype, so that storing such a key stores an ordinary entry.
 */

/** `obj[key]` when `obj` has it as its own key; undefined otherwise. */
export const own = <T>(obj: Readonly<Record<string, T>> | undefined, key: string): T | undefined =>
  obj !== undefined && Object.hasOwn(obj, key) ? obj[key] : undefined;

/** An empty object without a prototype, for entries keyed by client input. */
export const dict = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;
