// `npm start`: the app server. Configuration errors end start-up with one line per problem, all of them at once.
import { ConfigError, loadConfig } from './config/env.ts';
import { createLogger } from './ops/logger.ts';
import { startServer } from './server.ts';

let config;
try {
  config = loadConfig();
} catch (e) {
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
  throw e;
}

const log = createLogger({ level: config.logLevel });
const server = await startServer(config, { log });

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => {
      log.error('shutdown took longer than 25 s; exiting');
      log.flush();
      process.exit(1);
    }, 25_000);
    force.unref();
    await server.close();
    process.exit(0);
  });
}
