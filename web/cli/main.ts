// Operator CLI: `npm run cli -- <command> [args]`. Works on the same database
// as the app (DATABASE_URL). Errors are one line on stderr with exit code 1.
// Secrets are read from stdin or the environment, never from arguments (which
// land in shell history and `ps`), and are never printed.
import { ConfigError, loadConfig } from '../config/env.ts';
import { createLogger } from '../ops/logger.ts';
import { openCliRuntime, type CliRuntime } from './runtime.ts';
import { COMMANDS, CliError, usage } from './commands.ts';
import { ShopNotFoundError } from '../settings/store.ts';

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(usage());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) throw new CliError(`unknown command '${name}'; run \`npm run cli -- help\``);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`npm run cli -- ${command.usage}\n\n${command.summary}\n`);
    return 0;
  }
  const config = loadConfig();
  // Operational logs go to stderr at warn+ so stdout stays the command's output.
  const log = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', destination: process.stderr });
  let runtime: CliRuntime | null = null;
  try {
    runtime = await openCliRuntime(config, log);
    await command.run(runtime, args);
    return 0;
  } finally {
    await runtime?.close();
  }
}

// Exit only once stdout and stderr are flushed: process.exit() right after a
// large write to a pipe would cut the output short.
const exit = (code: number) => process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));

main(process.argv.slice(2)).then(exit, (e) => {
  const known = e instanceof CliError || e instanceof ConfigError || e instanceof ShopNotFoundError;
  process.stderr.write(`error: ${known ? e.message : `unexpected: ${e?.message ?? e}`}\n`);
  exit(1);
});
