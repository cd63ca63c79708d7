/**
 * The import graph of `src/`, read with the TypeScript scanner (`preProcessFile`), which sees every
 * import form a regex would miss or misread: type-only imports, re-exports, `import()` calls and
 * `typeof import()` types, but no `import` inside a comment or string.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Relative path (from the root, with `/`) -> the relative paths of the files it imports. */
export type Graph = Map<string, string[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The graph of the `.ts` files under `dir`; imports of packages and of files outside `dir` are left out. */
export function importGraph(dir: string): Graph {
  const root = resolve(dir);
  const name = (file: string) => relative(root, file).split('\\').join('/');
  const files = sourceFiles(root);
  const known = new Set(files.map(name));
  const graph: Graph = new Map();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((f) => f.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => name(resolve(dirname(file), spec.replace(/\.js$/, '.ts'))))
      .filter((target) => known.has(target));
    graph.set(name(file), [...new Set(targets)].sort());
  }
  return graph;
}

/** The import circles: each strongly connected set of files of more than one (or a file importing itself). */
export function circles(graph: Graph): string[][] {
  // Tarjan's algorithm, iterative so that a long chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; i: number }[] = [{ node: start, i: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const edges = graph.get(top.node) ?? [];
      if (top.i < edges.length) {
        const to = edges[top.i++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, i: 0 });
        } else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) !== index.get(top.node)) continue;
      const set: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        set.push(member);
      } while (member !== top.node);
      if (set.length > 1 || edges.includes(top.node)) found.push(set.sort());
    }
  }
  return found;
}

/** Imports from a file under `floor/` to a file outside it, as `from -> to`. */
export function leavesFloor(graph: Graph, floor: string): string[] {
  const inside = (f: string) => f.startsWith(`${floor}/`);
  return [...graph]
    .filter(([from]) => inside(from))
    .flatMap(([from, tos]) => tos.filter((to) => !inside(to)).map((to) => `${from} -> ${to}`));
}
