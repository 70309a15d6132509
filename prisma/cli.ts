// How to run the Prisma CLI for one provider with its offline config
// (prisma/<provider>.config.ts). Used by the dev scripts here and by
// web/db/migrate.ts at start-up.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export type Provider = 'sqlite' | 'postgres';

export function prismaCommand(provider: Provider, args: string[], env: NodeJS.ProcessEnv = {}) {
  return {
    command: process.execPath,
    args: [join(root, 'node_modules/prisma/build/index.js'), ...args, '--config', join(root, `prisma/${provider}.config.ts`)],
    options: {
      cwd: root,
      env: { ...process.env, CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1', ...env },
    },
  };
}

export function prisma(
  provider: Provider,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; capture?: boolean } = {},
): SpawnSyncReturns<string> {
  const c = prismaCommand(provider, args, opts.env);
  return spawnSync(c.command, c.args, { ...c.options, encoding: 'utf8', stdio: opts.capture ? 'pipe' : 'inherit' });
}
