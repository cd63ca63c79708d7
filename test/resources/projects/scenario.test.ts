import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { tget } from '../../../src/core/table.js';
import type { Project } from '../../../src/resources/projects/model.js';
import { ScenarioError } from '../../../src/scenario/index.js';
import { projectsWorld } from './world.js';

describe('scenario projects', () => {
  it('scenario: starred_by, shared_with, forked_from, tag_list and times build the project', () => {
    const fx = createFauxlab({ scenario: projectsWorld });
    const website = tget(fx.state.projects, 1) as Project;
    expect(website.star_count).toBe(2);
    expect(website.forks_count).toBe(1);
    expect(website.tag_list).toEqual(['Docs', 'api', 'web']);
    expect(website.created_at).toBe('2020-01-01T00:00:00.000Z');
    expect(website.last_activity_at).toBe('2020-01-01T00:00:00.000Z');
    expect((tget(fx.state.projects, 5) as Project).forked_from_project_id).toBe(1);
    expect(fx.state.shares.size).toBe(1);
    expect(fx.state.stars.size).toBe(2);
  });

  it('scenario: unknown groups, users and fork sources are reported with their field path', () => {
    const bad = {
      ...projectsWorld,
      projects: [
        {
          path: 'acme/a',
          shared_with: [{ group: 'nope', group_access: 'developer' as const }],
          starred_by: ['ghost'],
        },
        { path: 'acme/b', forked_from: 'acme/zzz' },
      ],
    };
    try {
      createFauxlab({ scenario: bad });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ScenarioError);
      expect((e as ScenarioError).problems).toEqual([
        'projects[0].starred_by[0]: no user "ghost"',
        'projects[0].shared_with[0].group: no group "nope"',
        'projects[1].forked_from: no project "acme/zzz" listed before',
      ]);
    }
  });

  it('scenario: a share above maintainer is refused', () => {
    expect(() =>
      createFauxlab({
        scenario: {
          ...projectsWorld,
          projects: [{ path: 'acme/a', shared_with: [{ group: 'partners', group_access: 'owner' }] }],
        },
      }),
    ).toThrow(/projects\[0\]\.shared_with\[0\]\.group_access: must be at most 40/);
  });

  // The time it takes is in `npm run bench`.
  it('scenario: generate makes 100,000 projects', () => {
    const fx = createFauxlab({
      scenario: {
        now: '2021-03-01T12:00:00Z',
        generate: { users: 1_000, groups: 200, projects: 100_000 },
      },
    });
    expect(fx.state.projects.size).toBe(100_000);
  }, 60_000);
});
