// `npm run schema:refresh [-- <package spec>] [--version <admin API version>] [--out <dir>]`
// Pins Shopify's Admin GraphQL introspection (with its access-scope data) in the repo, byte for
// byte as @shopify/dev-mcp ships it (dist/data/admin_<version>.json.gz). The package is never a
// dependency: `npm pack` fetches its tarball into a temporary folder, the one file is taken out,
// checked, and written beside source.json, which names the package, version and sha256.
// docs/shopify-contract.md says when to run it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { buildClientSchema, type IntrospectionQuery } from 'graphql';

export const SCHEMA_DIR = fileURLToPath(new URL('./', import.meta.url));
export const SOURCE_FILE = 'source.json';

/** What source.json records for each pinned file. */
export interface PinnedSchema {
  file: string;
  package: string;
  version: string;
  path: string;
  bytes: number;
  sha256: string;
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Throws unless the bytes are a gzipped introspection the loader can use, with its scope data. */
export function checkArtifact(gz: Buffer): { types: number; scopeItems: number } {
  const json = JSON.parse(gunzipSync(gz).toString('utf8')) as { data?: IntrospectionQuery; offline_scopes?: { items?: unknown[] } };
  if (!json.data?.__schema) throw new Error('no data.__schema: not an introspection result');
  if (!Array.isArray(json.offline_scopes?.items) || json.offline_scopes.items.length === 0) throw new Error('no offline_scopes.items: the scope checks need them');
  buildClientSchema(json.data, { assumeValid: true });
  return { types: json.data.__schema.types.length, scopeItems: json.offline_scopes.items.length };
}

export function refreshSchema(o: { spec: string; version: string; out: string; log?: (line: string) => void }): PinnedSchema {
  const log = o.log ?? (() => {});
  const tmp = mkdtempSync(join(tmpdir(), 'schema-refresh-'));
  try {
    log(`npm pack ${o.spec} (into ${tmp}; nothing is installed)`);
    const packed = JSON.parse(execFileSync('npm', ['pack', o.spec, '--pack-destination', tmp, '--json', '--ignore-scripts', '--loglevel=error'], { cwd: tmp, encoding: 'utf8' })) as Array<{ name: string; version: string; filename: string }>;
    const { name, version, filename } = packed[0]!;
    if (name !== '@shopify/dev-mcp') log(`note: ${name} is not @shopify/dev-mcp; taking its file all the same`);
    const path = `dist/data/admin_${o.version}.json.gz`;
    log(`extracting ${path} from ${name}@${version}`);
    try {
      execFileSync('tar', ['-xzf', join(tmp, filename), '-C', tmp, `package/${path}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch {
      throw new Error(`${name}@${version} has no ${path}: is ${o.version} an Admin API version it ships?`);
    }
    const gz = readFileSync(join(tmp, 'package', path));
    const { types, scopeItems } = checkArtifact(gz);
    mkdirSync(o.out, { recursive: true });
    const file = `admin_${o.version}.json.gz`;
    writeFileSync(join(o.out, file), gz);
    const pinned: PinnedSchema = { file, package: name, version, path, bytes: gz.length, sha256: sha256(gz) };
    const sourcePath = join(o.out, SOURCE_FILE);
    let others: PinnedSchema[] = [];
    try {
      others = (JSON.parse(readFileSync(sourcePath, 'utf8')) as PinnedSchema[]).filter((p) => p.file !== file);
    } catch {
      others = [];
    }
    writeFileSync(sourcePath, `${JSON.stringify([...others, pinned].sort((a, b) => a.file.localeCompare(b.file)), null, 2)}\n`);
    log(`wrote ${join(o.out, file)}: ${gz.length} bytes, ${types} types, ${scopeItems} scope entries, sha256 ${pinned.sha256}`);
    return pinned;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { version: { type: 'string' }, out: { type: 'string' } } });
  // The version the shop simulator validates against, unless told.
  const version = values.version ?? (await import('../contract.ts')).ADMIN_SCHEMA_VERSION;
  try {
    refreshSchema({ spec: positionals[0] ?? '@shopify/dev-mcp@latest', version, out: values.out ? resolve(values.out) : SCHEMA_DIR, log: (l) => console.log(l) });
  } catch (e) {
    console.error(`schema:refresh failed: ${(e as Error).message}`);
    process.exit(1);
  }
}
