// web/ is the product: it never loads the development tools (dev/) or the tests (test/),
// so the production image, which ships web/ alone, has everything it runs.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.ts';

const WEB = join(ROOT, 'web');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules' || e.name === 'dist') return [];
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.(ts|tsx|mts|js|mjs)$/.test(e.name) ? [p] : [];
  });
}

/** Relative module specifiers: static imports and exports, dynamic import(). */
function relativeSpecifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g)) out.push(m[1]!);
  return out;
}

describe('the product boundary', () => {
  it('finds relative imports of every form', () => {
    expect(relativeSpecifiers(`import a from './a.ts';\nexport { b } from "../b.ts";\nconst c = await import('../../dev/c.ts');\nimport './d.ts';`))
      .toEqual(['./a.ts', '../b.ts', '../../dev/c.ts', './d.ts']);
  });

  it('no file in web/ imports from dev/ or test/', () => {
    const offending: string[] = [];
    for (const file of sources(WEB)) {
      for (const spec of relativeSpecifiers(readFileSync(file, 'utf8'))) {
        const target = relative(ROOT, resolve(dirname(file), spec));
        if (/^(dev|test)(\/|$)/.test(target)) offending.push(`${relative(ROOT, file)} → ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
