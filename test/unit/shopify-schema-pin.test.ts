// The pinned Admin schema (dev/shop-sim/schema): the bytes @shopify/dev-mcp shipped, as source.json
// records them, for the version the app sends, with the scope data the scope checks read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADMIN_SCHEMA_VERSION } from '../../dev/shop-sim/contract.ts';
import { checkArtifact, SCHEMA_DIR, sha256, SOURCE_FILE, type PinnedSchema } from '../../dev/shop-sim/schema/refresh.ts';

const pinned = JSON.parse(readFileSync(join(SCHEMA_DIR, SOURCE_FILE), 'utf8')) as PinnedSchema[];

describe('pinned Admin schema', () => {
  it('has the version the app sends, from @shopify/dev-mcp', () => {
    expect(pinned.map((p) => p.file)).toContain(`admin_${ADMIN_SCHEMA_VERSION}.json.gz`);
    for (const p of pinned) expect(p).toMatchObject({ package: '@shopify/dev-mcp', path: `dist/data/${p.file}` });
  });

  it.each(pinned.map((p) => [p.file, p] as const))('%s is the file source.json names, byte for byte, with its scopes', (_file, p) => {
    const gz = readFileSync(join(SCHEMA_DIR, p.file));
    expect({ bytes: gz.length, sha256: sha256(gz) }).toEqual({ bytes: p.bytes, sha256: p.sha256 });
    expect(checkArtifact(gz).scopeItems).toBeGreaterThan(1000);
  });
});
