// What the simulator reads from disk: the sample orders it places by name (dev/shop-sim/orders)
// and the scopes shopify.app.toml declares (what a Shopify-managed installation grants).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpError, parseJson } from './errors.ts';

export const DEFAULT_FIXTURES_DIR = fileURLToPath(new URL('./orders/', import.meta.url));
const APP_TOML = fileURLToPath(new URL('../../shopify.app.toml', import.meta.url));

/** The access scopes shopify.app.toml declares: what a Shopify-managed installation grants. */
export function declaredScopes(file = APP_TOML): string {
  try {
    const toml = readFileSync(file, 'utf8');
    const section = toml.slice(toml.indexOf('[access_scopes]'));
    return /^\s*scopes\s*=\s*"([^"]*)"/m.exec(section)?.[1] ?? '';
  } catch {
    return '';
  }
}

/** Sample orders by name (file name without .json). */
export interface Fixtures {
  names(): string[];
  load(name: string): Record<string, any>;
}

export function fixturesIn(dir: string): Fixtures {
  const names = () => {
    try {
      return readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
    } catch {
      return [];
    }
  };
  return {
    names,
    load(name) {
      if (!/^[\w-]+$/.test(name)) throw new HttpError(400, `fixture must be a file name without .json, e.g. "sandton-same-day"; got "${name}"`);
      let text: string;
      try {
        text = readFileSync(join(dir, `${name}.json`), 'utf8');
      } catch {
        throw new HttpError(404, `no fixture "${name}" in ${dir}; available: ${names().join(', ') || '(none)'}`);
      }
      return parseJson(text, `fixture ${name}`);
    },
  };
}
