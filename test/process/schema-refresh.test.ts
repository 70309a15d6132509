// `npm run schema:refresh` (dev/shop-sim/schema/refresh.ts) as a child process: it packs the given
// package with `npm pack` (here a local folder shaped like @shopify/dev-mcp, so no registry is
// needed), takes dist/data/admin_<version>.json.gz out unchanged and records where it came from.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_DIR, sha256 } from '../../dev/shop-sim/schema/refresh.ts';
import { ROOT } from '../support/paths.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sdd-schema-'));
  dirs.push(dir);
  return dir;
}

/** A package folder named like dev-mcp holding `files` under dist/data. */
function fakePackage(files: Record<string, Buffer>): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@shopify/dev-mcp', version: '9.9.9-test', files: ['dist'] }));
  mkdirSync(join(dir, 'dist', 'data'), { recursive: true });
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, 'dist', 'data', name), bytes);
  return dir;
}

function refresh(spec: string, out: string, version = '2026-10') {
  return spawnSync(process.execPath, [join(ROOT, 'dev/shop-sim/schema/refresh.ts'), spec, '--version', version, '--out', out], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
}

describe('npm run schema:refresh', () => {
  const real = readFileSync(join(SCHEMA_DIR, 'admin_2026-10.json.gz'));

  it('pins the file byte for byte and records package, version and sha256', () => {
    const out = join(tempDir(), 'out');
    const r = refresh(fakePackage({ 'admin_2026-10.json.gz': real }), out);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('npm pack');
    expect(sha256(readFileSync(join(out, 'admin_2026-10.json.gz')))).toBe(sha256(real));
    expect(JSON.parse(readFileSync(join(out, 'source.json'), 'utf8'))).toEqual([
      { file: 'admin_2026-10.json.gz', package: '@shopify/dev-mcp', version: '9.9.9-test', path: 'dist/data/admin_2026-10.json.gz', bytes: real.length, sha256: sha256(real) },
    ]);
  }, 90_000);

  it.each([
    ['a version the package does not ship', {}, 'has no dist/data/admin_2026-10.json.gz'],
    ['a file that is not an introspection', { 'admin_2026-10.json.gz': gzipSync('{"data":{}}') }, 'no data.__schema'],
    ['an introspection without scope data', { 'admin_2026-10.json.gz': gzipSync(JSON.stringify({ data: { __schema: { types: [] } } })) }, 'no offline_scopes.items'],
  ] as const)('refuses %s, writing nothing', (_name, files, message) => {
    const out = join(tempDir(), 'out');
    const r = refresh(fakePackage(files as Record<string, Buffer>), out);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(message);
    expect(() => readFileSync(join(out, 'source.json'))).toThrow();
  }, 90_000);
});
