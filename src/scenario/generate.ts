/**
 * The scenario's `generate` block: bulk records made with faker, reproducible from the seed.
 *
 * faker is loaded only when a scenario asks for generated records: its import costs more than the rest
 * of start-up. Records are created by plain mutation on the state being built, like the explicit ones,
 * and frozen once with it.
 */
import type { Faker } from '@faker-js/faker';
import type { Draft } from 'immer';
import { VISIBILITY_LEVEL } from '../core/access.js';
import type { GroupRecord, PlatformState, Visibility } from '../core/state.js';
import { tget, tvalues } from '../core/table.js';
import { AREAS } from '../resources/index.js';
import { createGroup, createProject, setMember } from '../resources/projects/model.js';
import { createUser } from '../resources/users/model.js';
import { reportProgress } from './progress.js';

type S = Draft<PlatformState>;

/** What to generate; the scenario's `generate` block. */
export interface GenerateSpec {
  users: number;
  groups: number;
  projects: number;
  /** The areas' counts (`issues_per_project`, ...). */
  [count: string]: number | undefined;
}

/** The areas' generators, in the area list's order, after the users, groups and projects. */
function generateAreas(st: S, spec: GenerateSpec, seed: number, now: Date): void {
  for (const a of AREAS) a.scenario?.generate?.(st, spec, seed, now);
}

type FakerModule = { faker: Faker };
let fakerModule: FakerModule | undefined;

/**
 * Loads faker ahead of a build. Building is synchronous, so without this faker is loaded with a
 * synchronous `require` on first use; call this first where that is unavailable (a bundler, a browser)
 * or to keep the load off a latency-sensitive path.
 */
export async function preloadGenerator(): Promise<void> {
  fakerModule ??= (await import('@faker-js/faker/locale/en')) as FakerModule;
}

function loadFaker(): FakerModule {
  if (fakerModule) return fakerModule;
  // Node >= 20.19 can require() an ES module; reached through process so that bundles need no node:module.
  const nodeModule = globalThis.process?.getBuiltinModule?.('node:module');
  if (!nodeModule)
    throw new Error('fauxlab: call preloadGenerator() before building a scenario with `generate`');
  fakerModule = nodeModule.createRequire(import.meta.url)('@faker-js/faker/locale/en') as FakerModule;
  return fakerModule;
}

/**
 * A Faker of its own per build: seeding the shared instance would let two builds disturb each other.
 * Built from the `en` locale module alone, whose import is a fraction of the full package's.
 */
function seededFaker(seed: number): Faker {
  const { faker: shared } = loadFaker();
  const FakerClass = shared.constructor as typeof Faker;
  const f = new FakerClass({ locale: shared.rawDefinitions });
  f.seed(seed);
  return f;
}

const DAY = 86_400_000;
/** Generated records were created over the three years before the clock start, in id order. */
const SPAN = 3 * 365 * DAY;
const VISIBILITIES: readonly Visibility[] = ['private', 'internal', 'public'];
const TEAMS = 'backend frontend platform infra mobile security data qa docs design sre tools'.split(' ');
/** Project path suffixes: `billing-api`, `firewall-worker`. */
const KINDS = 'api service web app cli sdk docs infra worker bot lib ui charts config'.split(' ');
const ACRONYMS = new Set(['api', 'cli', 'sdk', 'ui', 'qa', 'sre']);
/** Role weights for ordinary members: mostly developers, as on real instances. */
const ROLES = [10, 20, 30, 30, 30, 40];

/** Lower-case, `[a-z0-9-]` words joined by `-`: a plausible path from free text. */
function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const title = (path: string) =>
  path
    .split('-')
    .map((w) => (ACRONYMS.has(w) ? w.toUpperCase() : w.charAt(0).toUpperCase() + w.slice(1)))
    .join(' ');

/**
 * Adds `spec`'s records to a state being built (not a draft: a plain object, frozen afterwards).
 * Deterministic: the same state, spec and seed give the same records, byte for byte.
 */
export function generate(st: S, spec: GenerateSpec, seed: number, now: Date): void {
  if (spec.users + spec.groups + spec.projects === 0) return generateAreas(st, spec, seed, now);
  const f = seededFaker(seed);
  // Picks from faker's word lists go through a plain PRNG: faker's own helpers cost several times more per
  // call, which shows at 100k records. faker itself makes the rarer, pattern-built fields.
  const rand = prng(seed);
  const below = (n: number) => Math.floor(rand() * n);
  const pick = <T>(list: readonly T[]): T => list[below(list.length)]!;
  const end = now.getTime();
  const isoAt = isoClock();
  // Creation times rise with the index, with jitter inside each slot.
  const timeAt = (i: number, n: number) => isoAt(end - SPAN + Math.floor(((i + rand()) / n) * SPAN));
  const d = f.rawDefinitions;
  const firstNames = [
    ...words(d.person?.first_name?.generic),
    ...words(d.person?.first_name?.female),
    ...words(d.person?.first_name?.male),
  ];
  const lastNames = words(d.person?.last_name?.generic);
  const legalTypes = words(d.company?.legal_entity_type);
  const things = [
    ...words(d.hacker?.noun),
    ...words(d.hacker?.abbreviation),
    ...words(d.company?.buzz_noun),
    ...words(d.app?.name),
  ];
  /** `Kuhn Group`, `Kuhn - Schmitt`, `Kuhn, Schmitt and Bartell`: faker's company name patterns. */
  const companyName = () => {
    const r = rand();
    if (r < 0.6) return `${pick(lastNames)} ${pick(legalTypes)}`;
    if (r < 0.8) return `${pick(lastNames)} - ${pick(lastNames)}`;
    return `${pick(lastNames)}, ${pick(lastNames)} and ${pick(lastNames)}`;
  };
  // Paths repeat across namespaces: each title is made once per build.
  const titles = new Map<string, string>();
  const titleOf = (path: string) => {
    let t = titles.get(path);
    if (t === undefined) titles.set(path, (t = title(path)));
    return t;
  };
  /** `treeflex`, `bandwidth-api`, `sql-service`. */
  const projectPath = () => (rand() < 0.2 ? slug(pick(things)) : `${slug(pick(things))}-${pick(KINDS)}`);

  // Taken names, kept here rather than probed in the state's indexes: a Set is several times faster.
  const users = tvalues(st.users);
  const userIds = users.map((u) => u.id);
  const namespaces = new Set<string>([
    ...users.map((u) => u.username.toLowerCase()),
    ...tvalues(st.groups).map((g) => g.full_path.toLowerCase()),
  ]);
  const emails = new Set(users.map((u) => u.email.toLowerCase()));
  const projectPaths = new Set(tvalues(st.projects).map((p) => p.path_with_namespace.toLowerCase()));
  const suffixes = new Map<string, number>();
  /** `base`, else `base2`, `base3`, ...: the first whose lower-cased `prefix + name` is not in `taken`. */
  const unique = (base: string, taken: Set<string>, prefix = '') => {
    const key = prefix + base.toLowerCase();
    if (!taken.has(key)) {
      taken.add(key);
      return base;
    }
    let n = suffixes.get(key) ?? 2;
    while (taken.has(key + n)) n++;
    suffixes.set(key, n + 1);
    taken.add(key + n);
    return base + n;
  };

  // Active users were last seen in the 90 days before the clock start; 90 strings serve them all.
  const recent = Array.from({ length: 90 }, (_, k) => new Date(end - k * DAY).toISOString());
  for (let i = 0; i < spec.users; i++) {
    const firstName = pick(firstNames);
    const lastName = pick(lastNames);
    const username = unique(usernameFor(firstName, lastName, rand) || `user${i + 1}`, namespaces);
    const domain = pick(DOMAINS);
    let email = `${username}@${domain}`;
    // Only an explicit user's address can collide: generated usernames are unique.
    for (let n = 2; emails.has(email); n++) email = `${username}${n}@${domain}`;
    emails.add(email);
    const createdAt = timeAt(i, spec.users);
    const r = rand();
    const active = r >= 0.03;
    const lastActivity = active ? recent[below(recent.length)]! : null;
    const id = createUser(
      st,
      {
        username,
        name: `${firstName} ${lastName}`,
        email,
        state: active ? 'active' : r < 0.02 ? 'blocked' : 'deactivated',
        external: rand() < 0.03,
        job_title: rand() < 0.1 ? f.person.jobTitle() : '',
        location: rand() < 0.1 ? f.location.city() : null,
        last_activity_on: lastActivity ? lastActivity.slice(0, 10) : null,
        last_sign_in_at: lastActivity,
        current_sign_in_at: lastActivity,
        sign_in_count: lastActivity ? 1 + below(500) : 0,
      },
      createdAt,
    );
    userIds.push(id);
    reportProgress('users', i + 1, spec.users);
  }

  /** Up to `count` distinct random users (never `skip`) at random roles. */
  const addMembers = (
    source: 'group' | 'project',
    sourceId: number,
    count: number,
    at: string,
    skip?: number,
  ) => {
    const seen: number[] = skip === undefined ? [] : [skip];
    for (let k = 0; k < count; k++) {
      const user = userIds[below(userIds.length)]!;
      if (seen.includes(user)) continue;
      seen.push(user);
      setMember(st, source, sourceId, user, pick(ROLES), at);
    }
  };

  const groups: GroupRecord[] = tvalues(st.groups);
  // The creator of a group's projects: its first owner.
  const owners = new Map<number, number>();
  for (const m of tvalues(st.members))
    if (m.source === 'group' && m.access_level === 50 && !owners.has(m.source_id))
      owners.set(m.source_id, m.user_id);
  for (let i = 0; i < spec.groups; i++) {
    const createdAt = timeAt(i, spec.groups);
    // About a third are subgroups of an earlier group, at most three levels deep.
    const parent = groups.length > 0 && rand() < 0.35 ? pick(groups) : undefined;
    const nested = parent && parent.full_path.split('/').length < 3 ? parent : undefined;
    const name = nested ? title(pick(TEAMS)) : companyName();
    const base = slug(name) || `group${i + 1}`;
    const path = unique(base, namespaces, nested ? `${nested.full_path.toLowerCase()}/` : '');
    const id = createGroup(
      st,
      {
        path,
        name: path === base ? name : `${name} ${path.slice(base.length)}`,
        parent_id: nested?.id ?? null,
        visibility: capVisibility(pick(VISIBILITIES), nested?.visibility),
        description: rand() < 0.5 ? f.company.catchPhrase() : '',
      },
      createdAt,
    );
    groups.push(tget(st.groups, id)!);
    if (userIds.length > 0) {
      const owner = userIds[below(userIds.length)]!;
      owners.set(id, owner);
      setMember(st, 'group', id, owner, 50, createdAt);
      addMembers('group', id, below(5), createdAt, owner);
    }
    reportProgress('groups', i + 1, spec.groups);
  }

  for (let i = 0; i < spec.projects; i++) {
    const createdAt = timeAt(i, spec.projects);
    const group = groups.length > 0 && (userIds.length === 0 || rand() < 0.65) ? pick(groups) : undefined;
    const ownerId = group ? undefined : userIds[below(userIds.length)]!;
    const nsPath = group ? group.full_path : tget(st.users, ownerId!)!.username;
    const path = unique(projectPath(), projectPaths, `${nsPath.toLowerCase()}/`);
    const id = createProject(
      st,
      {
        path,
        name: titleOf(path),
        namespace: group ? { kind: 'group', id: group.id } : { kind: 'user', userId: ownerId! },
        creator_id: group ? (owners.get(group.id) ?? userIds[0] ?? 0) : ownerId!,
        visibility: capVisibility(pick(VISIBILITIES), group?.visibility),
        description: rand() < 0.6 ? f.company.catchPhrase() : '',
        archived: rand() < 0.05,
        default_branch: rand() < 0.8 ? 'master' : 'main',
      },
      createdAt,
    );
    if (userIds.length > 0) addMembers('project', id, below(3), createdAt, ownerId);
    reportProgress('projects', i + 1, spec.projects);
  }
  generateAreas(st, spec, seed, now);
}

/**
 * `new Date(ms).toISOString()`, with the date part kept from the previous call of the same day: creation
 * times rise with the index, a hundred or so to a day, and a Date and its formatting per record showed
 * in a large build. Written from char codes: a string joined from pieces is a rope of them, which a world
 * keeps one of per record (several times the size of the flat string).
 */
function isoClock(): (ms: number) => string {
  let dayStart = NaN;
  /** `YYYY-MM-DDThh:mm:ss.sssZ` as char codes, the date part set for the day of `dayStart`. */
  const codes: number[] = [];
  const put = (at: number, v: number, digits: number) => {
    for (let i = at + digits - 1; i >= at; i--, v = Math.floor(v / 10)) codes[i] = 48 + (v % 10);
  };
  return (ms) => {
    const inDay = ms - dayStart;
    if (!(inDay >= 0 && inDay < DAY)) {
      const iso = new Date(ms).toISOString();
      // Years outside 0000-9999 are written with a sign and six digits: not worth a cache.
      if (iso.length !== 24) return iso;
      dayStart = ms - (((ms % DAY) + DAY) % DAY);
      for (let i = 0; i < 24; i++) codes[i] = iso.charCodeAt(i);
      return iso;
    }
    const sec = Math.floor(inDay / 1000);
    put(11, Math.floor(sec / 3600), 2);
    put(14, Math.floor(sec / 60) % 60, 2);
    put(17, sec % 60, 2);
    put(20, inDay - sec * 1000, 3);
    return String.fromCharCode(...codes);
  };
}

/** A word list of the locale (some are untyped in faker's definitions); never empty. */
function words(list: unknown): string[] {
  return Array.isArray(list) && list.length > 0 ? (list as string[]) : ['example'];
}

/** sfc32, seeded through splitmix32: fast, and the same sequence on every platform. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  const mix = () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = mix();
  let b = mix();
  let c = mix();
  let d = mix();
  return () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

/** Usernames as people pick them: `jane.doe`, `jdoe`, `jane_doe`, `janed`, `jane42`. */
function usernameFor(first: string, last: string, rand: () => number): string {
  const a = first.toLowerCase().replace(/[^a-z0-9]/g, '');
  const b = last.toLowerCase().replace(/[^a-z0-9]/g, '');
  const r = rand();
  if (r < 0.3) return `${a}.${b}`;
  if (r < 0.5) return `${a.charAt(0)}${b}`;
  if (r < 0.65) return `${a}_${b}`;
  if (r < 0.8) return `${a}${b.charAt(0)}`;
  if (r < 0.9) return `${a}${10 + (Math.floor(r * 1000) % 90)}`;
  return `${a}-${b}`;
}

const DOMAINS = ['example.com', 'example.org', 'example.net', 'mail.example.com'];

/** A group's or project's visibility may not exceed its parent group's. */
function capVisibility(v: Visibility, parent: Visibility | undefined): Visibility {
  return parent && VISIBILITY_LEVEL[v] > VISIBILITY_LEVEL[parent] ? parent : v;
}
