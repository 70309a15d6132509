// The CLI's services: the app's own runtime without job workers (it enqueues;
// the running app's workers do the work).
import type { AppConfig } from '../config/env.ts';
import type { AppContext } from '../context.ts';
import { openMigratedDatabase } from '../db/migrate.ts';
import type { Logger } from '../ops/logger.ts';
import { createRuntime, encryptionBox } from '../runtime.ts';

export interface CliRuntime {
  ctx: AppContext;
  config: AppConfig;
  out(line?: string): void;
  close(): Promise<void>;
}

export async function openCliRuntime(config: AppConfig, log: Logger): Promise<CliRuntime> {
  const box = encryptionBox(config, log);
  const { database } = await openMigratedDatabase(config.databaseUrl, { poolSize: 2 });
  try {
    const runtime = await createRuntime(config, log, database, box, { workers: false });
    return {
      ctx: runtime.ctx,
      config,
      out: (line = '') => process.stdout.write(`${line}\n`),
      async close() {
        await runtime.close();
        await database.close();
      },
    };
  } catch (e) {
    await database.close();
    throw e;
  }
}
