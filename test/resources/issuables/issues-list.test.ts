/**
 * The issue lists: every filter of the spec on its own and in combination, ordering, visibility of
 * confidential issues, references and pagination. Issues of acme/website (see world.ts), newest first:
 * 6 Typo (docs, v1.0, due 03-20), 5 Internal roadmap (confidential, assignee carol, due 04-10),
 * 4 Secret (confidential, bug, by bob), 3 Crash (closed, bug+feature), 2 Dark mode (feature+docs, v2.0,
 * due 03-05, by carol), 1 Login (bug, v1.0, assignee dave, due 03-01, by bob, two upvotes).
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { call, get, iids, issuablesFx, issuablesWorld, json, titles, WEB } from './world.js';

const fx = issuablesFx();

/** The iids a list answers, as alice unless another token (or null: anonymous) is given. */
async function list(query: string, token: string | null = 'alice-api', base = `${WEB}/issues`) {
  const r = await get(fx, `${base}${query ? `?${query}` : ''}`, token ?? undefined);
  if (r.status !== 200) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
  return iids(r.body);
}

describe('GET /projects/:id/issues: state', () => {
  it('GET /projects/:id/issues: all states by default, newest first', async () => {
    expect(await list('')).toEqual([6, 5, 4, 3, 2, 1]);
  });
  it('GET /projects/:id/issues: state=opened and state=closed', async () => {
    expect(await list('state=opened')).toEqual([6, 5, 4, 2, 1]);
    expect(await list('state=closed')).toEqual([3]);
    expect(await list('state=all')).toEqual([6, 5, 4, 3, 2, 1]);
  });
  it('GET /projects/:id/issues: an unknown state is a 400', async () => {
    const r = await get(fx, `${WEB}/issues?state=merged`, 'alice-api');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'state does not have a valid value' });
  });
});

describe('GET /projects/:id/issues: labels', () => {
  it('GET /projects/:id/issues: one label', async () => {
    expect(await list('labels=bug')).toEqual([4, 3, 1]);
  });
  it('GET /projects/:id/issues: several labels must all be present (AND)', async () => {
    expect(await list('labels=bug,feature')).toEqual([3]);
    expect(await list('labels[]=feature&labels[]=docs')).toEqual([2]);
  });
  it('GET /projects/:id/issues: label names are case-insensitive', async () => {
    expect(await list('labels=BUG')).toEqual([4, 3, 1]);
    expect(await list('labels=Bug,FEATURE')).toEqual([3]);
  });
  it('GET /projects/:id/issues: labels=None (any case) and the deprecated No+Label give unlabelled issues', async () => {
    expect(await list('labels=None')).toEqual([5]);
    expect(await list('labels=none')).toEqual([5]);
    expect(await list('labels=No+Label')).toEqual([5]);
  });
  it('GET /projects/:id/issues: labels=Any gives labelled issues', async () => {
    expect(await list('labels=Any')).toEqual([6, 4, 3, 2, 1]);
    expect(await list('labels=ANY')).toEqual([6, 4, 3, 2, 1]);
  });
  it('GET /projects/:id/issues: an unknown label matches nothing', async () => {
    expect(await list('labels=nope')).toEqual([]);
  });
  it('GET /projects/:id/issues: label titles sorted, or label objects with with_labels_details', async () => {
    const plain = await get(fx, `${WEB}/issues?iids[]=2`, 'alice-api');
    expect(plain.body[0].labels).toEqual(['docs', 'feature']);
    const detailed = await get(fx, `${WEB}/issues?iids[]=2&with_labels_details=true`, 'alice-api');
    expect(detailed.body[0].labels).toEqual([
      {
        id: 3,
        name: 'docs',
        color: '#EEEEEE',
        description: null,
        description_html: '',
        text_color: '#333333',
      },
      {
        id: 2,
        name: 'feature',
        color: '#00FF00',
        description: null,
        description_html: '',
        text_color: '#FFFFFF',
      },
    ]);
  });
});

describe('GET /projects/:id/issues: milestone', () => {
  it('GET /projects/:id/issues: by milestone title', async () => {
    expect(await list('milestone=v1.0')).toEqual([6, 1]);
    expect(await list('milestone=v2.0')).toEqual([2]);
    expect(await list('milestone=v9')).toEqual([]);
  });
  it('GET /projects/:id/issues: milestone=None and milestone=Any', async () => {
    expect(await list('milestone=None')).toEqual([5, 4, 3]);
    expect(await list('milestone=Any')).toEqual([6, 2, 1]);
  });
});

describe('GET /projects/:id/issues: scope, author and assignee', () => {
  it('GET /projects/:id/issues: scope=created_by_me and the deprecated created-by-me', async () => {
    expect(await list('scope=created_by_me', 'bob-api')).toEqual([4, 1]);
    expect(await list('scope=created-by-me', 'bob-api')).toEqual([4, 1]);
  });
  it('GET /projects/:id/issues: scope=assigned_to_me and assigned-to-me', async () => {
    expect(await list('scope=assigned_to_me', 'dave-api')).toEqual([1]);
    expect(await list('scope=assigned-to-me', 'carol-api')).toEqual([5]);
  });
  it('GET /projects/:id/issues: an unknown scope is a 400', async () => {
    expect((await get(fx, `${WEB}/issues?scope=mine`, 'bob-api')).body).toEqual({
      error: 'scope does not have a valid value',
    });
  });
  it('GET /projects/:id/issues: author_id and author_username', async () => {
    expect(await list('author_id=3')).toEqual([4, 1]);
    expect(await list('author_username=bob')).toEqual([4, 1]);
    expect(await list('author_username=BOB')).toEqual([4, 1]);
    expect(await list('author_username=nobody')).toEqual([]);
    expect(await list('author_id=999')).toEqual([]);
  });
  it('GET /projects/:id/issues: author_id and author_username are mutually exclusive', async () => {
    const r = await get(fx, `${WEB}/issues?author_id=3&author_username=bob`, 'alice-api');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'author_id, author_username are mutually exclusive' });
  });
  it('GET /projects/:id/issues: scope=assigned_to_me combines with author_username', async () => {
    expect(await list('scope=assigned_to_me&author_username=bob', 'dave-api')).toEqual([1]);
    expect(await list('scope=assigned_to_me&author_username=carol', 'dave-api')).toEqual([]);
  });
  it('GET /projects/:id/issues: assignee_id by id, None and Any', async () => {
    expect(await list('assignee_id=5')).toEqual([1]);
    expect(await list('assignee_id=None')).toEqual([6, 4, 3, 2]);
    expect(await list('assignee_id=any')).toEqual([5, 1]);
  });
  it('GET /projects/:id/issues: assignee_id that is neither an integer, None nor Any is a 400', async () => {
    const r = await get(fx, `${WEB}/issues?assignee_id=foo`, 'alice-api');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'assignee_id should be an integer, none, or any, however got foo' });
  });
  it('GET /projects/:id/issues: assignee_username with one value', async () => {
    expect(await list('assignee_username=dave')).toEqual([1]);
    expect(await list('assignee_username[]=carol')).toEqual([5]);
  });
  it('GET /projects/:id/issues: several assignee_username values are refused on the free tier', async () => {
    const r = await get(fx, `${WEB}/issues?assignee_username[]=dave&assignee_username[]=carol`, 'alice-api');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'assignee_username allows one value, but found 2: dave, carol' });
  });
  it('GET /projects/:id/issues: several assignee_username values must all be assigned on paid tiers', async () => {
    const paid = createFauxlab({ scenario: issuablesWorld, tier: 'premium' });
    const r = await get(
      paid,
      `${WEB}/issues?assignee_username[]=dave&assignee_username[]=carol`,
      'alice-api',
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual([]);
    await call(paid, 'PUT', `/api/v4${WEB}/issues/1`, { token: 'alice-api', body: { assignee_ids: [5, 4] } });
    expect(
      iids(
        (await get(paid, `${WEB}/issues?assignee_username[]=dave&assignee_username[]=carol`, 'alice-api'))
          .body,
      ),
    ).toEqual([1]);
  });
  it('GET /projects/:id/issues: assignee_id and assignee_username are mutually exclusive', async () => {
    expect((await get(fx, `${WEB}/issues?assignee_id=5&assignee_username=dave`, 'alice-api')).body).toEqual({
      error: 'assignee_id, assignee_username are mutually exclusive',
    });
  });
});

describe('GET /projects/:id/issues: reactions, weight and iids', () => {
  it("GET /projects/:id/issues: my_reaction_emoji by name, None and Any (the caller's own awards)", async () => {
    expect(await list('my_reaction_emoji=thumbsup', 'carol-api')).toEqual([1]);
    expect(await list('my_reaction_emoji=Any', 'carol-api')).toEqual([1]);
    expect(await list('my_reaction_emoji=None', 'carol-api')).toEqual([6, 5, 3, 2]);
    expect(await list('my_reaction_emoji=thumbsdown', 'bob-api')).toEqual([2]);
    expect(await list('my_reaction_emoji=thumbsdown', 'carol-api')).toEqual([]);
  });
  it('GET /projects/:id/issues: my_reaction_emoji is ignored without a user', async () => {
    expect(await list('my_reaction_emoji=thumbsup', null)).toEqual([6, 3, 2, 1]);
  });
  it('GET /projects/:id/issues: weight filters on paid tiers and is ignored on the free tier', async () => {
    const paid = createFauxlab({ scenario: issuablesWorld, tier: 'premium' });
    await call(paid, 'PUT', `/api/v4${WEB}/issues/2`, { token: 'alice-api', body: { weight: 3 } });
    expect(iids((await get(paid, `${WEB}/issues?weight=3`, 'alice-api')).body)).toEqual([2]);
    expect(iids((await get(paid, `${WEB}/issues?weight=Any`, 'alice-api')).body)).toEqual([2]);
    expect(iids((await get(paid, `${WEB}/issues?weight=None`, 'alice-api')).body)).toEqual([6, 5, 4, 3, 1]);
    expect(iids((await get(paid, `${WEB}/issues?not[weight]=3`, 'alice-api')).body)).toEqual([6, 5, 4, 3, 1]);
    expect(await list('weight=3')).toEqual([6, 5, 4, 3, 2, 1]);
  });
  it('GET /projects/:id/issues: iids[] and comma-separated iids', async () => {
    expect(await list('iids[]=1&iids[]=3')).toEqual([3, 1]);
    expect(await list('iids=1,3')).toEqual([3, 1]);
  });
  it('GET /projects/:id/issues: a non-integer iid is a 400', async () => {
    expect((await get(fx, `${WEB}/issues?iids[]=x`, 'alice-api')).body).toEqual({ error: 'iids is invalid' });
  });
});

describe('GET /projects/:id/issues: order_by and sort', () => {
  const cases: [string, number[], number[]][] = [
    ['created_at', [6, 5, 4, 3, 2, 1], [1, 2, 3, 4, 5, 6]],
    ['updated_at', [1, 2, 6, 5, 4, 3], [3, 4, 5, 6, 2, 1]],
    ['due_date', [5, 6, 2, 1, 4, 3], [1, 2, 6, 5, 4, 3]],
    ['popularity', [1, 6, 5, 4, 3, 2], [6, 5, 4, 3, 2, 1]],
    ['milestone_due', [2, 6, 1, 5, 4, 3], [6, 1, 2, 5, 4, 3]],
    ['label_priority', [2, 4, 3, 1, 6, 5], [4, 3, 1, 2, 6, 5]],
    ['priority', [2, 1, 6, 4, 3, 5], [1, 6, 2, 4, 3, 5]],
    ['relative_position', [6, 5, 4, 3, 2, 1], [1, 2, 3, 4, 5, 6]],
    ['weight', [6, 5, 4, 3, 2, 1], [6, 5, 4, 3, 2, 1]],
  ];
  for (const [orderBy, desc, asc] of cases) {
    it(`GET /projects/:id/issues: order_by=${orderBy}, desc and asc`, async () => {
      expect(await list(`order_by=${orderBy}`)).toEqual(desc);
      expect(await list(`order_by=${orderBy}&sort=asc`)).toEqual(asc);
    });
  }
  it('GET /projects/:id/issues: an unknown order_by or sort is a 400', async () => {
    expect((await get(fx, `${WEB}/issues?order_by=title`, 'alice-api')).body).toEqual({
      error: 'order_by does not have a valid value',
    });
    expect((await get(fx, `${WEB}/issues?sort=up`, 'alice-api')).body).toEqual({
      error: 'sort does not have a valid value',
    });
  });
});

describe('GET /projects/:id/issues: search, times and confidentiality', () => {
  it('GET /projects/:id/issues: search in title and description, case-insensitive', async () => {
    expect(await list('search=login')).toEqual([1]);
    expect(await list('search=LOGIN')).toEqual([1]);
    expect(await list('search=users')).toEqual([2]);
    expect(await list('search=dark%20mode')).toEqual([2]);
    expect(await list('search=dark%20nothing')).toEqual([]);
  });
  it('GET /projects/:id/issues: in=title or in=description narrows the search', async () => {
    expect(await list('search=users&in=title')).toEqual([]);
    expect(await list('search=users&in=description')).toEqual([2]);
    expect(await list('search=clicking&in=title,description')).toEqual([1]);
  });
  it('GET /projects/:id/issues: a search shorter than three characters must match a whole title', async () => {
    expect(await list('search=ty')).toEqual([]);
  });
  it('GET /projects/:id/issues: created_after and created_before are inclusive', async () => {
    expect(await list('created_after=2021-01-03T10:00:00Z')).toEqual([6, 5, 4, 3]);
    expect(await list('created_before=2021-01-03T10:00:00Z')).toEqual([3, 2, 1]);
    expect(await list('created_after=2021-01-02T10:00:00Z&created_before=2021-01-04T10:00:00Z')).toEqual([
      4, 3, 2,
    ]);
  });
  it('GET /projects/:id/issues: updated_after and updated_before are inclusive', async () => {
    expect(await list('updated_after=2021-01-20T10:00:00Z')).toEqual([2, 1]);
    expect(await list('updated_before=2021-01-04T10:00:00Z')).toEqual([4, 3]);
  });
  it('GET /projects/:id/issues: an unparseable time is a 400', async () => {
    expect((await get(fx, `${WEB}/issues?created_after=yesterday`, 'alice-api')).body).toEqual({
      error: 'created_after is invalid',
    });
  });
  it('GET /projects/:id/issues: confidential=true and confidential=false', async () => {
    expect(await list('confidential=true')).toEqual([5, 4]);
    expect(await list('confidential=false')).toEqual([6, 3, 2, 1]);
  });
});

describe('GET /projects/:id/issues: not[...]', () => {
  it('GET /projects/:id/issues: not[labels] excludes issues with any of the labels', async () => {
    expect(await list('not[labels]=bug')).toEqual([6, 5, 2]);
    expect(await list('not[labels]=bug,docs')).toEqual([5]);
  });
  it('GET /projects/:id/issues: labels combined with not[labels]', async () => {
    expect(await list('labels=feature&not[labels]=bug')).toEqual([2]);
  });
  it('GET /projects/:id/issues: not[milestone], not[author_id], not[author_username]', async () => {
    expect(await list('not[milestone]=v1.0')).toEqual([5, 4, 3, 2]);
    expect(await list('not[author_id]=3')).toEqual([6, 5, 3, 2]);
    expect(await list('not[author_username]=bob')).toEqual([6, 5, 3, 2]);
  });
  it('GET /projects/:id/issues: not[assignee_id], not[assignee_username], not[iids]', async () => {
    expect(await list('not[assignee_id]=5')).toEqual([6, 5, 4, 3, 2]);
    expect(await list('not[assignee_username]=carol')).toEqual([6, 4, 3, 2, 1]);
    expect(await list('not[iids][]=1&not[iids][]=2')).toEqual([6, 5, 4, 3]);
  });
  it('GET /projects/:id/issues: not[my_reaction_emoji]', async () => {
    expect(await list('not[my_reaction_emoji]=thumbsup', 'carol-api')).toEqual([6, 5, 3, 2]);
  });
  it('GET /projects/:id/issues: not[author_id] and not[author_username] together are a 400', async () => {
    expect(
      (await get(fx, `${WEB}/issues?not[author_id]=3&not[author_username]=bob`, 'alice-api')).body,
    ).toEqual({
      error: 'not[author_id], not[author_username] are mutually exclusive',
    });
  });
  it('GET /projects/:id/issues: a bad value under not[] names it', async () => {
    expect((await get(fx, `${WEB}/issues?not[author_id]=x`, 'alice-api')).body).toEqual({
      error: 'not[author_id] is invalid',
    });
  });
});

describe('GET /projects/:id/issues: due_date on the instance clock', () => {
  it('GET /projects/:id/issues: due_date=0 gives issues without a due date', async () => {
    expect(await list('due_date=0')).toEqual([4, 3]);
  });
  it('GET /projects/:id/issues: due_date=overdue, week, month, next_month_and_previous_two_weeks', async () => {
    expect(await list('due_date=overdue')).toEqual([1]);
    expect(await list('due_date=week')).toEqual([2, 1]);
    expect(await list('due_date=month')).toEqual([6, 2, 1]);
    expect(await list('due_date=next_month_and_previous_two_weeks')).toEqual([6, 5, 2, 1]);
  });
  it('GET /projects/:id/issues: due_date follows the instance clock', async () => {
    const later = issuablesFx();
    later.clock.set('2021-03-10T12:00:00Z');
    expect(iids((await get(later, `${WEB}/issues?due_date=overdue`, 'alice-api')).body)).toEqual([2, 1]);
    expect(iids((await get(later, `${WEB}/issues?due_date=week`, 'alice-api')).body)).toEqual([]);
  });
  it('GET /projects/:id/issues: an unknown due_date is a 400', async () => {
    expect((await get(fx, `${WEB}/issues?due_date=tomorrow`, 'alice-api')).body).toEqual({
      error: 'due_date does not have a valid value',
    });
  });
});

describe('GET /projects/:id/issues: confidential issues by viewer', () => {
  it('GET /projects/:id/issues: reporters and owners see every confidential issue', async () => {
    expect(await list('', 'erin-api')).toEqual([6, 5, 4, 3, 2, 1]);
    expect(await list('', 'root-api')).toEqual([6, 5, 4, 3, 2, 1]);
  });
  it('GET /projects/:id/issues: others see the confidential issues they authored or are assigned to', async () => {
    expect(await list('', 'bob-api')).toEqual([6, 4, 3, 2, 1]);
    expect(await list('', 'carol-api')).toEqual([6, 5, 3, 2, 1]);
    expect(await list('', 'gus-api')).toEqual([6, 3, 2, 1]);
  });
  it('GET /projects/:id/issues: anonymous viewers never see confidential issues', async () => {
    expect(await list('', null)).toEqual([6, 3, 2, 1]);
    expect(await list('confidential=true', null)).toEqual([]);
  });
  it('GET /projects/:id/issues: a private project is a 404 for non-members', async () => {
    const r = await get(fx, '/projects/acme%2Flabs%2Frocket/issues', 'bob-api');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ message: '404 Project Not Found' });
  });
  it('GET /projects/:id/issues: a project with issues disabled lists nothing', async () => {
    const f = createFauxlab({
      scenario: {
        ...issuablesWorld,
        projects: issuablesWorld.projects!.map((p) =>
          p.path === 'acme/website' ? { ...p, issues_access_level: 'disabled' } : p,
        ),
      },
    });
    expect((await get(f, `${WEB}/issues`, 'bob-api')).body).toEqual([]);
  });
});

describe('GET /issues and GET /groups/:id/issues', () => {
  it('GET /issues: needs a user unless scope=all', async () => {
    const r = await get(fx, '/issues');
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ message: '401 Unauthorized' });
    expect((await get(fx, '/issues?scope=created_by_me')).status).toBe(401);
  });
  it('GET /issues: defaults to the issues the caller created, across projects', async () => {
    expect(titles((await get(fx, '/issues', 'bob-api')).body)).toEqual([
      'Personal todo',
      'Secret vulnerability',
      'Login button broken',
    ]);
  });
  it('GET /issues: scope=all anonymously lists public, non-confidential issues of non-archived projects', async () => {
    expect(titles((await get(fx, '/issues?scope=all')).body)).toEqual([
      'Personal todo',
      'Typo in footer',
      'Crash on startup',
      'Add dark mode',
      'Login button broken',
    ]);
  });
  it('GET /issues: scope=all with author_username', async () => {
    expect(titles((await get(fx, '/issues?scope=all&author_username=bob', 'alice-api')).body)).toEqual([
      'Personal todo',
      'Secret vulnerability',
      'Login button broken',
    ]);
  });
  it('GET /issues: non_archived=false includes archived projects', async () => {
    const all = titles((await get(fx, '/issues?scope=all&non_archived=false')).body);
    expect(all[0]).toBe('Dusty issue');
    expect(all).toHaveLength(6);
  });
  it('GET /issues: references are relative to nothing, so short', async () => {
    const body = (await get(fx, '/issues?scope=all&iids[]=6', 'alice-api')).body;
    expect(body[0].references).toEqual({ short: '#6', relative: '#6', full: 'acme/website#6' });
  });
  it('GET /groups/:id/issues: the group and its subgroups, archived projects excluded by default', async () => {
    expect(titles((await get(fx, '/groups/acme/issues?labels=bug', 'alice-api')).body)).toEqual([
      'Fuel leak',
      'Secret vulnerability',
      'Crash on startup',
      'Login button broken',
    ]);
    expect(
      titles((await get(fx, '/groups/acme/issues?non_archived=false&iids[]=1', 'alice-api')).body),
    ).toContain('Dusty issue');
  });
  it('GET /groups/:id/issues: references are relative to the group', async () => {
    const body = (await get(fx, '/groups/acme/issues?iids[]=1', 'alice-api')).body;
    const byTitle = Object.fromEntries(
      body.map((i: { title: string; references: unknown }) => [i.title, i.references]),
    );
    expect(byTitle['Login button broken']).toEqual({
      short: '#1',
      relative: 'website#1',
      full: 'acme/website#1',
    });
    expect(byTitle['Fuel leak']).toEqual({
      short: '#1',
      relative: 'acme/labs/rocket#1',
      full: 'acme/labs/rocket#1',
    });
  });
  it('GET /groups/:id/issues: an unknown group is a 404', async () => {
    expect((await get(fx, '/groups/nope/issues', 'alice-api')).body).toEqual({
      message: '404 Group Not Found',
    });
  });
  it('GET /projects/:id/issues_statistics: counts of the filtered list by state', async () => {
    expect((await get(fx, `${WEB}/issues_statistics?labels=bug`, 'alice-api')).body).toEqual({
      statistics: { counts: { all: 3, closed: 1, opened: 2 } },
    });
  });
});

describe('GET /projects/:id/issues: pagination', () => {
  it('GET /projects/:id/issues: headers and Link with the declared params', async () => {
    const res = await call(fx, 'GET', `/api/v4${WEB}/issues?per_page=2&page=2`, { token: 'alice-api' });
    expect(res.headers.get('x-total')).toBe('6');
    expect(res.headers.get('x-total-pages')).toBe('3');
    expect(res.headers.get('x-next-page')).toBe('3');
    expect(res.headers.get('x-prev-page')).toBe('1');
    expect(res.headers.get('link')).toContain(
      '<http://localhost/api/v4/projects/acme%2Fwebsite/issues?id=acme%2Fwebsite&order_by=created_at&page=3&per_page=2&sort=desc&state=all&with_labels_details=false>; rel="next"',
    );
    expect(iids(await json(res))).toEqual([4, 3]);
  });
});
