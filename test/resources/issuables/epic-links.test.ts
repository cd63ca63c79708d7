/** Child epics (ultimate's multi-level epics): list, link, create-and-link, reorder and unlink. */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, loadScenario } from '../../../src/index.js';
import { acmeWithReaders, get, issuablesWorld, refused, scenarioProblems, send } from './world.js';

const EPICS = [
  { group: 'acme', title: 'Parent', author: 'alice' },
  { group: 'acme', title: 'Two', author: 'alice' },
  { group: 'acme', title: 'Three', author: 'alice' },
  { group: 'acme/labs', title: 'In labs', author: 'alice' },
];

/** acme with erin as a reporter and gus as a guest; epics &1-&3 in acme, &1 in acme/labs. */
const world = (tier: 'premium' | 'ultimate' = 'ultimate', epics: unknown[] = EPICS) =>
  createFauxlab({
    tier,
    scenario: { ...issuablesWorld, groups: acmeWithReaders, epics } as never,
  });
type Fx = ReturnType<typeof world>;

const idOf = async (fx: Fx, group: string, iid: number) =>
  ((await get(fx, `/groups/${encodeURIComponent(group)}/epics/${iid}`, 'alice-api')).body as { id: number })
    .id;
const childTitles = async (fx: Fx, iid = 1) =>
  ((await get(fx, `/groups/acme/epics/${iid}/epics`, 'alice-api')).body as { title: string }[]).map(
    (e) => e.title,
  );
const DEPTH_MSG =
  'This epic cannot be added. One or more epics would exceed the maximum depth (7) from its most distant ancestor.';

describe('epic links', () => {
  it('POST /groups/:id/epics/:epic_iid/epics/:child_epic_id: 201 with the child; the newest link first; parent_id follows', async () => {
    const fx = world();
    const [two, three, labs] = [
      await idOf(fx, 'acme', 2),
      await idOf(fx, 'acme', 3),
      await idOf(fx, 'acme/labs', 1),
    ];
    const res = await send(fx, 'POST', `/groups/acme/epics/1/epics/${two}`, 'erin-api');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: two, iid: 2, parent_id: await idOf(fx, 'acme', 1), title: 'Two' });
    expect((res.body as { _links: { parent: string } })._links.parent).toMatch(
      /\/api\/v4\/groups\/\d+\/epics\/1$/,
    );
    await send(fx, 'POST', `/groups/acme/epics/1/epics/${three}`, 'erin-api');
    // A subgroup's epic may be a child of its ancestor group's epic.
    expect((await send(fx, 'POST', `/groups/acme/epics/1/epics/${labs}`, 'erin-api')).status).toBe(201);
    expect(await childTitles(fx)).toEqual(['In labs', 'Three', 'Two']);
    expect((await get(fx, '/groups/acme/epics/2', 'alice-api')).body).toMatchObject({
      parent_id: expect.any(Number),
    });
  });

  it('POST .../epics/:child_epic_id: the model refuses self, twice and cycles with 409; epics of other groups are 404', async () => {
    const fx = world();
    const [one, two, three] = [
      await idOf(fx, 'acme', 1),
      await idOf(fx, 'acme', 2),
      await idOf(fx, 'acme', 3),
    ];
    const c409 = (message: string) => ({ status: 409, body: { message } });
    expect(await send(fx, 'POST', `/groups/acme/epics/1/epics/${one}`, 'erin-api')).toEqual(
      c409('This epic cannot be added. An epic cannot be added to itself.'),
    );
    await send(fx, 'POST', `/groups/acme/epics/1/epics/${two}`, 'erin-api');
    expect(await send(fx, 'POST', `/groups/acme/epics/1/epics/${two}`, 'erin-api')).toEqual(
      c409('This epic cannot be added. It is already assigned to the parent epic.'),
    );
    await send(fx, 'POST', `/groups/acme/epics/2/epics/${three}`, 'erin-api');
    expect(await send(fx, 'POST', `/groups/acme/epics/3/epics/${one}`, 'erin-api')).toEqual(
      c409('This epic cannot be added. It is already an ancestor of the parent epic.'),
    );
    // An acme epic is not found from acme/labs: children come from the group and its subgroups.
    expect(await send(fx, 'POST', `/groups/acme%2Flabs/epics/1/epics/${one}`, 'alice-api')).toEqual({
      status: 404,
      body: { message: 'No Epic found for given params' },
    });
  });

  it('POST .../epics/:child_epic_id: the depth limit (7) and the full parent', async () => {
    const chain = Array.from({ length: 8 }, (_, i) => ({
      group: 'acme',
      title: `E${i + 1}`,
      author: 'alice',
      ...(i > 0 && i < 7 ? { parent: `acme&${i}` } : {}),
    }));
    const fx = world('ultimate', chain);
    const eighth = await idOf(fx, 'acme', 8);
    // &7 is the seventh level: base_and_ancestors counts 7.
    expect(await send(fx, 'POST', `/groups/acme/epics/7/epics/${eighth}`, 'erin-api')).toEqual({
      status: 409,
      body: {
        message:
          "This epic can't be added because the parent is already at the maximum depth from its most distant ancestor",
      },
    });
    // Under &6 (count 6) a lone epic makes 1 + 6 = 7 levels: refused as well.
    expect(await send(fx, 'POST', `/groups/acme/epics/6/epics/${eighth}`, 'erin-api')).toEqual({
      status: 409,
      body: { message: DEPTH_MSG },
    });
    expect((await send(fx, 'POST', `/groups/acme/epics/5/epics/${eighth}`, 'erin-api')).status).toBe(201);
    // A new epic has no depth of its own: under &6 it fits, under &7 it does not.
    expect((await send(fx, 'POST', '/groups/acme/epics/6/epics', 'erin-api', { title: 'Fits' })).status).toBe(
      201,
    );
    expect(await send(fx, 'POST', '/groups/acme/epics/7/epics', 'erin-api', { title: 'Deep' })).toEqual({
      status: 400,
      body: { message: { parent: [DEPTH_MSG] } },
    });
  });

  it('POST .../epics/:child_epic_id: refusals (guest 403, missing 404, premium 403, anonymous 401) write nothing', async () => {
    const fx = world();
    const two = await idOf(fx, 'acme', 2);
    await refused(fx, 'POST', `/groups/acme/epics/1/epics/${two}`, 'gus-api', undefined, 403, {
      message: '403 Forbidden',
    });
    await refused(fx, 'POST', '/groups/acme/epics/1/epics/99999', 'erin-api', undefined, 404, {
      message: 'No Epic found for given params',
    });
    await refused(fx, 'POST', `/groups/acme/epics/42/epics/${two}`, 'erin-api', undefined, 403, {
      message: '403 Forbidden',
    });
    await refused(fx, 'POST', `/groups/acme/epics/1/epics/${two}`, undefined, undefined, 401, {
      message: '401 Unauthorized',
    });
    await refused(fx, 'POST', `/groups/acme/epics/1/epics/__proto__`, 'erin-api', undefined, 400, {
      error: 'child_epic_id is invalid',
    });
    const premium = world('premium');
    await refused(premium, 'POST', `/groups/acme/epics/1/epics/${two}`, 'alice-api', undefined, 403, {
      message: '403 Forbidden',
    });
    // Listing and unlinking are epics features: premium has them.
    expect((await get(premium, '/groups/acme/epics/1/epics', 'alice-api')).status).toBe(200);
  });

  it('POST /groups/:id/epics/:epic_iid/epics: creates a child (LinkedEpic); confidentiality follows the parent', async () => {
    const fx = world('ultimate', [{ ...EPICS[0], confidential: true }, ...EPICS.slice(1)]);
    const res = await send(fx, 'POST', '/groups/acme/epics/1/epics', 'erin-api', { title: 'Child' });
    expect(res.status).toBe(201);
    const parentId = await idOf(fx, 'acme', 1);
    expect(res.body).toEqual({
      id: expect.any(Number),
      iid: 4,
      title: 'Child',
      group_id: (res.body as { group_id: number }).group_id,
      parent_id: parentId,
      has_children: false,
      has_issues: false,
      reference: '&4',
      url: 'http://localhost/groups/acme/-/epics/4',
      relation_url: `http://localhost/groups/acme/-/epics/1/links/${(res.body as { id: number }).id}`,
    });
    expect((await get(fx, '/groups/acme/epics/4', 'erin-api')).body).toMatchObject({ confidential: true });
    await refused(
      fx,
      'POST',
      '/groups/acme/epics/1/epics',
      'erin-api',
      { title: 'Open', confidential: false },
      400,
      {
        message: {
          confidential: ['A non-confidential epic cannot be assigned to a confidential parent epic'],
        },
      },
    );
    await refused(fx, 'POST', '/groups/acme/epics/1/epics', 'erin-api', { title: ' ' }, 400, {
      message: { title: ["can't be blank"] },
    });
    await refused(fx, 'POST', '/groups/acme/epics/1/epics', 'erin-api', {}, 400, {
      error: 'title is missing',
    });
    await refused(fx, 'POST', '/groups/acme/epics/1/epics', 'gus-api', { title: 'x' }, 403, {
      message: '403 Forbidden',
    });
  });

  it('POST /groups/:id/epics/:epic_iid/epics: subgroup_id puts the child in a subgroup; others are 404', async () => {
    const fx = world();
    const res = await send(fx, 'POST', '/groups/acme/epics/1/epics', 'alice-api', {
      title: 'Down there',
      subgroup_id: 'acme/labs',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      iid: 2,
      reference: 'acme/labs&2',
      url: 'http://localhost/groups/acme/labs/-/epics/2',
    });
    await refused(
      fx,
      'POST',
      '/groups/acme/epics/1/epics',
      'alice-api',
      { title: 'x', subgroup_id: 'acme' },
      404,
      {
        message: '404 Group Not Found',
      },
    );
    await refused(
      fx,
      'POST',
      '/groups/acme/epics/1/epics',
      'alice-api',
      { title: 'x', subgroup_id: '__proto__' },
      404,
      {
        message: '404 Group Not Found',
      },
    );
  });

  it('PUT /groups/:id/epics/:epic_iid/epics/:child_epic_id: move_before_id / move_after_id reorder the children', async () => {
    const fx = world('ultimate', [
      EPICS[0],
      { ...EPICS[1], parent: 'acme&1', relative_position: 100 },
      { ...EPICS[2], parent: 'acme&1', relative_position: 200 },
      { group: 'acme', title: 'Four', author: 'alice', parent: 'acme&1', relative_position: 300 },
    ]);
    const [two, three, four] = [
      await idOf(fx, 'acme', 2),
      await idOf(fx, 'acme', 3),
      await idOf(fx, 'acme', 4),
    ];
    const res = await send(fx, 'PUT', `/groups/acme/epics/1/epics/${two}`, 'erin-api', {
      move_before_id: three,
      move_after_id: four,
    });
    expect(res.status).toBe(200);
    expect((res.body as { title: string }[]).map((e) => e.title)).toEqual(['Three', 'Two', 'Four']);
    await send(fx, 'PUT', `/groups/acme/epics/1/epics/${four}`, 'erin-api', { move_after_id: three });
    expect(await childTitles(fx)).toEqual(['Four', 'Three', 'Two']);
    await refused(
      fx,
      'PUT',
      `/groups/acme/epics/1/epics/${two}`,
      'erin-api',
      { move_after_id: 424242 },
      404,
      {
        message: 'Epic not found for given params',
      },
    );
    await refused(fx, 'PUT', `/groups/acme/epics/1/epics/${two}`, 'gus-api', { move_after_id: three }, 403, {
      message: '403 Forbidden',
    });
  });

  it('DELETE /groups/:id/epics/:epic_iid/epics/:child_epic_id: the child without a parent; guests 403', async () => {
    const fx = world('premium', [EPICS[0], { ...EPICS[1], parent: 'acme&1' }]);
    const two = await idOf(fx, 'acme', 2);
    await refused(fx, 'DELETE', `/groups/acme/epics/1/epics/${two}`, 'gus-api', undefined, 403, {
      message: '403 Forbidden',
    });
    const res = await send(fx, 'DELETE', `/groups/acme/epics/1/epics/${two}`, 'erin-api');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: two, parent_id: null, _links: { parent: null } });
    expect(await childTitles(fx)).toEqual([]);
  });

  it('GET /groups/:id/epics/:epic_iid/epics: confidential children only for reporters; 401 anonymous', async () => {
    const fx = world('ultimate', [
      EPICS[0],
      { ...EPICS[1], parent: 'acme&1', confidential: true },
      { ...EPICS[2], parent: 'acme&1' },
    ]);
    expect(await childTitles(fx)).toEqual(['Three', 'Two']);
    const asGuest = await get(fx, '/groups/acme/epics/1/epics', 'gus-api');
    expect((asGuest.body as { title: string }[]).map((e) => e.title)).toEqual(['Three']);
    expect((await get(fx, '/groups/acme/epics/1/epics')).status).toBe(401);
    expect(await get(fx, '/groups/acme/epics/9/epics', 'alice-api')).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    });
  });

  it('scenario: parent and relative_position export and load back; bad parents are problems', async () => {
    const file = {
      ...issuablesWorld,
      groups: acmeWithReaders,
      epics: [
        EPICS[0],
        { ...EPICS[1], parent: 'acme&1', relative_position: 5 },
        { ...EPICS[3], parent: 'acme&1' },
      ],
    };
    const fx = createFauxlab({ tier: 'ultimate', scenario: file as never });
    const out = exportScenario(fx.state, { now: fx.clock.iso() }) as { epics: Record<string, unknown>[] };
    expect(out.epics.map((e) => [e.parent, e.relative_position])).toEqual([
      [undefined, undefined],
      ['acme&1', 5],
      ['acme&1', undefined],
    ]);
    const again = createFauxlab({ tier: 'ultimate', scenario: loadScenario(out as never) as never });
    expect(await childTitles(again)).toEqual(['Two', 'In labs']);
    expect(
      scenarioProblems({
        ...file,
        epics: [
          { ...EPICS[0], parent: 'acme&2' },
          { ...EPICS[1], parent: 'acme&1' },
          { ...EPICS[3] },
          { ...EPICS[2], parent: 'acme/labs&1' },
          { ...EPICS[2], parent: 'acme&9' },
        ],
      }),
    ).toEqual([
      'epics[0].parent: the parents make a cycle',
      'epics[1].parent: the parents make a cycle',
      "epics[3].parent: the parent must be in the epic's group or an ancestor group",
      'epics[4].parent: no epic "acme&9" listed',
    ]);
  });
});
