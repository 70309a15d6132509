// `npm run dev` and `npm run shopify:dev`: the app for development. It starts exactly as
// `npm start` (web/index.ts) does, after routing Shopify traffic to the shop simulator
// when SHOP_SIMULATOR_URL is set. The product (web/) never loads dev/: production runs
// `node web/index.ts`, and web/config/env.ts refuses SHOP_SIMULATOR_URL there.
import { loadConfig } from '../web/config/env.ts';
import { createLogger } from '../web/ops/logger.ts';
import { routeToShopSimulator } from './shop-sim/route.ts';
import { installFileClock } from './clock.ts';

let config;
try {
  config = loadConfig();
} catch {
  config = null; // web/index.ts reports configuration errors, all of them, and exits
}
if (config) routeToShopSimulator(config, createLogger({ level: config.logLevel }));
// A movable clock (delivery windows, docs/delivery-windows.md); installClock refuses it in production.
if (process.env.DEV_CLOCK_FILE) installFileClock(process.env.DEV_CLOCK_FILE);

await import('../web/index.ts');
