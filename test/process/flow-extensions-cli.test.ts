// Shopify's own CLI validates the Flow extensions against its published
// specifications: `shopify app build` (offline: it loads the app with the
// CLI's local extension specifications and no network) on a copy holding
// shopify.app.toml, extensions/flow-* and the theme app extension extensions/delivery-slots. It must also fail on a rule Shopify
// enforces (a trigger field key with an underscore), so the check can fail.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.ts';

const CLI = join(ROOT, 'node_modules/@shopify/cli/bin/run.js');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function appCopy(edit?: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'flow-ext-'));
  dirs.push(dir);
  cpSync(join(ROOT, 'shopify.app.toml'), join(dir, 'shopify.app.toml'));
  for (const d of readdirSync(join(ROOT, 'extensions')).filter((x) => x.startsWith('flow-') || x === 'delivery-slots')) cpSync(join(ROOT, 'extensions', d), join(dir, 'extensions', d), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"name":"flow-extensions-check","private":true}');
  edit?.(dir);
  return dir;
}

function build(dir: string) {
  const r = spawnSync(process.execPath, [CLI, 'app', 'build', '--path', dir, '--skip-dependencies-installation'], {
    // PWD and INIT_CWD too: the CLI reads them, and from the repository it would regenerate the UI extensions' types there.
    cwd: dir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, PWD: dir, INIT_CWD: dir, SHOPIFY_CLI_NO_ANALYTICS: '1', CI: '1', NO_COLOR: '1' },
  });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

describe('shopify app build on the Flow extensions', () => {
  it('builds', () => {
    const r = build(appCopy());
    expect(r.out).toMatch(/built!/);
    // The cart block's theme app extension (extensions/delivery-slots) too.
    expect(r.out).toMatch(/Bundling theme extension delivery-slots/);
    expect(r.status).toBe(0);
  }, 150_000);

  it('refuses a trigger field key Shopify does not accept', () => {
    const r = build(appCopy((dir) => {
      const file = join(dir, 'extensions/flow-delivery-booked/shopify.extension.toml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('key = "Job id"', 'key = "job_id"'));
    }));
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/must contain only alphabetic characters[\s\S]*\\?"key\\?"/);
  }, 150_000);
});
