import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { circles, importGraph, leavesFloor, type Graph } from './graph.js';

const src = fileURLToPath(new URL('../../src', import.meta.url));
const graph = importGraph(src);

const g = (edges: Record<string, string[]>): Graph => new Map(Object.entries(edges));

describe('import graph of src/', () => {
  it('src/: no import circle (type-only imports included)', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('src/core/: imports no file of another folder of src/', () => {
    expect(leavesFloor(graph, 'core')).toEqual([]);
  });

  it('graph: reads type-only imports, re-exports and import() calls, and the core folder is found', () => {
    expect(graph.get('core/state.ts')).toBeDefined();
    expect(graph.get('app.ts')).toContain('host/instance.ts');
    expect(graph.get('testing/vitest.ts')).toContain('msw/index.ts');
    expect(graph.get('index.ts')).toContain('app.ts');
  });

  it('circles: finds a two-file circle, a longer one and a file that imports itself', () => {
    expect(
      circles(
        g({
          'a.ts': ['b.ts'],
          'b.ts': ['a.ts'],
          'c.ts': ['d.ts'],
          'd.ts': ['e.ts'],
          'e.ts': ['c.ts', 'f.ts'],
          'f.ts': [],
          's.ts': ['s.ts'],
        }),
      ),
    ).toEqual([['a.ts', 'b.ts'], ['c.ts', 'd.ts', 'e.ts'], ['s.ts']]);
  });

  it('circles: none in a graph whose shared imports form no loop', () => {
    expect(circles(g({ 'a.ts': ['b.ts', 'c.ts'], 'b.ts': ['c.ts'], 'c.ts': [] }))).toEqual([]);
  });

  it('leavesFloor: lists each import from the floor to another folder', () => {
    const edges = g({
      'core/a.ts': ['core/b.ts', 'resources/x.ts'],
      'core/b.ts': [],
      'resources/x.ts': ['core/a.ts'],
    });
    expect(leavesFloor(edges, 'core')).toEqual(['core/a.ts -> resources/x.ts']);
  });
});
