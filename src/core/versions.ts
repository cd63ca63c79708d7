/**
 * The GitLab versions fauxlab answers as, and the declarations of what changes between them. An
 * instance runs one minor release (`13.12` by default, the seed's); everything that differs between
 * releases is declared once, here through `versioned(...)` or on its route (`since` / `until` in the
 * route options), with the platform's source that dates it. Handlers never compare versions: they ask
 * `has(c, declaration)`. `docs/versions.md` is generated from the declarations (`versionsDoc`).
 */

/**
 * The supported minor releases, oldest first, each with the patch release `GET /version` reports
 * (a real release of that minor; the paid tiers add `-ee`).
 */
export const RELEASES = {
  '13.12': '13.12.15',
  '14.0': '14.0.0',
  '14.1': '14.1.0',
  '14.2': '14.2.0',
  '14.3': '14.3.0',
  '14.4': '14.4.0',
  '14.5': '14.5.0',
  '14.6': '14.6.0',
  '14.7': '14.7.0',
  '14.8': '14.8.0',
  '14.9': '14.9.0',
  '14.10': '14.10.0',
  '15.0': '15.0.0',
  '15.1': '15.1.0',
  '15.2': '15.2.0',
  '15.3': '15.3.0',
  '15.4': '15.4.6',
  '15.5': '15.5.0',
  '15.6': '15.6.0',
  '15.7': '15.7.0',
  '15.8': '15.8.0',
  '15.9': '15.9.0',
  '15.10': '15.10.0',
  '15.11': '15.11.0',
  '16.0': '16.0.0',
  '16.1': '16.1.0',
  '16.2': '16.2.0',
  '16.3': '16.3.0',
  '16.4': '16.4.0',
  '16.5': '16.5.0',
  '16.6': '16.6.0',
  '16.7': '16.7.0',
  '16.8': '16.8.0',
  '16.9': '16.9.0',
  '16.10': '16.10.0',
  '16.11': '16.11.0',
  '17.0': '17.0.0',
  '17.1': '17.1.0',
  '17.2': '17.2.0',
  '17.3': '17.3.0',
  '17.4': '17.4.0',
  '17.5': '17.5.0',
  '17.6': '17.6.0',
  '17.7': '17.7.0',
  '17.8': '17.8.0',
  '17.9': '17.9.0',
  '17.10': '17.10.0',
  '17.11': '17.11.0',
  '18.0': '18.0.0',
  '18.1': '18.1.0',
  '18.2': '18.2.0',
  '18.3': '18.3.0',
  '18.4': '18.4.0',
  '18.5': '18.5.0',
  '18.6': '18.6.0',
  '18.7': '18.7.0',
  '18.8': '18.8.0',
  '18.9': '18.9.0',
  '18.10': '18.10.0',
  '18.11': '18.11.0',
} as const;

export type Minor = keyof typeof RELEASES;

export const MINORS = Object.keys(RELEASES) as Minor[];
export const DEFAULT_MINOR: Minor = '13.12';

const RANK = new Map<string, number>(MINORS.map((m, i) => [m, i]));

const isMinor = (v: string): v is Minor => RANK.has(v);

/** The supported range, as errors name it. */
export const SUPPORTED_RANGE = `${MINORS[0]} to ${MINORS[MINORS.length - 1]}`;

export class UnsupportedVersion extends Error {}

/**
 * A version as a user gives it: a minor (`15.4`) or a release of one (`15.4.2`, `15.4.2-ee`). The
 * release is what `GET /version` then reports (undefined: the minor's own); anything else is an error
 * naming the supported range.
 */
export function parseVersion(input: string): { minor: Minor; release?: string } {
  const m = /^(0|[1-9]\d*)\.(0|[1-9]\d*)(?:\.(0|[1-9]\d*)(-ee)?)?$/.exec(input.trim());
  const minor = m ? `${Number(m[1])}.${Number(m[2])}` : undefined;
  if (minor === undefined || !isMinor(minor))
    throw new UnsupportedVersion(
      `GitLab version ${JSON.stringify(input)} is not supported: fauxlab answers as GitLab ${SUPPORTED_RANGE} (a minor such as 15.4, or a release such as 15.4.6)`,
    );
  return m![3] === undefined ? { minor } : { minor, release: input.trim() };
}

/**
 * When a thing exists: from `since` (the release that brought it) until `until` (the first release
 * without it, or with its new form); either open.
 */
export interface Span {
  since?: Minor;
  until?: Minor;
}

/** Whether a release has what a span dates. The one comparison of versions. */
export function inSpan(minor: Minor, span: Span): boolean {
  const at = RANK.get(minor)!;
  return (
    (span.since === undefined || at >= RANK.get(span.since)!) &&
    (span.until === undefined || at < RANK.get(span.until)!)
  );
}

/** Throws for a span that names an unsupported version or ends before it starts (a programming error). */
export function checkSpan(name: string, span: Span): void {
  for (const v of [span.since, span.until])
    if (v !== undefined && !isMinor(v)) throw new Error(`${name}: ${v} is not a supported version`);
  if (
    span.since !== undefined &&
    span.until !== undefined &&
    !(RANK.get(span.since)! < RANK.get(span.until)!)
  )
    throw new Error(`${name}: since ${span.since} is not before until ${span.until}`);
}

/** The span in words: `14.3 on`, `until 16.0`, `14.3 until 15.0`. */
export function spanText(span: Span): string {
  if (span.since !== undefined && span.until !== undefined) return `${span.since} until ${span.until}`;
  if (span.since !== undefined) return `${span.since} on`;
  return span.until !== undefined ? `until ${span.until}` : 'every version';
}

export type VersionedKind = 'field' | 'param' | 'setting' | 'behaviour';

/** One versioned thing: a field of an entity, a param, a setting, or a behaviour that changes. */
export interface Versioned extends Span {
  readonly kind: VersionedKind;
  /** `merge_request.draft`, `POST /projects name`, `default branch main`. */
  readonly name: string;
  /** What changes, for docs/versions.md. */
  readonly what: string;
  /** The platform's source that dates it: a doc/api page, a lib/api file or its merge request. */
  readonly source: string;
}

const DECLARED: Versioned[] = [];

/**
 * Declares a versioned thing, once, at module level (the declarations are the same for every
 * instance). A span outside the supported range, or a name declared twice, is a programming error.
 */
export function versioned(d: Versioned): Versioned {
  checkSpan(d.name, d);
  if (d.since === undefined && d.until === undefined) throw new Error(`${d.name}: no version dates it`);
  if (!d.source.trim()) throw new Error(`${d.name}: no source dates it`);
  if (DECLARED.some((x) => x.kind === d.kind && x.name === d.name))
    throw new Error(`${d.kind} ${d.name} is declared twice`);
  const frozen = Object.freeze({ ...d });
  DECLARED.push(frozen);
  return frozen;
}

/** Every declaration made so far (each area's module declares its own when loaded). */
export const declarations = (): readonly Versioned[] => DECLARED;

/** The release an instance of `minor` reports, before the tier's `-ee`. */
export const releaseOf = (minor: Minor, given?: string): string => given ?? RELEASES[minor];

/**
 * Whether the request's instance has a declared thing (a field, param, setting or behaviour) at its
 * version: what a handler or entity asks instead of comparing versions.
 */
export const has = (c: { get(key: 'fx'): { gitlab(): Minor } }, d: Span): boolean =>
  inSpan(c.get('fx').gitlab(), d);
