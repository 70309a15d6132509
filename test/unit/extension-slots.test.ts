// The cart block's theme app extension (extensions/delivery-slots): the shape Shopify's CLI
// expects, every storefront string in every locale, and the cart attribute names the app reads.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LABEL_ATTRIBUTE, LOCATION_ATTRIBUTE, SLOT_ATTRIBUTE, ASAP } from '../../web/slots/attributes.ts';
import { ROOT } from '../support/paths.ts';

const DIR = join(ROOT, 'extensions', 'delivery-slots');
const read = (p: string) => readFileSync(join(DIR, p), 'utf8');
const keys = (o: unknown, prefix = ''): string[] =>
  Object.entries(o as Record<string, unknown>).flatMap(([k, v]) => (typeof v === 'object' && v ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`])).sort();

describe('extensions/delivery-slots', () => {
  it('is a theme app extension with only the folders Shopify allows', () => {
    expect(read('shopify.extension.toml')).toMatch(/^type = "theme"$/m);
    expect(readdirSync(DIR).filter((f) => !f.startsWith('.') && f !== 'shopify.extension.toml').sort()).toEqual(['assets', 'blocks', 'locales']);
  });

  it('its block targets a section and names its assets', () => {
    const schema = JSON.parse(/{%\s*schema\s*%}([\s\S]*?){%\s*endschema\s*%}/.exec(read('blocks/delivery-slots.liquid'))![1]!);
    expect(schema).toMatchObject({ target: 'section', javascript: 'delivery-slots.js', stylesheet: 'delivery-slots.css' });
  });

  it('speaks English, German, French and Afrikaans, every key in each', () => {
    const en = keys(JSON.parse(read('locales/en.default.json')));
    const enSchema = keys(JSON.parse(read('locales/en.default.schema.json')));
    for (const l of ['de', 'fr', 'af']) {
      expect(keys(JSON.parse(read(`locales/${l}.json`))), l).toEqual(en);
      expect(keys(JSON.parse(read(`locales/${l}.schema.json`))), l).toEqual(enSchema);
    }
  });

  it('writes the cart attributes the app reads from the order', () => {
    const js = read('assets/delivery-slots.js');
    expect(js).toContain(`ATTR = '${SLOT_ATTRIBUTE}'`);
    expect(js).toContain(`LABEL = '${LABEL_ATTRIBUTE}'`);
    expect(js).toContain(`attributes.${LOCATION_ATTRIBUTE} =`);
    expect(js).toContain(`'${ASAP}'`);
    expect(read('blocks/delivery-slots.liquid')).toContain(`cart.attributes.${SLOT_ATTRIBUTE}`);
  });
});
