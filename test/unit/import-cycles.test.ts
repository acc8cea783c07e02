// The imports of the code run one way: no module imports, directly or through others, a module
// that imports it back (issue 25: `cpa`'s program ↔ the server's operator console, and the typed
// client's index ↔ its modules, were such circles). Every import of every source file is read
// with the TypeScript compiler's own pre-processor (static, dynamic and type-only imports,
// re-exports), the package's `#…` imports resolved through package.json, and the strongly
// connected components of the graph are found (Tarjan): each of more than one file is a circle.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const packageImports = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { imports?: Record<string, string> }).imports ?? {};

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|mts|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .filter((f) => !f.split(path.sep).some((part) => part === 'node_modules' || part === 'dist'));
}

/** The project file an import names, or null (a package). `./x.js` may name `./x.ts`. */
function resolve(from: string, specifier: string): string | null {
  let target: string;
  if (specifier.startsWith('#') && packageImports[specifier]) target = path.normalize(packageImports[specifier]);
  else if (specifier.startsWith('.')) target = path.relative(root, path.resolve(path.dirname(path.join(root, from)), specifier));
  else return null;
  for (const candidate of [target, target.replace(/\.js$/, '.ts'), target.replace(/\.mjs$/, '.mts'), `${target}.ts`, path.join(target, 'index.ts')])
    if (existsSync(path.join(root, candidate)) && !candidate.endsWith(path.sep)) return candidate;
  return null;
}

export function importGraph(files: string[], read = (f: string) => readFileSync(path.join(root, f), 'utf8')): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = ts.preProcessFile(read(file), true, true).importedFiles.map(({ fileName }) => resolve(file, fileName));
    graph.set(file, [...new Set(targets.filter((t): t is string => t !== null))]);
  }
  return graph;
}

/** The circles of a graph: its strongly connected components of more than one node (or a node importing itself). */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

describe('import circles', () => {
  it('there are none in clients/, server/ and shared/', () => {
    const files = ['clients', 'server', 'shared'].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    expect(circles(importGraph(files))).toEqual([]);
  });

  it('finds a circle however it is closed (a type-only import, a re-export, the package’s own #import)', () => {
    const files: Record<string, string> = {
      'clients/cli/src/program.ts': "const m = await import('#cpa/operator-commands');",
      'server/operator/index.ts': "import type { X } from '../../clients/cli/src/program.js';",
      'clients/typescript/src/index.ts': "export * from './runs.js';",
      'clients/typescript/src/runs.ts': "import { unwrap } from './index.js';",
    };
    const found = circles(importGraph(Object.keys(files), (f) => files[f]!));
    expect(found).toEqual([
      ['clients/cli/src/program.ts', 'server/operator/index.ts'],
      ['clients/typescript/src/index.ts', 'clients/typescript/src/runs.ts'],
    ]);
  });
});
