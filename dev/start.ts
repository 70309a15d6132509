// `npm run dev` and `npm run shopify:dev`: the app for development. It starts exactly as
// `npm start` (web/index.ts) does, after routing Shopify traffic to the shop simulator
// when SHOP_SIMULATOR_URL is set. The product (web/) never loads dev/: production runs
// `node web/index.ts`, and web/config/env.ts refuses SHOP_SIMULATOR_URL there.
import { loadConfig } from '../web/config/env.ts';
import { createLogger } from '../web/ops/logger.ts';
import { routeToShopSimulator } from './shop-sim/route.ts';

let config;
try {
  config = loadConfig();
} catch {
  config = null; // web/index.ts reports configuration errors, all of them, and exits
}
if (config) routeToShopSimulator(config, createLogger({ level: config.logLevel }));

await import('../web/index.ts');
