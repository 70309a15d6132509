// Every write of Delivery.status in web/ goes through the lifecycle
// (web/transitions/transition.ts): found by reading the source with the
// TypeScript parser, so a new `status:` in some update fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const WRITES = new Set(['create', 'createMany', 'update', 'updateMany', 'upsert']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'frontend' ? [] : sources(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** `<x>.delivery.<write>({ data: { status … } })` calls, as "file:line", outside the lifecycle's own functions. */
function statusWrites(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const insideCreateDelivery = (n: ts.Node): boolean => {
    for (let p = n.parent; p; p = p.parent) {
      if (ts.isCallExpression(p) && ts.isIdentifier(p.expression) && p.expression.text === 'createDelivery') return true;
    }
    return false;
  };
  const hasStatus = (o: ts.Expression | undefined): boolean =>
    !!o && ts.isObjectLiteralExpression(o) && o.properties.some((p) => (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && p.name.getText(sf) === 'status');
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && WRITES.has(n.expression.name.text)) {
      const target = n.expression.expression;
      if (ts.isPropertyAccessExpression(target) && target.name.text === 'delivery') {
        const arg = n.arguments[0];
        const data = arg && ts.isObjectLiteralExpression(arg)
          ? arg.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText(sf) === 'data')?.initializer
          : undefined;
        // Anything but a literal `data` cannot be checked: count it as a write.
        const writes = !data || !ts.isObjectLiteralExpression(data) || hasStatus(data);
        if (writes && !insideCreateDelivery(n)) out.push(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('Delivery.status writes', () => {
  it('happen only in web/transitions/transition.ts (intake creates through createDelivery)', () => {
    const found = sources(join(root, 'web')).flatMap((f) => statusWrites(relative(root, f), readFileSync(f, 'utf8')));
    expect(found.filter((w) => !w.startsWith('web/transitions/transition.ts:'))).toEqual([]);
    expect(found).toHaveLength(1);
  });

  it('the finder sees a status write, a non-literal data and a create outside createDelivery', () => {
    const src = `
      await tx.delivery.update({ where: { id }, data: { status: 'FAILED' } });
      await ctx.db.delivery.updateMany({ where: { id }, data });
      await tx.delivery.create({ data: { status } });
      await tx.delivery.update({ where: { id }, data: { lastError: null } });
      await createDelivery(tx, queue, 'received', (status) => tx.delivery.create({ data: { status } }));
      await tx.deliveryEvent.create({ data: { status: 'x' } });`;
    expect(statusWrites('x.ts', src)).toEqual(['x.ts:2', 'x.ts:3', 'x.ts:4']);
  });
});
