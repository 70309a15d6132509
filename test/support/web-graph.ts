// The import graph of web/ (TypeScript, type imports included, read by madge)
// and its folder graph: a file's folder is its first path segment under web/;
// a top-level file (web/app.ts, web/context.ts) is its own node.
// `node test/support/web-graph.ts` prints the folder SCCs and the back edges.
import { fileURLToPath } from 'node:url';
import madge from 'madge';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** madge's reading of web/: obj() is file → files it imports, paths relative to web/ (frontend excluded: it has its own build). */
export async function readWeb() {
  return madge(`${root}web`, {
    baseDir: `${root}web`,
    fileExtensions: ['ts'],
    tsConfig: `${root}tsconfig.json`,
    excludeRegExp: [/^frontend[\\/]/],
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
  });
}

export async function readWebGraph(): Promise<Record<string, string[]>> {
  return (await readWeb()).obj();
}

export const folderOf = (file: string): string => (file.includes('/') ? file.split('/')[0]! : file);

export interface FolderEdge { from: string; to: string; files: string[] }

/** Folder → folder edges, each with the file imports that make it ("a.ts → b.ts"). */
export function folderGraph(graph: Record<string, string[]>): Map<string, Map<string, string[]>> {
  const out = new Map<string, Map<string, string[]>>();
  for (const [file, deps] of Object.entries(graph)) {
    if (file.startsWith('..')) continue; // a file outside web/ that web/ imports (prisma/)
    const from = folderOf(file);
    if (!out.has(from)) out.set(from, new Map());
    for (const dep of deps) {
      if (dep.startsWith('..')) continue; // outside web/ (checked elsewhere)
      const to = folderOf(dep);
      if (to === from) continue;
      const edges = out.get(from)!;
      edges.set(to, [...(edges.get(to) ?? []), `${file} → ${dep}`]);
    }
  }
  return out;
}

/** Tarjan's strongly connected components with more than one node (the folder cycles). */
export function cycles(g: Map<string, Map<string, string[]>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next); low.set(v, next); next++;
    stack.push(v); onStack.add(v);
    for (const w of g.get(v)?.keys() ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do { w = stack.pop()!; onStack.delete(w); scc.push(w); } while (w !== v);
      if (scc.length > 1) found.push(scc.sort());
    }
  };
  for (const v of [...g.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** Edges inside an SCC that close a loop in a depth-first walk (one set of "arrows back up"). */
export function backEdges(g: Map<string, Map<string, string[]>>, scc: string[]): FolderEdge[] {
  const inside = new Set(scc);
  const state = new Map<string, 'open' | 'done'>();
  const back: FolderEdge[] = [];
  const walk = (v: string) => {
    state.set(v, 'open');
    for (const [w, files] of g.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (state.get(w) === 'open') back.push({ from: v, to: w, files });
      else if (!state.has(w)) walk(w);
    }
    state.set(v, 'done');
  };
  for (const v of scc) if (!state.has(v)) walk(v);
  return back;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const g = folderGraph(await readWebGraph());
  const sccs = cycles(g);
  console.log(`${g.size} folders, ${[...g.values()].reduce((n, e) => n + e.size, 0)} folder edges, ${sccs.length} folder cycle(s)`);
  for (const scc of sccs) {
    console.log(`\nSCC (${scc.length}): ${scc.join(' ')}`);
    for (const e of backEdges(g, scc)) console.log(`  back ${e.from} → ${e.to}:\n    ${e.files.join('\n    ')}`);
  }
  if (process.argv.includes('--edges')) {
    for (const [from, edges] of [...g].sort()) console.log(`${from} → ${[...edges.keys()].sort().join(' ')}`);
  }
}
