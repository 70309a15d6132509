// Shopify's Theme Check (@shopify/theme-check-node) over the theme app extension, with the rules
// Shopify applies to theme app extensions (extensions/delivery-slots/.theme-check.yml). Exits 1 on
// any offense. Offline: the Liquid docs it knows are the ones bundled with the package.
import { join } from 'node:path';
import { check } from '@shopify/theme-check-node';

const root = join(import.meta.dirname, '..', 'extensions', 'delivery-slots');
const offenses = await check(root, join(root, '.theme-check.yml'));
for (const o of offenses) console.log(`${o.uri.replace(/^file:\/\//, '')}:${o.start.line + 1}:${o.start.character + 1} ${o.check} (severity ${o.severity}): ${o.message}`);
console.log(`theme-check: ${offenses.length} offense(s) in extensions/delivery-slots`);
process.exit(offenses.length ? 1 : 0);
