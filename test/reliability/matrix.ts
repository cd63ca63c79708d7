/**
 * The permission matrix's world, roles and request helpers: the reliability world on a paid tier (so
 * that epics, the licence and restore are reachable), with the records that only the API can make
 * (group milestones, todos, e-mails and keys, issues and snippets carrying a user agent, finished
 * exports, a project share) made by a set-up pass before the snapshot every cell starts from.
 */
import { gzipSync } from 'node:zlib';
import { createFauxlab, type Fauxlab } from '../../src/index.js';
import { tvalues } from '../../src/core/table.js';
import type { ScenarioFile } from '../../src/scenario/schema.js';
import { reliabilityWorld, VISIBILITIES, type Visibility } from './world.js';

export type Role =
  | 'anonymous'
  | 'outsider'
  | 'external'
  | 'guest'
  | 'reporter'
  | 'developer'
  | 'maintainer'
  | 'owner'
  | 'admin'
  | 'blocked';

/** Each role's token, username and access level in every group and project (-1: not a member). */
export const ROLES: Record<Role, { token?: string; user?: string; level: number; external?: boolean }> = {
  anonymous: { level: -2 },
  outsider: { token: 'outsider-api', user: 'outsider', level: -1 },
  external: { token: 'ext-api', user: 'ext', level: -1, external: true },
  guest: { token: 'guest-api', user: 'guest', level: 10 },
  reporter: { token: 'rep-api', user: 'rep', level: 20 },
  developer: { token: 'dev-api', user: 'dev', level: 30 },
  maintainer: { token: 'maint-api', user: 'maint', level: 40 },
  owner: { token: 'owner-api', user: 'owner', level: 50 },
  admin: { token: 'root-api', user: 'root', level: 100 },
  blocked: { token: 'blocked-api', user: 'blocked', level: 30 },
};
export const ROLE_NAMES = Object.keys(ROLES) as Role[];

/** Whether a role sees a group or project of the visibility (all roles but outsiders are members). */
export function visibleTo(role: Role, vis: Visibility): boolean {
  const r = ROLES[role];
  if (r.level >= 10) return true;
  if (vis === 'public') return true;
  return vis === 'internal' && r.level === -1 && !r.external;
}

/** Whether a role sees a personal snippet of the visibility, written by `owner`. */
export function snippetVisibleTo(role: Role, vis: Visibility): boolean {
  if (role === 'owner' || role === 'admin') return true;
  if (vis === 'public') return true;
  return vis === 'internal' && role !== 'anonymous' && role !== 'external';
}

const boardsOf = (prefix: string) => [
  { name: 'Board', lists: [`${prefix}bug`, `${prefix}spare`] },
  { name: 'Other', lists: [`${prefix}extra`] },
];

export const matrixScenario: ScenarioFile = {
  ...reliabilityWorld,
  tier: 'premium',
  // Group SAML and a SCIM token on the three visibility groups, for the SCIM rows.
  // Boards: two lists on the first board (one to move), a label on the second to add to the first.
  groups: (reliabilityWorld.groups ?? []).map((g) =>
    VISIBILITIES.some((v) => g.path === `g-${v}`)
      ? { ...g, saml: true, scim_token: `scim-${g.path}`, boards: boardsOf('group-') }
      : g,
  ),
  projects: (reliabilityWorld.projects ?? []).map((p) => ({ ...p, boards: boardsOf('') })),
  // The test report endpoint is behind a flag the platform ships off.
  features: [{ name: 'junit_pipeline_view', state: 'on' }],
  // Epic &2 is a child of &1 (the epic links rows unlink it).
  epics: VISIBILITIES.flatMap((v) => [
    {
      group: `g-${v}`,
      title: 'An epic',
      author: 'owner',
      notes: [{ body: 'An epic note', author: 'owner' }],
    },
    { group: `g-${v}`, title: 'A child epic', author: 'owner', parent: `g-${v}&1` },
  ]),
};

// Pending members on every visibility's group and project: `ext` (user 8) asked for access, and an
// address is invited (the access request and invitation rows find them).
for (const e of [...(matrixScenario.groups ?? []), ...(matrixScenario.projects ?? [])])
  if (/^g-(private|internal|public)(\/p)?$/.test(e.path))
    Object.assign(e, {
      access_requests: [{ username: 'ext' }],
      invitations: [{ email: 'invited@example.com', access_level: 30, created_by: 'owner' }],
    });

// A vulnerability in every visibility's project, for the security rows (ultimate: endpoints-security.ts).
for (const e of matrixScenario.projects ?? [])
  if (/^g-(private|internal|public)\/p$/.test(e.path))
    Object.assign(e, {
      vulnerabilities: [{ title: 'A vulnerability', severity: 'high', report_type: 'sast', findings: [{}] }],
    });

export interface Reply {
  status: number;
  body: unknown;
}

export async function send(
  fx: Fauxlab,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
  extra: Record<string, string> = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...extra };
  if (token) headers['PRIVATE-TOKEN'] = token;
  const form = body instanceof FormData;
  if (body !== undefined && !form) headers['Content-Type'] = 'application/json';
  const res = await fx.app.request(path, {
    method,
    headers,
    body: body === undefined ? undefined : form ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text === '' ? undefined : text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
  return { status: res.status, body: parsed };
}

/** Ids of the world's records, per visibility (`g-<vis>` and `g-<vis>/p`) and per user. */
export interface Ids {
  group: Record<Visibility, number>;
  project: Record<Visibility, number>;
  issueId: Record<Visibility, number>;
  issueNote: Record<Visibility, number>;
  confidentialNote: Record<Visibility, number>;
  issueAward: Record<Visibility, number>;
  mrNote: Record<Visibility, number>;
  mrAward: Record<Visibility, number>;
  mrVersion: Record<Visibility, number>;
  milestone: Record<Visibility, number>;
  groupMilestone: Record<Visibility, number>;
  pipeline: Record<Visibility, number>;
  /** The first job of the pipeline (it has artifacts). */
  job: Record<Visibility, number>;
  projectSnippet: Record<Visibility, number>;
  snippetNote: Record<Visibility, number>;
  /** An award of `owner` on the project snippet and on its note. */
  snippetAward: Record<Visibility, number>;
  snippetNoteAward: Record<Visibility, number>;
  projectDeployToken: Record<Visibility, number>;
  groupDeployToken: Record<Visibility, number>;
  epic: Record<Visibility, number>;
  /** Epic &2, the child of &1. */
  childEpic: Record<Visibility, number>;
  epicNote: Record<Visibility, number>;
  /** The first note of `owner`'s thread on the commit at `master`. */
  commitNote: Record<Visibility, number>;
  personalSnippet: Record<Visibility, number>;
  /** The first board of the project and group, its first list, and a label it has no list of. */
  board: Record<Visibility, number>;
  boardList: Record<Visibility, number>;
  boardLabel: Record<Visibility, number>;
  groupBoard: Record<Visibility, number>;
  groupBoardList: Record<Visibility, number>;
  groupBoardLabel: Record<Visibility, number>;
  /** A personal snippet of `owner` made through the API, so with a user agent. */
  agentSnippet: number;
  shareGroup: number;
  sharedGroup: number;
  application: number;
  targetToken: number;
  impersonationToken: number;
  targetEmail: number;
  targetKey: number;
  targetGpgKey: number;
  /** Per username: an e-mail, an SSH key, a GPG key and a todo of their own. */
  own: Record<string, { email: number; key: number; gpgKey: number; todo: number }>;
  /** The discussion of the plain issue note, of the merge request note and of the snippet note (and the commit thread). */
  discussion: Record<'issue' | 'mr' | 'snippet' | 'epic' | 'commit', Record<Visibility, string>>;
  /** An award of `owner` on the plain issue note and on the merge request note. */
  noteAward: Record<'issues' | 'merge_requests', Record<Visibility, number>>;
  /** An award of `owner` on epic &1 and on its note. */
  epicAward: Record<Visibility, number>;
  epicNoteAward: Record<Visibility, number>;
  /** A weight event on issue #1 (paid tiers). */
  weightEvent: Record<Visibility, number>;
  /** A label event on epic &1 (group label `epicful`). */
  epicLabelEvent: Record<Visibility, number>;
  /** A resource event of each kind on issue #1 and merge request !1. */
  events: Record<
    'issues' | 'merge_requests',
    Record<Visibility, Record<'label' | 'milestone' | 'state', number>>
  >;
}

/** An ed25519 public key in OpenSSH format, distinct per seed. */
export function sshKey(seed: number): string {
  const type = Buffer.from('ssh-ed25519');
  const len = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const blob = Buffer.concat([len(type.length), type, len(32), Buffer.alloc(32, seed)]);
  return `ssh-ed25519 ${blob.toString('base64')} key${seed}@host`;
}

export const gpgKey = (seed: number) =>
  `-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nkey-${seed}\n-----END PGP PUBLIC KEY BLOCK-----`;

/** A gzip file for `POST /projects/import` (its content is checked when the import runs). */
export function importForm(path: string, namespace: string): FormData {
  const form = new FormData();
  form.append('path', path);
  form.append('namespace', namespace);
  form.append('file', new Blob([gzipSync(Buffer.from('not a tar'))]), 'export.tar.gz');
  return form;
}

export function uploadForm(): FormData {
  const form = new FormData();
  form.append('file', new Blob(['hello']), 'hello.txt');
  return form;
}

const P = (v: Visibility) => `/api/v4/projects/g-${v}%2Fp`;
const G = (v: Visibility) => `/api/v4/groups/g-${v}`;

async function must(r: Promise<Reply>, what: string): Promise<Record<string, unknown>> {
  const res = await r;
  if (res.status >= 300) throw new Error(`set-up: ${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Record<string, unknown>;
}

const idOf = (x: unknown) => (x as { id: number }).id;

/** Builds the matrix's instance, makes the set-up records and collects their ids. */
export async function matrixFx(): Promise<{ fx: Fauxlab; ids: Ids }> {
  const fx = createFauxlab({ scenario: matrixScenario, journal: false });
  const root = 'root-api';
  const get = (path: string) => must(send(fx, 'GET', path, root), path);
  const list = async (path: string) => (await get(path)) as unknown as Record<string, unknown>[];
  const per = () => ({}) as Record<Visibility, number>;
  const per3 = () => ({}) as Record<Visibility, Record<'label' | 'milestone' | 'state', number>>;
  const ids: Ids = {
    group: per(),
    project: per(),
    issueId: per(),
    issueNote: per(),
    confidentialNote: per(),
    issueAward: per(),
    mrNote: per(),
    mrAward: per(),
    mrVersion: per(),
    milestone: per(),
    groupMilestone: per(),
    pipeline: per(),
    job: per(),
    projectSnippet: per(),
    snippetNote: per(),
    snippetAward: per(),
    weightEvent: per(),
    epicLabelEvent: per(),
    epicAward: per(),
    epicNoteAward: per(),
    snippetNoteAward: per(),
    projectDeployToken: per(),
    groupDeployToken: per(),
    epic: per(),
    childEpic: per(),
    epicNote: per(),
    commitNote: per(),
    personalSnippet: per(),
    board: per(),
    boardList: per(),
    boardLabel: per(),
    groupBoard: per(),
    groupBoardList: per(),
    groupBoardLabel: per(),
    agentSnippet: 0,
    shareGroup: 0,
    sharedGroup: 0,
    application: 0,
    targetToken: 0,
    impersonationToken: 0,
    targetEmail: 0,
    targetKey: 0,
    targetGpgKey: 0,
    own: {},
    discussion: {
      issue: {} as Record<Visibility, string>,
      mr: {} as Record<Visibility, string>,
      snippet: {} as Record<Visibility, string>,
      epic: {} as Record<Visibility, string>,
      commit: {} as Record<Visibility, string>,
    },
    events: { issues: per3(), merge_requests: per3() },
    noteAward: { issues: per(), merge_requests: per() },
  };
  ids.shareGroup = idOf(await get('/api/v4/groups/g-share-a'));
  ids.sharedGroup = idOf(await get('/api/v4/groups/g-share-b'));
  // `GET /snippets` lists the caller's own.
  const snippets = (await must(
    send(fx, 'GET', '/api/v4/snippets?per_page=100', 'owner-api'),
    'snippets',
  )) as unknown as Record<string, unknown>[];
  for (const v of VISIBILITIES) {
    ids.group[v] = idOf(await get(G(v)));
    ids.project[v] = idOf(await get(P(v)));
    ids.issueId[v] = idOf(await get(`${P(v)}/issues/1`));
    const notes = await list(`${P(v)}/issues/1/notes`);
    ids.issueNote[v] = idOf(notes.find((n) => n.body === 'A plain note'));
    ids.confidentialNote[v] = idOf(notes.find((n) => n.body === 'A confidential note'));
    ids.issueAward[v] = idOf((await list(`${P(v)}/issues/1/award_emoji`))[0]);
    ids.mrNote[v] = idOf((await list(`${P(v)}/merge_requests/1/notes`))[0]);
    ids.mrAward[v] = idOf((await list(`${P(v)}/merge_requests/1/award_emoji`))[0]);
    ids.mrVersion[v] = idOf((await list(`${P(v)}/merge_requests/1/versions`))[0]);
    ids.milestone[v] = idOf((await list(`${P(v)}/milestones`))[0]);
    ids.pipeline[v] = idOf((await list(`${P(v)}/pipelines`))[0]);
    ids.job[v] = idOf((await list(`${P(v)}/pipelines/${ids.pipeline[v]}/jobs`))[0]);
    ids.projectDeployToken[v] = idOf((await list(`${P(v)}/deploy_tokens`))[0]);
    ids.groupDeployToken[v] = idOf((await list(`${G(v)}/deploy_tokens`))[0]);
    ids.personalSnippet[v] = idOf(snippets.find((s) => s.title === `Personal ${v} snippet`));
    ids.groupMilestone[v] = idOf(
      await must(send(fx, 'POST', `${G(v)}/milestones`, root, { title: 'gm1' }), 'group milestone'),
    );
    // An issue made through the API carries the request's user agent.
    await must(
      send(
        fx,
        'POST',
        `${P(v)}/issues`,
        root,
        { title: 'With a user agent' },
        { 'User-Agent': 'matrix/1.0' },
      ),
      'issue with a user agent',
    );
    await must(
      send(fx, 'POST', `${P(v)}/share`, root, { group_id: ids.sharedGroup, group_access: 30 }),
      'share',
    );
    await must(send(fx, 'POST', `${P(v)}/export`, root), 'export');
    const thread = await must(
      send(fx, 'POST', `${P(v)}/repository/commits/master/discussions`, 'owner-api', {
        body: 'On the commit',
      }),
      'commit discussion',
    );
    ids.discussion.commit[v] = thread.id as string;
    ids.commitNote[v] = idOf((thread.notes as unknown[])[0]);
  }
  const st = fx.state;
  for (const v of VISIBILITIES) {
    ids.epic[v] = tvalues(st.issuables.epics).find((e) => e.group_id === ids.group[v])!.id;
    ids.childEpic[v] = tvalues(st.issuables.epics).find(
      (e) => e.group_id === ids.group[v] && e.iid === 2,
    )!.id;
    ids.epicNote[v] = idOf((await list(`${G(v)}/epics/${ids.epic[v]}/notes`))[0]);
    ids.epicAward[v] = idOf(
      await must(
        send(fx, 'POST', `${G(v)}/epics/1/award_emoji`, 'owner-api', { name: 'tada' }),
        'epic award',
      ),
    );
    ids.epicNoteAward[v] = idOf(
      await must(
        send(fx, 'POST', `${G(v)}/epics/1/notes/${ids.epicNote[v]}/award_emoji`, 'owner-api', {
          name: 'tada',
        }),
        'epic note award',
      ),
    );
    // Project snippets have no API of their own here, only their notes.
    ids.projectSnippet[v] = tvalues(st.issuables.snippets).find((s) => s.project_id === ids.project[v])!.id;
    ids.snippetNote[v] = idOf((await list(`${P(v)}/snippets/${ids.projectSnippet[v]}/notes`))[0]);
    const snippetAt = `${P(v)}/snippets/${ids.projectSnippet[v]}`;
    ids.snippetAward[v] = idOf(
      await must(
        send(fx, 'POST', `${snippetAt}/award_emoji`, 'owner-api', { name: 'tada' }),
        'snippet award',
      ),
    );
    ids.snippetNoteAward[v] = idOf(
      await must(
        send(fx, 'POST', `${snippetAt}/notes/${ids.snippetNote[v]}/award_emoji`, 'owner-api', {
          name: 'tada',
        }),
        'snippet note award',
      ),
    );
    for (const [parent, base, label] of [
      ['project', P(v), 'extra'],
      ['group', G(v), 'group-extra'],
    ] as const) {
      const [board] = await list(`${base}/boards`);
      const first = (board as { lists: { id: number }[] }).lists[0]!.id;
      const owner = (l: { project_id: number | null; group_id: number | null }) =>
        parent === 'project' ? l.project_id === ids.project[v] : l.group_id === ids.group[v];
      const labelId = tvalues(st.issuables.labels).find((l) => l.title === label && owner(l))!.id;
      if (parent === 'project')
        [ids.board[v], ids.boardList[v], ids.boardLabel[v]] = [idOf(board), first, labelId];
      else [ids.groupBoard[v], ids.groupBoardList[v], ids.groupBoardLabel[v]] = [idOf(board), first, labelId];
    }
    const discussionOf = (id: number) => tvalues(st.issuables.notes).find((n) => n.id === id)!.discussion_id;
    ids.discussion.issue[v] = discussionOf(ids.issueNote[v]);
    ids.discussion.mr[v] = discussionOf(ids.mrNote[v]);
    ids.discussion.snippet[v] = discussionOf(ids.snippetNote[v]);
    ids.discussion.epic[v] = discussionOf(ids.epicNote[v]);
  }
  ids.agentSnippet = idOf(
    await must(
      send(
        fx,
        'POST',
        '/api/v4/snippets',
        'owner-api',
        { title: 'With a user agent', file_name: 'a.txt', content: 'x', visibility: 'public' },
        { 'User-Agent': 'matrix/1.0' },
      ),
      'snippet with a user agent',
    ),
  );
  ids.application = idOf((await list('/api/v4/applications'))[0]);
  ids.targetToken = idOf(
    (await list('/api/v4/personal_access_tokens?user_id=10&per_page=100')).find(
      (t) => !(t as { impersonation?: boolean }).impersonation,
    ),
  );
  ids.impersonationToken = idOf((await list('/api/v4/users/10/impersonation_tokens'))[0]);
  ids.targetEmail = idOf(
    await must(send(fx, 'POST', '/api/v4/users/10/emails', root, { email: 'target-2@example.com' }), 'email'),
  );
  ids.targetKey = idOf(
    await must(send(fx, 'POST', '/api/v4/users/10/keys', root, { title: 'k', key: sshKey(100) }), 'key'),
  );
  ids.targetGpgKey = idOf(
    await must(send(fx, 'POST', '/api/v4/users/10/gpg_keys', root, { key: gpgKey(100) }), 'gpg key'),
  );
  let seed = 1;
  for (const r of Object.values(ROLES)) {
    if (!r.user || r.user === 'blocked') continue;
    const t = r.token;
    seed++;
    ids.own[r.user] = {
      email: idOf(
        await must(
          send(fx, 'POST', '/api/v4/user/emails', t, { email: `${r.user}-2@example.com` }),
          'own email',
        ),
      ),
      key: idOf(
        await must(send(fx, 'POST', '/api/v4/user/keys', t, { title: 'k', key: sshKey(seed) }), 'own key'),
      ),
      gpgKey: idOf(
        await must(send(fx, 'POST', '/api/v4/user/gpg_keys', t, { key: gpgKey(seed) }), 'own gpg key'),
      ),
      todo: idOf(await must(send(fx, 'POST', `${P('public')}/issues/3/todo`, t), 'own todo')),
    };
  }
  // A label, a milestone and a state event on issue #1 and merge request !1 (left open, labelled, without milestone).
  for (const v of VISIBILITIES)
    for (const kind of ['issues', 'merge_requests'] as const) {
      const at = `${P(v)}/${kind}/1`;
      await must(send(fx, 'PUT', at, root, { add_labels: 'eventful' }), 'label event');
      await must(send(fx, 'PUT', at, root, { milestone_id: 0 }), 'milestone event');
      await must(send(fx, 'PUT', at, root, { state_event: 'close' }), 'state event');
      await must(send(fx, 'PUT', at, root, { state_event: 'reopen' }), 'state event');
      const note = kind === 'issues' ? ids.issueNote[v] : ids.mrNote[v];
      ids.noteAward[kind][v] = idOf(
        await must(
          send(fx, 'POST', `${at}/notes/${note}/award_emoji`, 'owner-api', { name: 'tada' }),
          'note award',
        ),
      );
      const first = async (what: string) => idOf((await list(`${at}/resource_${what}_events`))[0]);
      ids.events[kind][v] = {
        label: await first('label'),
        milestone: await first('milestone'),
        state: await first('state'),
      };
      if (kind === 'issues') {
        await must(send(fx, 'PUT', at, root, { weight: 3 }), 'weight event');
        ids.weightEvent[v] = await first('weight');
      }
    }
  for (const v of VISIBILITIES) {
    await must(
      send(fx, 'POST', `${G(v)}/labels`, root, { name: 'epicful', color: '#FF0000' }),
      'group label',
    );
    await must(send(fx, 'PUT', `${G(v)}/epics/1`, root, { labels: 'epicful' }), 'epic label event');
    ids.epicLabelEvent[v] = idOf((await list(`${G(v)}/epics/${ids.epic[v]}/resource_label_events`))[0]);
  }
  // Let the exports finish, so that their downloads exist.
  fx.clock.advance(60_000);
  return { fx, ids };
}
