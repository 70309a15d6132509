// extensions/order-bulk-action: its toml names a target the installed
// @shopify/ui-extensions implements, a module that exists, and the same
// api_version as the order block (whose version test/unit/app-toml.test.ts checks).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.ts';

const EXT = join(ROOT, 'extensions/order-bulk-action');
const toml = readFileSync(join(EXT, 'shopify.extension.toml'), 'utf8');
const field = (text: string, key: string) => text.match(new RegExp(`^${key}\\s*=\\s*"([^"]+)"`, 'm'))?.[1];

describe('order-bulk-action extension', () => {
  it('targets the orders list selection action, with a module that exists', () => {
    expect(field(toml, 'target')).toBe('admin.order-index.selection-action.render');
    expect(existsSync(join(EXT, field(toml, 'module')!))).toBe(true);
    const targets = readFileSync(join(ROOT, 'node_modules/@shopify/ui-extensions/build/ts/surfaces/admin/extension-targets.d.ts'), 'utf8');
    expect(targets).toContain("'admin.order-index.selection-action.render': RenderExtension<ActionExtensionApi");
  });

  it('uses the same api_version and @shopify/ui-extensions range as the order block', () => {
    const block = join(ROOT, 'extensions/order-delivery-block');
    expect(field(toml, 'api_version')).toBe(field(readFileSync(join(block, 'shopify.extension.toml'), 'utf8'), 'api_version'));
    const deps = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies;
    expect(deps(EXT)).toEqual(deps(block));
  });
});
